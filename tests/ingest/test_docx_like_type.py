"""A new file type is one class plus one registration: a DOCX-like test parser (a ZIP of paragraphs under its own
suffix, .hdoc: DOCX itself is a shipped type), registered here and nowhere else,
works end to end — found by parse_paths (with its sidecar metadata), kept in a store and reloaded, offered and
accepted by the app's upload, asked, and shown with its cited lines highlighted in the Source panel."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest

from pipeline import PARSERS, EngineConfig, Incoming, InputError, Library, Request, build_engine, text_document
from pipeline.testing import ParserContract
from tests.conftest import REQUEST_DATE, upload_and_ask

pytestmark = pytest.mark.slow  # end to end with the real model

NAMESPACE = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
PARAGRAPHS = ("Fictional harbour dues policy for the island ferry port.",
              "Small boats pay harbour dues of 12 euros per day.",
              "Dues are paid at the harbour office before departure.")
QUESTION = "How much are the harbour dues for a small boat per day?"


class DocxLikeTestParser:
    """A DOCX-like file: a ZIP holding hdoc/document.xml (a DOCX's word/document.xml under another name); each
    paragraph (w:p) is one line of its text (w:t)."""

    name = "hdoc-test"
    suffixes = (".hdoc",)
    media_types = ("application/x-harbour-document",)
    front_matter = False  # its metadata comes from a sidecar NAME.hdoc.yaml or the upload form

    def sniff(self, data: bytes) -> bool:
        return data[:4] == b"PK\x03\x04" and b"hdoc/document.xml" in data

    def parse(self, data, filename, metadata=None, limits=None):
        try:
            xml = zipfile.ZipFile(io.BytesIO(data)).read("hdoc/document.xml").decode("utf-8")
        except (zipfile.BadZipFile, KeyError, UnicodeDecodeError):
            raise InputError(filename, "is not an HDOC file (no readable hdoc/document.xml)") from None
        paragraphs = ["".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", p)) for p in re.findall(r"<w:p\b.*?</w:p>", xml, re.S)]
        return text_document("\n".join(paragraphs) + "\n", data, filename, self.name, metadata)


def docx(paragraphs=PARAGRAPHS) -> bytes:
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:  # entries dated once: the same paragraphs are the same bytes
        archive.writestr(zipfile.ZipInfo("[Content_Types].xml", (2026, 1, 1, 0, 0, 0)), "<Types/>")
        archive.writestr(zipfile.ZipInfo("hdoc/document.xml", (2026, 1, 1, 0, 0, 0)),
                         f'<w:document xmlns:w="{NAMESPACE}"><w:body>{body}</w:body></w:document>')
    return out.getvalue()


@pytest.fixture
def registered():
    """The one registration (for this test only)."""
    with PARSERS.registered("hdoc-test", DocxLikeTestParser):
        yield


@pytest.fixture
def docx_engine(registered):
    return build_engine(EngineConfig(vector_store="memory"))


class TestDocxLikeParser(ParserContract):
    """It keeps the parser contract like the shipped types."""

    @pytest.fixture
    def parser(self):
        return DocxLikeTestParser()

    @pytest.fixture
    def sample(self):
        return docx(), "harbour.hdoc"


def test_parse_paths_finds_it_with_its_sidecar_and_the_engine_asks_it(docx_engine, tmp_path):
    (tmp_path / "harbour.hdoc").write_bytes(docx())
    (tmp_path / "harbour.hdoc.yaml").write_text("id: harbour-dues\nversion: v3\ntopic: harbour\n", "utf-8")
    (tmp_path / "notes.md").write_text("Ferry notes.\n", "utf-8")
    assert ".hdoc" in docx_engine.upload_suffixes and "hdoc-test" in docx_engine.components()["parsers"]
    documents = {d.source_id: d for d in docx_engine.parse_paths([tmp_path])}
    assert set(documents) == {"harbour-dues", "notes"}
    harbour = documents["harbour-dues"]
    assert (harbour.kind, harbour.meta.version, harbour.meta.topic) == ("hdoc-test", "v3", "harbour")
    assert [line.text for line in harbour.pages[0].lines] == list(PARAGRAPHS)
    trace = docx_engine.ask(docx_engine.corpus(list(documents.values())),
                            Request(question=QUESTION, date=REQUEST_DATE, topic="harbour"))
    assert trace.answer.status == "answered", trace.explanation
    assert (trace.answer.citations[0].source_id, trace.answer.citations[0].start_line) == ("harbour-dues", 2)


def test_a_store_keeps_it_and_reloads_it(docx_engine, tmp_path):
    from pipeline.library.ingest import corpus_from_store, ingest

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "harbour.hdoc").write_bytes(docx())
    store = tmp_path / "store"
    assert ingest(docx_engine, store, [tmp_path / "in"]) == (["harbour"], [])
    digest = json.loads((store / "manifest.json").read_text())["documents"]["harbour"]["digest"]
    assert (store / "blobs" / f"{digest}.hdoc").read_bytes() == docx()  # the original, under its own type
    reloaded = corpus_from_store(docx_engine, store)
    assert reloaded.documents["harbour"].kind == "hdoc-test"
    assert reloaded.documents["harbour"].pages[0].lines[1].text == PARAGRAPHS[1]


def test_a_library_replaces_it_with_inherited_metadata(docx_engine, tmp_path):
    library = Library(tmp_path / "data")
    library.add(docx_engine, [Incoming("harbour.hdoc", docx(), {"topic": "harbour"})])
    _, new = library.replace(docx_engine, "harbour", Incoming("harbour-2027.hdoc", docx(PARAGRAPHS[:2])), "v2")
    assert (new.kind, new.meta.version, new.meta.topic) == ("hdoc-test", "v2", "harbour")


@pytest.mark.slow  # serves the app
def test_the_app_offers_accepts_and_shows_it(docx_engine, tmp_path):
    path = tmp_path / "harbour.hdoc"
    path.write_bytes(docx())
    file_inputs, added, trace, shown = upload_and_ask(docx_engine, path, "harbour", QUESTION)
    assert file_inputs and all(".hdoc" in types for types in file_inputs)  # the upload widgets offer it
    assert added["errors"] == [] and added["added"][0]["kind"] == "hdoc-test"
    assert trace["answer"]["status"] == "answered", trace["explanation"]
    assert trace["answer"]["citations"][0]["source_id"] == "harbour"
    assert '<div class="ln verified" data-line="2">' in shown  # the Source panel marks the cited line
    assert "supports the claim" in shown and "harbour line 2" in shown
