"""The engine's seams: one builder, registered parts, the conflict step for every producer,
validated settings in the trace, and the app importing only the public API."""

from __future__ import annotations

import ast
import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from pipeline import (
    EMBEDDERS,
    GENERATORS,
    JUDGES,
    PARSERS,
    VECTOR_STORES,
    Document,
    EngineConfig,
    IndexSettings,
    Proposal,
    ProposedCitation,
    Request,
    Settings,
    SupportVerdict,
    build_engine,
    parse_answer,
)
from tests.fakes import HashedWordsTestEmbedder

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_docs" / "corpus"
CONFLICT = ROOT / "sample_docs" / "diagnostic" / "travel-v2-800.md"
LODGING = Request(question="Beijing lodging", date=dt.date(2026, 9, 14), topic="travel")


@pytest.fixture(scope="module")
def conflicted(engine):
    """The samples plus the deliberately contradictory 800-yuan copy of travel-v2."""
    return engine.corpus(engine.parse_paths([CORPUS, CONFLICT]))


def _citing(source_id: str, amount: int) -> Proposal:
    return Proposal(answer=f"The lodging limit is {amount} yuan. [{source_id}:1-3]", producer="fixed-proposal",
                    citations=[ProposedCitation(source_id=source_id, start_line=1, end_line=3)])


class ScriptedTestGenerator:
    """A stand-in producer (no model): proposes a fixed answer, as a language model might."""

    def __init__(self, proposal: Proposal):
        self.proposal = proposal
        self.name = "scripted-test-generator"
        self.calls = 0

    def __call__(self, context):
        self.calls += 1
        return self.proposal.model_copy(update={"producer": self.name})


# --------------------------------------------------------------------------- the conflict rule, per producer


def test_the_extractive_generator_abstains_on_a_conflict(engine, conflicted):
    trace = engine.ask(conflicted, LODGING)
    assert trace.generator_called and trace.answer.reason_code == "conflicting_evidence"
    assert trace.abstention.stage == "conflict" and "800" in trace.explanation


@pytest.mark.parametrize("source_id, amount", [("travel-v2", 750), ("travel-v2-800", 800)])
def test_a_given_proposal_abstains_whichever_source_it_cites(engine, conflicted, source_id, amount):
    trace = engine.ask(conflicted, LODGING, proposal=_citing(source_id, amount))
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "conflicting_evidence"
    assert all(check.verified for check in trace.checks)  # the citation itself is fine: the siblings disagree


@pytest.mark.parametrize("source_id, amount", [("travel-v2", 750), ("travel-v2-800", 800)])
def test_another_generator_is_held_to_the_same_rule(engine, conflicted, source_id, amount):
    generator = ScriptedTestGenerator(_citing(source_id, amount))
    trace = engine.ask(conflicted, LODGING, generator=generator)
    assert generator.calls == 1 and trace.answer.producer == "scripted-test-generator"
    assert trace.answer.reason_code == "conflicting_evidence"


def test_a_pasted_answer_is_held_to_the_same_rule(engine, conflicted):
    pasted = parse_answer("The lodging limit is 750 yuan. [travel-v2:1-3]")
    trace = engine.ask(conflicted, LODGING, proposal=pasted)
    assert trace.answer.producer == "pasted-answer" and trace.answer.reason_code == "conflicting_evidence"


def test_without_the_contradiction_the_same_proposal_is_answered(engine, sample_corpus):
    trace = engine.ask(sample_corpus, LODGING, proposal=_citing("travel-v2", 750))
    assert trace.answer.status == "answered" and trace.abstention is None


def test_an_older_undated_version_is_not_a_conflict(engine, sample_corpus):
    request = Request(question="When does the island ferry depart?", date=dt.date(2026, 9, 14))
    trace = engine.ask(sample_corpus, request)
    assert trace.answer.status == "answered" and trace.answer.citations[0].source_id == "tt-2025"


# --------------------------------------------------------------------------- second implementations


class ExactQuoteTestJudge:
    """A second judge: supported only when the claim is a verbatim substring of the span."""

    name = "exact-quote-test-judge"

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        text = claim.strip().rstrip(".")
        return SupportVerdict(supported=bool(text) and text in span, score=None, detail="verbatim substring test")


class DictTestVectorStore:
    location = "dict-test-store"

    def __init__(self):
        self.vectors: dict[str, np.ndarray] = {}

    def fetch(self, keys):
        return {k: self.vectors[k] for k in keys if k in self.vectors}

    def store(self, keys, vectors):
        self.vectors.update(zip(keys, vectors))


class PsvTestParser:
    """A type no shipped parser reads: .psv tables, one row per line (rows are lines, so they can be cited)."""

    name = "psv-test"
    suffixes = (".psv",)
    media_types = ("text/x-test-separated-values",)
    front_matter = True

    def sniff(self, data: bytes) -> bool:
        return False

    def parse(self, data, filename, metadata=None, limits=None) -> Document:
        from pipeline.ingest.parsers.text import parse_text

        return parse_text(data, Path(filename).with_suffix(".txt").name, metadata).model_copy(
            update={"filename": filename})


@pytest.fixture
def test_parts():
    """The test's own parts, registered for this test only."""
    scripted = Proposal(answer="The ferry departs at 08:30. [tt-2025:1]",
                        citations=[ProposedCitation(source_id="tt-2025", start_line=1, end_line=1)])
    with (GENERATORS.registered("scripted-test", lambda **_: ScriptedTestGenerator(scripted)),
          JUDGES.registered("exact-quote-test", lambda **_: ExactQuoteTestJudge()),
          EMBEDDERS.registered("hashed-words-test", HashedWordsTestEmbedder),
          VECTOR_STORES.registered("dict-test", lambda **_: DictTestVectorStore()),
          PARSERS.registered("psv-test", PsvTestParser)):
        yield


def test_each_part_is_one_class_plus_one_registration(tmp_path, test_parts):
    engine = build_engine(EngineConfig(generator="scripted-test", judge="exact-quote-test",
                                       embedder="hashed-words-test", vector_store="dict-test"))
    table = tmp_path / "fares.psv"
    table.write_text("route\tfare\nisland\t12 euros\n", "utf-8")
    documents = engine.parse_paths([CORPUS / "ferry-timetable-2025.md"]) + [engine.parse(table.read_bytes(), "fares.psv")]
    corpus = engine.corpus(documents)
    assert corpus.embedder.name == "hashed-words-test-embedder" and len(engine.vector_store.vectors) == len(corpus.chunks)
    assert documents[-1].pages[0].lines[1].text == "island\t12 euros"
    trace = engine.ask(corpus, Request(question="When does the island ferry depart?", date=dt.date(2026, 9, 14)))
    assert trace.components["generator"] == "scripted-test-generator"
    assert trace.components["judge"] == "exact-quote-test-judge"
    assert trace.components["vector_store"] == "dict-test-store" and "psv-test" in trace.components["parsers"]
    # The second judge decides claim_supported: "08:30" alone is not a verbatim sentence of the line.
    assert trace.answer.reason_code == "unsupported_claim"
    assert "verbatim substring test" in json.dumps([c.model_dump() for c in trace.checks])


def test_an_unknown_part_is_one_clear_error():
    from pipeline import ConfigError

    with pytest.raises(ConfigError, match="unknown generator 'nope'"):
        build_engine(EngineConfig(generator="nope"))


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize("field, value", [("top_k", 0), ("min_lexical", -0.1), ("window", -1), ("support_coverage", 1.5)])
def test_settings_refuse_impossible_values(field, value):
    with pytest.raises(ValidationError):
        Settings(**{field: value})


def test_index_settings_shape_the_chunks_and_are_traced(logic_engine):
    engine = build_engine(EngineConfig(vector_store="memory", index=IndexSettings(chunk_window=200, chunk_overlap=20,
                                                                                   bm25_k1=1.5, bm25_b=0.5)),
                          embedder=HashedWordsTestEmbedder())
    text = "---\nid: long\n---\n" + " ".join(f"Sentence number {i} is here." for i in range(60)) + "\n"
    corpus = engine.corpus([engine.parse(text.encode(), "long.md")])
    windows = [c for c in corpus.chunks if c.kind == "window"]
    assert len(windows) > 5 and max(len(c.text) for c in windows) <= 200
    trace = engine.ask(corpus, Request(question="sentence number 7", date=dt.date(2026, 1, 1)),
                       Settings(top_k=2, min_support=0.5))
    assert trace.index.chunk_window == 200 and trace.index.bm25_k1 == 1.5
    assert trace.settings.top_k == 2 and trace.settings.min_support == 0.5
    assert {"generator", "judge", "embedder", "tokenizer", "vector_store", "bm25"} <= set(trace.components)


def test_per_request_thresholds_reach_the_producer(engine, sample_corpus):
    strict = engine.ask(sample_corpus, LODGING, Settings(min_support=1.2))  # no sentence can cover 120 %
    assert strict.generator_called and strict.answer.reason_code == "insufficient_evidence"
    assert strict.abstention.stage == "generate" and "packed" in strict.explanation
    assert engine.ask(sample_corpus, LODGING).answer.status == "answered"


# --------------------------------------------------------------------------- the app uses the public API only


def test_ui_imports_only_the_public_pipeline_api():
    offenders = []
    for path in sorted((ROOT / "ui").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pipeline."):
                offenders.append(f"{path.name}: from {node.module}")
            if isinstance(node, ast.Import):
                offenders += [f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("pipeline.")]
    assert offenders == []


def test_the_chunks_panel_shows_the_indexed_chunks(logic_engine):
    from ui import panels

    engine = build_engine(EngineConfig(vector_store="memory", index=IndexSettings(chunk_window=150, chunk_overlap=10)),
                          embedder=HashedWordsTestEmbedder())
    text = "---\nid: notes\n---\n" + " ".join(f"Note {i} says something long enough." for i in range(20)) + "\n"
    document = engine.parse(text.encode(), "notes.md")
    corpus = engine.corpus([document])
    html = panels.chunks_html(corpus, [document])
    assert all(chunk.chunk_id in html for chunk in corpus.chunks)
    assert "at most 150 characters" in html
    titled = engine.parse(b"# Guide\n\n## Setup &amp; use\n\n" + text.split("---\n")[-1].encode(), "guide.md")
    shown = panels.chunks_html(engine.corpus([titled]), [titled])
    assert "under: Guide / Setup &amp;amp; use" in shown  # the sections word search reads it under, escaped


# --------------------------------------------------------------------------- explanations name the failed stage


def test_a_conflict_abstention_carries_both_sides(engine, conflicted):
    trace = engine.ask(conflicted, LODGING)
    sides = {(e.source_id, e.start_line, e.end_line) for e in trace.abstention.evidence}
    assert sides == {("travel-v2", 1, 3), ("travel-v2-800", 1, 3)}
    assert {e.text.rsplit(" ", 2)[-2] for e in trace.abstention.evidence} == {"750", "800"}


def test_the_explanation_says_which_gate_removed_everything(engine, sample_corpus):
    off_topic = engine.ask(sample_corpus, Request(question="Beijing lodging", date=dt.date(2026, 9, 14), topic="hr"))
    assert off_topic.abstention.stage == "retrieve"
    assert "none is eligible" in off_topic.explanation and "out of topic: travel is not hr" in off_topic.explanation
    from pipeline.engine.scenarios import SEED_SETTINGS  # the seed's gate (the product default gate is low)

    unrelated = engine.ask(sample_corpus, Request(question="parrot on board", date=dt.date(2026, 9, 14)), SEED_SETTINGS)
    assert "nothing passes the minimum score" in unrelated.explanation


def test_a_registration_lasts_for_its_block_only():
    with PARSERS.registered("psv-test", PsvTestParser):
        assert "psv-test" in PARSERS.names() and ".psv" in build_engine(
            EngineConfig(vector_store="memory"), embedder=HashedWordsTestEmbedder()).upload_suffixes
    assert "psv-test" not in PARSERS.names()
    assert ".psv" not in build_engine(EngineConfig(vector_store="memory"), embedder=HashedWordsTestEmbedder()).upload_suffixes


def test_the_command_line_and_the_page_offer_what_is_registered(test_parts, capsys):
    """A registered generator and judge are choices of `ask` and of the page, with nothing else to change."""
    from pipeline.cli import main
    from ui.state import generator_choices

    assert ("scripted-test", "scripted-test") in generator_choices()
    code = main(["ask", "--docs", str(CORPUS / "ferry-timetable-2025.md"), "--question", "When does the ferry leave?",
                 "--date", "2026-09-14", "--generator", "scripted-test", "--judge", "exact-quote-test"])
    answer = json.loads(capsys.readouterr().out)
    assert code == 0 and answer["producer"] == "scripted-test-generator" and answer["reason_code"] == "unsupported_claim"
    with pytest.raises(SystemExit):
        main(["ask", "--docs", str(CORPUS), "--question", "q", "--generator", "unregistered-test"])
    assert "invalid choice: 'unregistered-test'" in capsys.readouterr().err


def test_a_generator_declares_its_judge_and_budget_once():
    from pipeline import Settings, paired_judge, with_budget_of

    assert paired_judge("llm") == "learned" and paired_judge("extractive") == "containment"
    roomy = with_budget_of("llm", Settings())
    assert (roomy.window, roomy.reserve) == (max(Settings().window, 4000), 800)
    assert with_budget_of("extractive", Settings()) == Settings()
