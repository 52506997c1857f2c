"""The free-host files stay true: requirements.txt matches uv.lock, the blueprint and the Spaces header agree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.ingest.test_pdf_ocr_and_info import skip_or_fail_without_ocr

ROOT = Path(__file__).resolve().parents[2]


def _pins(text: str) -> list[str]:
    return [line.split(";")[0].strip() for line in text.splitlines() if line and not line.startswith(("#", " "))]


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not on PATH (it exports requirements.txt from uv.lock)")
def test_requirements_txt_is_the_locked_runtime_set():
    exported = subprocess.run(["uv", "export", "--frozen", "--no-dev", "--no-hashes", "--format", "requirements-txt"],
                              cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert _pins((ROOT / "requirements.txt").read_text()) == _pins(exported), \
        "regenerate: uv export --frozen --no-dev --no-hashes --format requirements-txt -o requirements.txt"


def test_the_spaces_header_and_the_render_blueprint_agree_with_the_project():
    readme = (ROOT / "README.md").read_text("utf-8")
    header = yaml.safe_load(readme.split("---", 2)[1])
    pins = dict(p.split("==") for p in _pins((ROOT / "requirements.txt").read_text()))
    assert header["sdk"] == "gradio" and header["sdk_version"] == pins["gradio"]
    assert header["app_file"] == "app.py" and (ROOT / header["app_file"]).is_file()
    assert str(header["python_version"]) == (ROOT / ".python-version").read_text().strip().rsplit(".", 1)[0]
    blueprint = yaml.safe_load((ROOT / "render.yaml").read_text())
    service = blueprint["services"][0]
    assert service["plan"] == "free" and service["healthCheckPath"] == "/healthz"
    assert service["runtime"] == "docker" and (ROOT / service["dockerfilePath"]).is_file()
    from pipeline.core.settings import VARIABLES, Environment

    settings = {v["key"]: v["value"] for v in service["envVars"] if v["key"].startswith("RAG_")}
    assert settings and set(settings) <= set(VARIABLES)  # every setting the blueprint makes is one the app reads
    env = Environment.read({k: str(v) for k, v in settings.items()})
    assert env.limit("RAG_HOST_MEMORY_MB", 0, minimum=0) == 512  # the free instance: uploads stop short of it
    # The per-client shares count the visitor's address: uvicorn believes Render's proxy (a private network), and
    # never every sender ("*" takes X-Forwarded-For's first entry, which a client writes itself).
    proxies = {v["key"]: v["value"] for v in service["envVars"]}["FORWARDED_ALLOW_IPS"]
    assert "FORWARDED_ALLOW_IPS" in VARIABLES and "*" not in proxies and "10.0.0.0/8" in proxies.split(",")


def test_the_deploy_image_and_the_spaces_packages_install_tesseract_and_the_locked_environment():
    """Render builds the Dockerfile, Spaces installs packages.txt: both get OCR's Tesseract with its two
    languages, the pinned Python and the locked dependencies, and start app.py (which binds $PORT)."""
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    python = (ROOT / ".python-version").read_text().strip()
    assert f"FROM python:{python}-slim" in dockerfile
    ocr_packages = {"tesseract-ocr", "tesseract-ocr-eng", "tesseract-ocr-chi-sim"}
    assert ocr_packages <= set(dockerfile.split())
    assert "uv sync --frozen --no-dev" in dockerfile and '"python", "app.py"]' in dockerfile
    assert ocr_packages == set((ROOT / "packages.txt").read_text().split())
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert ocr_packages <= set(ci.split()) and "REQUIRE_OCR=1" in ci
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_the_deploy_images_tessdata_is_where_debian_bookworm_puts_it():
    """The Dockerfile names the language data's folder (TESSDATA_PREFIX) for its Debian release; checked against this
    machine's Debian packages where it runs the same release (CI, and the development machine), else skipped; missing
    packages on that release fail under REQUIRE_OCR=1 (CI) instead of skipping."""
    import re

    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    release = re.search(r"^FROM python:\S+-slim-(\w+)", dockerfile, re.M)
    named = re.search(r"^ENV TESSDATA_PREFIX=(\S+)", dockerfile, re.M)
    assert release and named, "the Dockerfile names its Debian release and TESSDATA_PREFIX"
    try:
        here = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
    except OSError:
        here = {}
    if here.get("VERSION_CODENAME") != release.group(1) or shutil.which("dpkg") is None:
        pytest.skip(f"this machine is {here.get('PRETTY_NAME', 'not Debian')}, not Debian {release.group(1)} (the "
                    "image's release), so its packages say nothing of the image's paths")
    listed = subprocess.run(["dpkg", "-L", "tesseract-ocr-eng", "tesseract-ocr-chi-sim"], capture_output=True,
                            text=True)
    if listed.returncode != 0:
        skip_or_fail_without_ocr("Debian's tesseract-ocr-eng and tesseract-ocr-chi-sim are not installed here")
    folders = {str(Path(p).parent) for p in listed.stdout.split() if p.endswith(".traineddata")}
    assert folders == {named.group(1)}
