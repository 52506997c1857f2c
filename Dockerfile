# The deploy image (render.yaml builds it on Render): Python as .python-version pins it, Debian's Tesseract with
# English and simplified Chinese data (scanned PDF pages are read by OCR), and the locked environment.
# `python app.py` binds 0.0.0.0:$PORT (7860 unless the host sets PORT).
# Debian 12 named: the apt packages and the language data's folder below are bookworm's.
FROM python:3.11.7-slim-bookworm

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/*
# PyMuPDF's own Tesseract reads this language data (pipeline/ingest/parsers/pdf_ocr.py): named, so no worker has to
# ask the `tesseract` program where it is, and checked, so an image that could not read scans is never built.
ENV TESSDATA_PREFIX=/usr/share/tesseract-ocr/5/tessdata
RUN test -s "$TESSDATA_PREFIX/eng.traineddata" && test -s "$TESSDATA_PREFIX/chi_sim.traineddata"

ENV GRADIO_ANALYTICS_ENABLED=False ANONYMIZED_TELEMETRY=False UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy \
    PORT=7860 PATH="/app/.venv/bin:$PATH"
RUN pip install --no-cache-dir --disable-pip-version-check "uv==0.13.8"

WORKDIR /app
# The dependencies first, so a code change does not reinstall them.
COPY pyproject.toml uv.lock .python-version ./
RUN uv sync --frozen --no-dev
COPY . .

EXPOSE 7860
# The environment's python itself: `uv run` would stay resident as its parent (27 MiB RSS measured), outside what
# the app's host-memory budget counts, on a 512 MiB host.
CMD ["python", "app.py"]
