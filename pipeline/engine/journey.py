"""The request's journey as one explicit pipeline (seed 000, Table 45.2).

retrieve → pack → generate → conflict → verify, each a stage that takes data and returns data;
this module only wires them, times them and records everything in a Trace. Parsing, chunking,
metadata and indexing happen when a Corpus is built (`Engine.corpus`, `index.build_corpus`).
Every refusal, whichever stage makes it, is one `Abstention` and leaves through `_abstained`.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from pipeline.core.citations import Claim, cited_text, marker, split_claims, strip_markers, with_marker_citations
from pipeline.core.contracts import (
    CHECK_NAMES,
    Abstention,
    Answer,
    Citation,
    CitationCheck,
    ClaimVerdict,
    Context,
    Proposal,
    Request,
    Settings,
    Trace,
)
from pipeline.core.contracts.verdicts import UNCITED
from pipeline.core.interfaces import BudgetAware, CorpusBound, Generator, ModelScored, SupportJudge
from pipeline.core.registry import GENERATORS, JUDGES
from pipeline.core.settings import EngineConfig
from pipeline.engine import parts as _shipped  # noqa: F401 (registers the parts the defaults name)
from pipeline.index.corpus import Corpus
from pipeline.pack import PackError, budget_shortfall, pack
from pipeline.question.reading import read_question
from pipeline.retrieve.selection import retrieve, why_nothing_selected
from pipeline.verify.conflicts import ConflictCheck
from pipeline.verify.verifier import Verifier, abstention_for, verify

EXPLANATIONS = {
    "insufficient_evidence": "No eligible source passes the relevance threshold for this question, request date and "
    "topic, so there is nothing an answer could be built on.",
    "conflicting_evidence": "Sources with the same topic, authority and start date disagree; ranking cannot decide "
    "which policy holds, so the question needs an authoritative clarification.",
    "incomplete_source": "The evidence lacks part of its annotated support span: the number would lose the unit, "
    "place or date that qualifies it.",
    "context_budget": "The complete evidence does not fit in the context window after the reserve; it is not "
    "truncated, because a shortened source could drop the qualifying lines.",
    "unsupported_claim": "A cited source does not say what the answer says (a sentence or a number is not in the "
    "cited lines), so the answer cannot be shown as supported.",
    "ineligible_citation": "The answer cites a source that is unknown, unreadable, expired or off topic for this "
    "request; correct words do not repair a wrong source.",
    "generator_unavailable": "The answer generator could not produce a usable answer (it was unreachable, refused, "
    "timed out, or its output was cut short or unreadable), so nothing is shown as an answer.",
}
# The rankings each retrieval mode fuses (recorded in the trace: Retrieval.rankings).
RANKINGS = {"bm25": ("bm25",), "dense": ("dense",), "hybrid": ("bm25", "dense")}
# What a stage's `insufficient_evidence` means, so the explanation names the stage that failed.
_STAGE_EXPLANATIONS = {
    ("generate", "insufficient_evidence"): "Eligible sources were found and packed, but the producer found no "
    "passage in them that answers the question.",
}


def explain(abstention: Abstention, generator_called: bool) -> str:
    text = _STAGE_EXPLANATIONS.get((abstention.stage, abstention.reason_code)) or EXPLANATIONS[abstention.reason_code]
    if abstention.detail:
        text += f" ({abstention.detail})"
    if not generator_called and abstention.stage in {"retrieve", "pack"}:
        text += " The generator was not called."
    return text


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str):
        started = time.perf_counter()
        yield
        self.timings[name] = round((time.perf_counter() - started) * 1000, 3)


def ask(
    corpus: Corpus,
    request: Request,
    settings: Settings | None = None,
    generator: Generator | None = None,
    proposal: Proposal | None = None,
    judge: SupportJudge | None = None,
    components: dict[str, str] | None = None,
) -> Trace:
    """Answer `request` from `corpus`, or abstain with a reason; the Trace holds every step.

    The parts are the engine's (`Engine.ask`); a part not given is the registered one the default
    configuration names, built over the corpus's tokenizer and embedder. `proposal` replaces the generator
    with a fixed answer (written by a person or another model); it goes through exactly the same conflict
    and citation checks.
    """
    settings = settings or Settings()
    if generator is None or judge is None:
        config = EngineConfig(settings=settings)
        parts = {"config": config, "tokenizer": corpus.tokenizer, "embedder": corpus.embedder}
        generator = generator or GENERATORS.create(config.generator, **parts)
        judge = judge or JUDGES.create(config.judge, **parts)
    requested = settings.retrieval
    pending, settings = _pending_dense(corpus, request, settings)
    # A part that keeps derived text binds to this corpus: its caches go when the corpus goes.
    generator = generator.for_corpus(corpus) if isinstance(generator, CorpusBound) else generator
    judge = judge.for_corpus(corpus) if isinstance(judge, CorpusBound) else judge
    generator_name = getattr(generator, "name", None) or getattr(generator, "__name__", type(generator).__name__)
    producer = proposal.producer if proposal is not None else generator_name
    view = corpus.view(request.groups)
    reading = read_question(request.question)
    trace = Trace(
        request=request, reading=reading, settings=settings, index=corpus.index_settings,
        components={**(components or {}), "generator": generator_name, "judge": judge.name,
                    "tokenizer": corpus.tokenizer.name, "embedder": corpus.embedder.name,
                    **_scoring_models(generator, judge)},
        corpus_digest=view.digest, documents=list(view.records),
        tokenizer=corpus.tokenizer.name, embedder=corpus.embedder.name,
        answer=Answer(status="abstained", answer=None, reason_code="insufficient_evidence", producer=producer),
    )
    clock = _Clock()
    # The stages read the question as the reading took it (in sentence case when typed in capitals); the trace keeps
    # the request as asked.
    asked = request.model_copy(update={"question": reading.as_read}) if reading.as_read else request
    abstention = _retrieve_and_pack(corpus, asked, settings, trace, clock)
    if pending:
        retrieval = trace.retrieval.model_copy(update={"dense_pending": pending})
        note = f"{WORDS_ONLY_NOTE} ({retrieval.pending_named()}); requested {requested}, every document ranked by BM25 only"
        trace.retrieval = retrieval.model_copy(update={"notes": (note, *retrieval.notes)})
    if proposal is None and abstention is None:
        abstention = over_budget(generator, trace.context)
        if abstention is None:
            with clock.stage("generate"):
                proposal = generator(trace.context)
            trace.generator_called = True
    if proposal is not None:  # a given proposal is checked even when retrieval found nothing
        trace.proposal = proposal
        with clock.stage("verify"):
            abstention = _accept(proposal, view.documents, request, Verifier(judge), ConflictCheck(corpus.tokenizer),
                                 trace, producer)
    if abstention is not None:
        _abstained(trace, abstention, producer)
    trace.timings_ms = clock.timings
    return trace


WORDS_ONLY_NOTE = "dense ranking unavailable while vectors are computed"  # how the retrieval note says it


def _pending_dense(corpus: Corpus, request: Request,
                   settings: Settings) -> tuple[tuple[tuple[str, str], ...], Settings]:
    """The (source id, status) of each readable document whose vectors are still being computed
    (pipeline.index.background), and the settings to rank with: BM25 alone for every document until they are in. A
    fusion where only some documents have a meaning rank lets their nearest chunks in ahead of the pending ones (a
    sample on the same topic packed beside a new upload); ranked by BM25 alone, the answers were the same and the
    samples stayed out of the context."""
    if not corpus.dense_missing or settings.retrieval == "bm25":
        return (), settings
    readable = corpus.readable_sources(request.groups)
    status = corpus.dense_status or (lambda sid: "embedding")
    pending = tuple((sid, status(sid)) for sid in corpus.source_order if sid in corpus.dense_missing and sid in readable)
    return pending, settings.model_copy(update={"retrieval": "bm25"}) if pending else settings


def _scoring_models(generator: Generator, judge: SupportJudge) -> dict[str, str]:
    """The models behind the generator's and the judge's scores, by role (`generator.scorer`, `judge.reader`, …)."""
    out: dict[str, str] = {}
    for role, part in (("generator", generator), ("judge", judge)):
        if isinstance(part, ModelScored):
            out.update({f"{role}.{name}": model for name, model in part.models.items()})
    return out


def over_budget(generator: Generator, context: Context) -> Abstention | None:
    """`context_budget` before any call when the generator's whole prompt plus the reserved output exceed the window.

    Pack already fits the sources into window − reserve; a generator whose prompt holds more (a language
    model's instructions and chat template) says how big it is and the least output it needs (the
    `BudgetAware` hook). Deciding here, not inside the generator, keeps `generator_called` false and the
    explanation true ("the generator was not called").
    """
    budgeted = isinstance(generator, BudgetAware)
    size = generator.prompt_size(context) if budgeted else context.length
    detail = budget_shortfall(context, size, generator.min_output if budgeted else 0)
    if detail is None:
        return None
    return Abstention(reason_code="context_budget", stage="pack", detail=detail)


def _retrieve_and_pack(corpus: Corpus, request: Request, settings: Settings, trace: Trace,
                       clock: _Clock) -> Abstention | None:
    with clock.stage("retrieve"):
        trace.retrieval = retrieve(corpus, request, settings)
    trace.retrieval = trace.retrieval.model_copy(update={"rankings": RANKINGS[settings.retrieval]})
    if not trace.retrieval.selected:
        return Abstention(reason_code="insufficient_evidence", stage="retrieve",
                          detail=why_nothing_selected(trace.retrieval, settings))
    with clock.stage("pack"):
        try:
            trace.context = pack(trace.retrieval.selected, corpus.readable_documents(request.groups), request,
                                 settings, trace.retrieval.term_weights, trace.retrieval.comparison
                                 ).model_copy(update={"reading": trace.reading})
        except PackError as failure:
            trace.context = failure.context
            return failure.abstention
    return None


def _citation(check: CitationCheck, documents) -> Citation:
    cited = check.citation
    document = documents.get(cited.source_id)
    quote = cited.quote if cited.quote is not None else cited_text(document, cited)
    return Citation(
        source_id=cited.source_id, version=document.meta.version if document is not None else None,
        page=cited.page, start_line=cited.start_line, end_line=cited.end_line, quote=quote or "",
        verified=check.verified, failed_checks=check.failed_checks, support=list(check.support),
    )


def _accept(proposal: Proposal, documents, request: Request, verifier: Verifier, conflicts: ConflictCheck,
            trace: Trace, producer: str) -> Abstention | None:
    """Check each claim's citations, then the cited sources' siblings; set the answer, or return why not.

    A claim stands when one of its citations verifies. With `on_unsupported` "drop" (the default) the
    answer keeps the verified claims and lists the dropped ones; with "abstain", or when no claim
    stands, the request abstains with the reason of the failed checks.
    """
    if proposal.abstain_reason or not (proposal.answer or "").strip():
        return Abstention(reason_code=proposal.abstain_reason or "insufficient_evidence", stage="generate",
                          detail=proposal.note or "")
    proposal = with_marker_citations(proposal)  # a marker the citation list omits is checked, not lost
    claims = split_claims(proposal)
    trace.checks = verify(proposal, documents, request, verifier, claims)
    verdicts, kept, failures = _claim_verdicts(claims, trace.checks, documents)
    dropped = [c for verdict in verdicts for c in verdict.citations if not c.verified]
    trace.answer = Answer(status="abstained", answer=None, dropped_citations=dropped, reason_code="unsupported_claim",
                          producer=producer, claims=verdicts)
    unsupported = [v for v in verdicts if v.status == "dropped"]
    if not kept or (unsupported and trace.settings.on_unsupported == "abstain"):
        return _unsupported(failures, unsupported)
    conflict = conflicts(proposal, kept, documents, request)
    if conflict is not None:
        trace.answer = trace.answer.model_copy(update={"dropped_citations": [], "claims": []})
        return conflict
    _answered(trace, verdicts, dropped, unsupported, producer)
    return None


def _unsupported(failures: list[CitationCheck], unsupported: list[ClaimVerdict]) -> Abstention:
    """The abstention of an answer whose claims do not stand: the reason the failed checks justify, and which."""
    details = "; ".join(
        f"{check.citation.source_id}:{check.citation.start_line}-{check.citation.end_line} failed "
        + ", ".join(check.failed_checks)
        for check in failures
    ) or (f"no citation for: {unsupported[0].text!r}" if unsupported else "the answer has no cited claim")
    return Abstention(reason_code=abstention_for(failures) if failures else "unsupported_claim", stage="verify",
                      detail=details)


def _answered(trace: Trace, verdicts: list[ClaimVerdict], dropped: list[Citation], unsupported: list[ClaimVerdict],
              producer: str) -> None:
    """The answer of the claims that stand, with what was dropped said in the explanation."""
    verified = [c for verdict in verdicts for c in verdict.citations if c.verified]
    text = " ".join(_claim_text(v) for v in verdicts if v.status == "verified")
    trace.answer = Answer(status="answered", answer=text, citations=verified, dropped_citations=dropped,
                          producer=producer, claims=verdicts, partial=bool(unsupported))
    trace.explanation = "Every claim shown keeps at least one citation verified against the source text."
    if unsupported:
        trace.explanation += (f" {len(unsupported)} claim(s) without a verified citation were dropped from the answer: "
                              + "; ".join(repr(v.text) for v in unsupported))
    elif dropped:
        trace.explanation += f" {len(dropped)} citation(s) failed their checks and were dropped."


def _claim_verdicts(claims: list[Claim], checks: list[CitationCheck], documents):
    """Per claim: its citations with their verdicts; the claims that stand; the failed checks of those that don't."""
    verdicts, kept, failures, cursor = [], [], [], 0
    for claim in claims:
        own = checks[cursor : cursor + len(claim.citations)]
        cursor += len(claim.citations)
        stands = any(check.verified for check in own)
        verdicts.append(ClaimVerdict(text=strip_markers(claim.text), status="verified" if stands else "dropped",
                                     citations=[_citation(check, documents) for check in own],
                                     failed_checks=[] if stands else _claim_failures(own)))
        if stands:
            kept.append(Claim(claim.text, tuple(i for i, check in zip(claim.citations, own) if check.verified)))
        else:
            failures.extend(own)
    return verdicts, kept, failures


def _claim_failures(checks: list[CitationCheck]) -> list[str]:
    """Why a claim was dropped: every check one of its citations failed, in the checks' order; `cited` if it has none."""
    if not checks:
        return [UNCITED]
    failed = {name for check in checks for name in check.failed_checks}
    return [name for name in CHECK_NAMES if name in failed]


def _claim_text(verdict: ClaimVerdict) -> str:
    markers = " ".join(marker(c.source_id, c.page, c.start_line, c.end_line) for c in verdict.citations if c.verified)
    return f"{verdict.text} {markers}"


def _abstained(trace: Trace, abstention: Abstention, producer: str) -> None:
    """The one way out for every refusal: the answer object, the abstention record and its explanation."""
    checked = abstention.stage == "verify"  # the claims and dropped citations stay visible
    trace.answer = Answer(status="abstained", answer=None, reason_code=abstention.reason_code, producer=producer,
                          dropped_citations=trace.answer.dropped_citations if checked else [],
                          claims=trace.answer.claims if checked else [])
    trace.abstention = abstention
    trace.explanation = explain(abstention, trace.generator_called)
