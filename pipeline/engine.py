"""The request's journey as one explicit pipeline (seed 000, Table 45.2).

retrieve → pack → generate → verify, each a stage that takes data and returns data; this
module only wires them, times them and records everything in a Trace. Parsing, chunking,
metadata and indexing happen when a Corpus is built (see `index.build_corpus`).
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from .contracts import (
    Answer, Citation, CitationCheck, DocumentRecord, Proposal, Request, Settings, Trace,
)
from .generate import Generator, LocalExtractive, chunk_vector_lookup
from .index import Corpus
from .pack import PackError, pack
from .retrieve import retrieve
from .verify import Verifier, abstention_for, claims_without_support, verify

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
}

NO_ANSWERING_UNIT = ("Eligible sources were found and packed, but no sentence, list item or table row in them answers "
                     "the question with enough confidence (best candidate and its score below).")


def document_records(corpus: Corpus, request: Request) -> list[DocumentRecord]:
    """Every readable document with its digest; restricted ones are left out entirely."""
    key = ("records", corpus.readable_sources(request.groups))
    if key not in corpus.memo:
        corpus.memo[key] = _records(corpus.readable_documents(request.groups).values())
    return corpus.memo[key]


def _records(documents) -> list[DocumentRecord]:
    records = []
    for document in documents:
        meta = document.meta
        records.append(DocumentRecord(
            source_id=meta.source_id, version=meta.version, filename=document.filename.rsplit("/", 1)[-1],
            kind=document.kind, digest=document.digest, valid_from=meta.valid_from, valid_to=meta.valid_to,
            updated=meta.updated, topic=meta.topic, authority=meta.authority, license=meta.license,
            uri=meta.uri, restricted=meta.access is not None,
        ))
    return records


def _citation(check: CitationCheck, corpus: Corpus) -> Citation:
    cited, document = check.citation, corpus.documents.get(check.citation.source_id)
    quote = cited.quote
    if quote is None and document is not None and "lines_exist" not in check.failed_checks and "source_exists" not in check.failed_checks:
        page = document.page(cited.page) if document.kind == "pdf" else document.pages[0]
        quote = page.text[page.lines[cited.start_line - 1].start : page.lines[cited.end_line - 1].end]
    return Citation(
        source_id=cited.source_id,
        version=document.meta.version if document is not None and "source_exists" not in check.failed_checks else None,
        page=cited.page, start_line=cited.start_line, end_line=cited.end_line, quote=quote or "",
        verified=check.verified, failed_checks=check.failed_checks,
    )


def _abstain(reason: str, producer: str, dropped: list[Citation] | None = None) -> Answer:
    return Answer(status="abstained", answer=None, reason_code=reason, producer=producer, dropped_citations=dropped or [])


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
) -> Trace:
    """Answer `request` from `corpus`, or abstain with a reason; the Trace holds every step.

    `proposal` replaces the generator with a fixed answer (written by a person or another
    model); it goes through exactly the same checks.
    """
    settings = settings or Settings()
    generator = generator or LocalExtractive(
        corpus.tokenizer, embedder=corpus.embedder, known_vectors=chunk_vector_lookup(corpus))
    producer = proposal.producer if proposal is not None else getattr(generator, "name", type(generator).__name__)
    clock = _Clock()
    readable = corpus.readable_documents(request.groups)
    trace = Trace(
        request=request, settings=settings, corpus_digest=corpus.readable_digest(request.groups), documents=document_records(corpus, request),
        tokenizer=corpus.tokenizer.name, embedder=corpus.embedder.name,
        answer=_abstain("insufficient_evidence", producer),
    )
    with clock.stage("retrieve"):
        trace.retrieval, term_weights = retrieve(corpus, request, settings)
    pack_failure = None
    if trace.retrieval.selected:
        with clock.stage("pack"):
            try:
                trace.context = pack(trace.retrieval.selected, readable, request, settings, term_weights)
            except PackError as failure:
                pack_failure, trace.context = failure, failure.context
    if proposal is None:
        if not trace.retrieval.selected:
            trace.explanation = EXPLANATIONS["insufficient_evidence"] + " The generator was not called."
        elif pack_failure is not None:
            trace.answer = _abstain(pack_failure.reason_code, producer)
            trace.explanation = f"{EXPLANATIONS[pack_failure.reason_code]} ({pack_failure.detail}) The generator was not called."
        else:
            with clock.stage("generate"):
                proposal = generator(trace.context)
                trace.generator_called = True
    if proposal is not None:
        trace.proposal = proposal
        with clock.stage("verify"):
            trace.answer, trace.checks, trace.explanation = _decide(proposal, readable, request, corpus, producer)
    trace.timings_ms = clock.timings
    return trace


def _decide(proposal: Proposal, readable, request: Request, corpus: Corpus, producer: str):
    """Turn a checked proposal into the public answer object and its explanation."""
    if proposal.abstain_reason or not (proposal.answer or "").strip():
        reason = proposal.abstain_reason or "insufficient_evidence"
        note = f" ({proposal.note})" if proposal.note else ""
        if reason == "insufficient_evidence" and proposal.score is not None:
            # Retrieval and packing worked; the composer's calibrated scorer found no answer.
            return _abstain(reason, producer), [], NO_ANSWERING_UNIT + note
        return _abstain(reason, producer), [], EXPLANATIONS[reason] + note
    checks = verify(proposal, readable, request, Verifier(corpus.tokenizer))
    citations = [_citation(check, corpus) for check in checks]
    verified = [c for c in citations if c.verified]
    dropped = [c for c in citations if not c.verified]
    unsupported, failures = claims_without_support(proposal, checks)
    if unsupported:
        reason = abstention_for(failures) if failures else "unsupported_claim"
        details = "; ".join(
            f"{check.citation.source_id}:{check.citation.start_line}-{check.citation.end_line} failed "
            + ", ".join(check.failed_checks)
            for check in failures
        ) or f"no citation for: {unsupported[0]!r}"
        return _abstain(reason, producer, dropped), checks, f"{EXPLANATIONS[reason]} ({details})"
    answer = Answer(
        status="answered", answer=proposal.answer, citations=verified, dropped_citations=dropped, producer=producer,
    )
    explanation = "Every claim keeps at least one citation verified against the source text."
    if dropped:
        explanation += f" {len(dropped)} citation(s) failed their checks and were dropped."
    return answer, checks, explanation
