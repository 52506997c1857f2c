# The deploy image (render.yaml builds it on Render): Python as .python-version pins it, Debian's Tesseract with
# English and simplified Chinese data (scanned PDF pages are read by OCR), and the locked environment.
# `python app.py` binds 0.0.0.0:$PORT (7860 unless the host sets PORT).
FROM python:3.11.7-slim

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/*

ENV GRADIO_ANALYTICS_ENABLED=False ANONYMIZED_TELEMETRY=False UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy \
    PORT=7860
RUN pip install --no-cache-dir --disable-pip-version-check "uv==0.13.8"

WORKDIR /app
# The dependencies first, so a code change does not reinstall them.
COPY pyproject.toml uv.lock .python-version ./
RUN uv sync --frozen --no-dev
COPY . .

EXPOSE 7860
CMD ["uv", "run", "--frozen", "--no-dev", "python", "app.py"]
