"""The contract suites: one class per Protocol of `pipeline.core.interfaces`, run by every implementation's test."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, ClassVar

import numpy as np
import pytest

from pipeline.core.citations import split_claims
from pipeline.core.contracts import (
    REASON_CODES,
    Context,
    Document,
    PackedLine,
    PackedSource,
    Proposal,
    Request,
    SupportVerdict,
)
from pipeline.core.errors import InputError
from pipeline.core.interfaces import (
    BudgetAware,
    CorpusBound,
    Deletes,
    Embedder,
    Generator,
    Parser,
    ReadsUnderTitle,
    SupportJudge,
    VectorStore,
)
from pipeline.ingest.document import sha256
from pipeline.pack import serialize

QUESTION = "How much is the lodging limit?"
LINES = ("Fictional Beijing lodging policy; amounts are per room per night.",
         "Rooms are booked through the travel office.",
         "The lodging limit is 750 yuan.")
SPAN = "\n".join(LINES)
CLAIM = "The lodging limit is 750 yuan."
UNRELATED = "Pets travel free on the upper deck of the ferry."


def sample_context(question: str = QUESTION, lines: tuple[str, ...] = LINES, source_id: str = "lodging-contract",
                   window: int = 6000, reserve: int = 200) -> Context:
    """A packed context of one source whose third line answers `QUESTION`, as the pack stage writes it."""
    request = Request(question=question, date=dt.date(2026, 9, 14))
    source = PackedSource(n=1, source_id=source_id, version="v1", page=None, start_line=1, end_line=len(lines),
                          support_span=False, dated="undated", sibling_group="",
                          lines=tuple(PackedLine(number=i + 1, text=text) for i, text in enumerate(lines)))
    text = serialize(question, request, [source])
    return Context(question=question, request_date=request.date, sources=(source,), text=text, length=len(text),
                   window=window, reserve=reserve, term_weights={})


class _Contract:
    registered_as: ClassVar[str] = ""  # the registration this implementation is (empty: a test's own part)


class GeneratorContract(_Contract):
    """Packed context → a Proposal: an answer whose every citation is marked, or an abstention with a reason."""

    @pytest.fixture
    def generator(self) -> Generator:
        raise NotImplementedError("provide the generator under test")

    @pytest.fixture
    def context(self) -> Context:
        return sample_context()

    def test_is_a_named_generator(self, generator):
        assert isinstance(generator, Generator)
        assert isinstance(generator.name, str) and generator.name.strip()

    def test_proposes_marked_citations_or_abstains_with_a_reason(self, generator, context):
        proposal = generator(context)
        assert isinstance(proposal, Proposal)
        if proposal.abstain_reason is not None:
            assert proposal.abstain_reason in REASON_CODES
            return
        assert (proposal.answer or "").strip() and proposal.citations
        cited = {index for claim in split_claims(proposal) for index in claim.citations}
        assert cited == set(range(len(proposal.citations)))  # every citation supports some sentence of the answer
        assert all(c.start_line <= c.end_line for c in proposal.citations)

    def test_answers_the_sample_question_from_its_source(self, generator, context):
        proposal = generator(context)
        assert proposal.abstain_reason is None, proposal.note
        assert {c.source_id for c in proposal.citations} == {context.sources[0].source_id}
        assert "750" in (proposal.answer or "")

    def test_the_same_context_gets_the_same_proposal(self, generator, context):
        first, second = generator(context), generator(context)
        fields = {"answer", "citations", "abstain_reason", "producer"}
        assert first.model_dump(include=fields) == second.model_dump(include=fields)

    @pytest.fixture
    def corpus(self) -> Any:
        return None  # a generator with the CorpusBound hook must be given a corpus to bind to

    def test_a_budget_it_declares_holds_at_least_the_sources(self, generator, context):
        if not isinstance(generator, BudgetAware):
            assert generator(context).abstain_reason != "context_budget"  # nothing but the sources to fit
            return
        assert generator.prompt_size(context) >= context.length and generator.min_output >= 0

    def test_bound_to_a_corpus_it_proposes_the_same(self, generator, context, corpus):
        if not isinstance(generator, CorpusBound):
            return
        assert corpus is not None, "a CorpusBound generator's test provides a corpus"
        bound = generator.for_corpus(corpus)
        assert bound.name == generator.name
        fields = {"answer", "citations", "abstain_reason"}
        assert bound(context).model_dump(include=fields) == generator(context).model_dump(include=fields)


class SupportJudgeContract(_Contract):
    """(claim, cited span) → a SupportVerdict: a verbatim claim is supported with its sentence, nothing else
    is supported by an unrelated span, and the sentences named lie inside the span."""

    @pytest.fixture
    def judge(self) -> SupportJudge:
        raise NotImplementedError("provide the judge under test")

    def test_is_a_named_support_judge(self, judge):
        assert isinstance(judge, SupportJudge)
        assert isinstance(judge.name, str) and judge.name.strip()

    def test_a_claim_the_span_states_verbatim_is_supported_with_its_sentence(self, judge):
        verdict = judge(CLAIM, SPAN)
        assert isinstance(verdict, SupportVerdict) and verdict.supported, verdict.detail
        assert verdict.sentences and any(CLAIM.rstrip(".") in SPAN[s:e] for s, e in verdict.sentences)

    def test_a_claim_without_text_is_not_supported(self, judge):
        assert not judge(" . ", SPAN).supported

    def test_an_unrelated_claim_is_not_supported(self, judge):
        verdict = judge(UNRELATED, SPAN)
        assert not verdict.supported and verdict.sentences == ()

    @pytest.fixture
    def corpus(self) -> Any:
        return None  # a judge with the CorpusBound hook must be given a corpus to bind to

    def test_bound_to_a_corpus_it_judges_the_same(self, judge, corpus):
        if not isinstance(judge, CorpusBound):
            return
        assert corpus is not None, "a CorpusBound judge's test provides a corpus"
        bound = judge.for_corpus(corpus)
        assert bound.name == judge.name
        for claim in (CLAIM, UNRELATED):
            assert bound(claim, SPAN).supported == judge(claim, SPAN).supported

    def test_a_title_it_reads_under_is_never_evidence_on_its_own(self, judge):
        reads_titles = isinstance(judge, ReadsUnderTitle)  # (not narrowed: the judge stays callable for mypy)
        if not reads_titles:
            return
        for claim in (CLAIM, UNRELATED):  # an empty title changes nothing
            assert judge.under_title(claim, SPAN, "").supported == judge(claim, SPAN).supported
        assert not judge.under_title(UNRELATED, SPAN, UNRELATED).supported  # the title alone says it
        assert not judge.under_title(UNRELATED, "The lodging limit is 750 yuan.", "Pets on the ferry").supported

    def test_the_sentences_it_names_lie_inside_the_span(self, judge):
        for claim in (CLAIM, "Fictional Beijing lodging policy; amounts are per room per night."):
            verdict = judge(claim, SPAN)
            assert all(0 <= start < end <= len(SPAN) for start, end in verdict.sentences)


class EmbedderContract(_Contract):
    """Texts → one finite row of `dim` numbers each, the same row for the same text, nearer for shared words."""

    @pytest.fixture
    def embedder(self) -> Embedder:
        raise NotImplementedError("provide the embedder under test")

    def test_is_a_named_embedder(self, embedder):
        assert isinstance(embedder, Embedder)
        assert embedder.name.strip() and isinstance(embedder.dim, int) and embedder.dim > 0

    def test_passages_and_queries_have_its_shape(self, embedder):
        passages = np.asarray(embedder.embed_passages([CLAIM, UNRELATED]))
        assert passages.shape == (2, embedder.dim) and np.isfinite(passages).all()
        assert np.asarray(embedder.embed_passages([])).shape == (0, embedder.dim)
        query = np.asarray(embedder.embed_query(QUESTION))
        assert query.shape == (embedder.dim,) and np.isfinite(query).all()

    def test_the_same_text_gets_the_same_vector(self, embedder):
        assert np.allclose(embedder.embed_passages([CLAIM]), embedder.embed_passages([CLAIM]), atol=1e-6)
        assert np.allclose(embedder.embed_query(QUESTION), embedder.embed_query(QUESTION), atol=1e-6)

    def test_a_question_is_nearer_the_passage_that_shares_its_words(self, embedder):
        def unit(v):
            v = np.asarray(v, dtype=np.float64)
            return v / max(np.linalg.norm(v), 1e-12)

        query = unit(embedder.embed_query(QUESTION))
        answer, other = (unit(row) for row in embedder.embed_passages([CLAIM, UNRELATED]))
        assert query @ answer > query @ other


class VectorStoreContract(_Contract):
    """Vectors by content key: what is stored is fetched back, unknown keys are simply absent."""

    dim: ClassVar[int] = 8

    @pytest.fixture
    def store(self) -> VectorStore:
        raise NotImplementedError("provide an empty store under test")

    def _vectors(self, count: int, seed: int = 0) -> np.ndarray:
        return np.random.default_rng(seed).normal(size=(count, self.dim)).astype(np.float32)

    def test_is_a_vector_store_with_a_location(self, store):
        assert isinstance(store, VectorStore)
        assert isinstance(store.location, str) and store.location.strip()

    def test_unknown_keys_are_absent(self, store):
        assert store.fetch(["contract-missing-1", "contract-missing-2"]) == {}

    def test_what_is_stored_is_fetched_back(self, store):
        keys, vectors = ["contract-a", "contract-b", "contract-c"], self._vectors(3)
        store.store(keys, vectors)
        found = store.fetch(["contract-c", "contract-a", "contract-missing"])
        assert set(found) == {"contract-a", "contract-c"}
        assert np.allclose(found["contract-a"], vectors[0], atol=1e-5)
        assert np.allclose(found["contract-c"], vectors[2], atol=1e-5)

    def test_storing_a_key_again_replaces_its_vector(self, store):
        store.store(["contract-r"], self._vectors(1, seed=1))
        replacement = self._vectors(1, seed=2)
        store.store(["contract-r"], replacement)
        assert np.allclose(store.fetch(["contract-r"])["contract-r"], replacement[0], atol=1e-5)

    def test_a_store_that_deletes_forgets_the_keys(self, store):
        store.store(["contract-d", "contract-e"], self._vectors(2, seed=3))
        if not isinstance(store, Deletes):
            assert set(store.fetch(["contract-d", "contract-e"])) == {"contract-d", "contract-e"}
            return
        store.delete(["contract-d"])
        assert set(store.fetch(["contract-d", "contract-e"])) == {"contract-e"}


_SUFFIX = re.compile(r"^\.[a-z0-9]+$")
_MEDIA_TYPE = re.compile(r"^[a-z]+/[a-z0-9.+-]+$")


class ParserContract(_Contract):
    """One file type's bytes → a Document of exact lines whose kind names the parser; anything else refused."""

    @pytest.fixture
    def parser(self) -> Parser:
        raise NotImplementedError("provide the parser under test")

    @pytest.fixture
    def sample(self) -> tuple[bytes, str]:
        raise NotImplementedError("provide (bytes, file name) of a file of the parser's type")

    def test_declares_its_type(self, parser):
        assert isinstance(parser, Parser)
        assert parser.name.strip() and parser.suffixes and all(_SUFFIX.match(s) for s in parser.suffixes)
        assert parser.media_types and all(_MEDIA_TYPE.match(m) for m in parser.media_types)
        assert isinstance(parser.front_matter, bool)

    def test_reads_its_sample_into_exact_lines(self, parser, sample):
        data, name = sample
        document = parser.parse(data, name)
        assert document.kind == parser.name and document.digest == sha256(data) and document.filename == name
        assert any(page.lines for page in document.pages)
        for page in document.pages:
            assert [line.number for line in page.lines] == list(range(1, len(page.lines) + 1))
            assert all(page.text[line.start:line.end] == line.text for line in page.lines)
        assert document.paged == all(page.number is not None for page in document.pages)

    def test_a_document_survives_the_store(self, parser, sample):
        document = parser.parse(*sample)
        assert Document.model_validate_json(document.model_dump_json()) == document

    def test_a_file_name_is_only_a_label(self, parser, sample):
        data, name = sample
        label = f"/no/such/folder/{name.rsplit('/', 1)[-1]}"
        assert parser.parse(data, label).filename == label

    def test_given_metadata_is_applied(self, parser, sample):
        document = parser.parse(*sample, metadata={"version": "contract-v9", "topic": "contracts"})
        assert (document.meta.version, document.meta.topic) == ("contract-v9", "contracts")

    def test_bytes_of_another_kind_are_refused_in_one_line(self, parser):
        with pytest.raises(InputError) as refused:
            parser.parse(b"\x00\x01\x02\x03 not a file of this type \xff\xfe", "broken" + parser.suffixes[0])
        assert "\n" not in str(refused.value)

    def test_sniffing_answers_yes_or_no(self, parser, sample):
        assert isinstance(parser.sniff(sample[0]), bool) and parser.sniff(b"") is False


def registered_contracts(*suites: type) -> dict[str, set[str]]:
    """Which registrations the subclasses of `suites` cover, by suite: {"ParserContract": {"text", "pdf"}, …}."""
    covered: dict[str, set[str]] = {}
    for suite in suites:
        stack: list[Any] = list(suite.__subclasses__())
        names: set[str] = set()
        while stack:
            cls = stack.pop()
            stack.extend(cls.__subclasses__())
            if cls.registered_as:
                names.add(cls.registered_as)
        covered[suite.__name__] = names
    return covered
