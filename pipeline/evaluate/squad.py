"""SQuAD 2.0 and CMRC 2018 (SQuAD format) as cited question answering.

Per article, its paragraphs are the documents (one text document of one line each) and
every question is asked through `engine.ask` with the default extractive producer. An
answerable question counts as correct when the answer is verified and the *citation's
quote* (the cited sentence, not the whole paragraph line) contains a gold answer; an
unanswerable one counts as correct when the system abstains.

Besides the configured run, the "ours" run also records, per question, what the composer
would do with its threshold at 0 on the same packed context (to draw the threshold's
precision–recall curve exactly: the composer threshold only gates the final step), and
what a never-abstaining run would answer (the top 3 fused candidates, no threshold,
no verification).
"""

from __future__ import annotations

import time
import unicodedata
from dataclasses import replace
from pathlib import Path

from pipeline.core.contracts import Settings
from pipeline.engine.config import build_engine
from pipeline.evaluate import data
from pipeline.evaluate.common import PaperTrail, Progress, request, word_overlap_verified
from pipeline.evaluate.metrics import rounded, share
from pipeline.generate.extractive.composer import LocalExtractive
from pipeline.generate.extractive.scoring import UNIT_CACHE, UNIT_CACHE_SIZE, UnitVectors
from pipeline.index.embed import stderr_progress
from pipeline.lang.tokenize import Tokenizer
from pipeline.pack import PackError, pack
from pipeline.verify.judges.containment import ContainmentJudge
from pipeline.verify.verifier import Verifier, claims_without_support, verify


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def contains_gold(quote: str, answers: tuple[str, ...]) -> bool:
    quote_n = norm(quote)
    return any(norm(a) and norm(a) in quote_n for a in answers)


def _score_of(proposal) -> float:
    return proposal.score if proposal is not None and proposal.score is not None else 0.0


def _covers_location(paragraph: str, quote: str, starts: tuple[int, ...]) -> bool:
    """Does an occurrence of the quote in the paragraph contain a gold answer's start offset?"""
    if not quote:
        return False
    position = paragraph.find(quote)
    while position >= 0:
        if any(position <= s < position + len(quote) for s in starts):
            return True
        position = paragraph.find(quote, position + 1)
    return False


def _unthresholded(corpus) -> LocalExtractive:
    """The composer without a threshold, its unit vectors kept in the corpus's cache (a unit the engine already
    scored for the question keeps its vector)."""
    return LocalExtractive(corpus.tokenizer, min_support=0.0,
                           vectors=UnitVectors(corpus.embedder, cache=corpus.cache(UNIT_CACHE, UNIT_CACHE_SIZE)))


def _paragraph_rank(trace, gold_sid: str) -> int | None:
    seen: list[str] = []
    for candidate in trace.retrieval.candidates:
        if candidate.source_id not in seen:
            seen.append(candidate.source_id)
    return seen.index(gold_sid) + 1 if gold_sid in seen else None


def _proposal_outcome(proposal, corpus, req, readable) -> bool:
    """Would our verifier keep this proposal (every claim keeps a verified citation)?"""
    if proposal.abstain_reason or not (proposal.answer or "").strip():
        return False
    checks = verify(proposal, readable, req, Verifier(ContainmentJudge()))
    unsupported, _ = claims_without_support(proposal, checks)
    return not unsupported


def _ungated(trace, corpus, req, readable, settings: Settings):
    """Never abstain: pack the top-3 fused candidates, compose with no threshold, trust it."""
    top = sorted(trace.retrieval.candidates, key=lambda c: c.fused_rank)[: settings.top_k]
    if not top:
        return None
    weights = trace.context.term_weights if trace.context is not None else None
    if not weights:
        lexical = corpus.lexical_index(corpus.readable_sources(req.groups))
        weights = {t: lexical.idf(t) for t in corpus.tokenizer.query_tokens(req.question)}
    try:
        context = pack(tuple(c.model_copy(update={"selected": True}) for c in top), readable, req,
                       settings.model_copy(update={"window": 10**6}), weights)
    except PackError:
        return None
    proposal = _unthresholded(corpus)(context)
    return proposal if proposal.citations else None


GRID_LEXICAL = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.01)
GRID_DENSE = (0.8, 0.85, 0.87, 0.88, 0.89, 0.9, 0.92, 1.01)


def _grid(trace, corpus, req, readable, settings: Settings, question) -> dict:
    """For each (min_lexical, min_dense): the composer's best score (threshold 0), whether our
    verifier keeps it and whether its quote holds a gold answer; None where nothing passes.
    Simulates `retrieve`'s selection (passing candidates in fused order, top_k) on the
    candidates of the real run; every distinct selection is packed and composed once."""
    ordered = sorted(trace.retrieval.candidates, key=lambda c: c.fused_rank)
    weights = trace.context.term_weights if trace.context is not None else None
    if not weights:
        lexical = corpus.lexical_index(corpus.readable_sources(req.groups))
        weights = {t: lexical.idf(t) for t in corpus.tokenizer.query_tokens(req.question)}
    memo: dict[tuple, tuple | None] = {}
    out = {}
    for low in GRID_LEXICAL:
        for dense in GRID_DENSE:
            chosen = tuple(c for c in ordered if c.lexical_coverage >= low or (c.dense or 0.0) >= dense)[: settings.top_k]
            key = tuple(c.chunk_id for c in chosen)
            if key not in memo:
                memo[key] = None
                if chosen:
                    try:
                        context = pack(tuple(c.model_copy(update={"selected": True}) for c in chosen), readable, req,
                                       settings, weights)
                        proposal = _unthresholded(corpus)(context)
                        if proposal.citations:
                            memo[key] = (
                                _score_of(proposal),
                                _proposal_outcome(proposal, corpus, req, readable),
                                not question.impossible and contains_gold(proposal.citations[0].quote or "", question.answers),
                            )
                    except PackError:
                        pass
            out[(low, dense)] = memo[key]
    return out


GRID_SUPPORTS = [round(0.05 * i, 2) for i in range(0, 23)]


def grid_table(rows: list[dict], supports=None) -> list[dict]:
    """Accuracy, answer precision and recall for every (min_lexical, min_dense, min_support)."""
    supports = supports or GRID_SUPPORTS
    answerable = sum(not r["impossible"] for r in rows) or 1
    table = []
    for low in GRID_LEXICAL:
        for dense in GRID_DENSE:
            for support in supports:
                good = answered = abstained_impossible = 0
                for r in rows:
                    cell = r["grid"][(low, dense)]
                    says = cell is not None and cell[0] >= support and cell[1]
                    answered += says
                    good += bool(says and cell[2])
                    abstained_impossible += bool(r["impossible"] and not says)
                table.append({"min_lexical": low, "min_dense": dense, "min_support": support,
                              "accuracy": (good + abstained_impossible) / len(rows) if rows else 0.0,
                              "precision": good / answered if answered else 1.0, "recall": good / answerable})
    return table


def pooled(articles: list[data.Article]) -> list[data.Article]:
    """All paragraphs of all articles as one collection (CMRC's articles hold one paragraph each)."""
    paragraphs, questions = [], []
    for article in articles:
        offset = len(paragraphs)
        paragraphs.extend(article.paragraphs)
        questions.extend(replace(q, paragraph=q.paragraph + offset) for q in article.questions)
    return [data.Article("all", tuple(paragraphs), tuple(questions))]


def _articles(path: Path, limit: int | None, pool: bool) -> list:
    articles = data.load_squad(path)
    if pool:
        return pooled(articles[:limit] if limit else articles)
    if limit:  # a slice: the first article's paragraphs up to the last one asked about, plus 3
        first = articles[0]
        last = max(q.paragraph for q in first.questions[:limit]) + 3
        return [data.Article(first.title, first.paragraphs[: last + 1],
                             tuple(q for q in first.questions if q.paragraph <= last))]
    return articles


def run(path: Path, config: str = "ours", limit: int | None = None, tokenizer: Tokenizer | None = None,
        label: str = "squad2", extras: bool = True, pool: bool = False) -> dict:
    """Ask every question (the first `limit` questions over the articles, in file order)."""
    articles = _articles(path, limit, pool)
    paper = PaperTrail()
    settings = paper.settings if config == "papertrail" else Settings()
    engine = build_engine(tokenizer=tokenizer) if tokenizer is not None else build_engine()
    total = sum(len(a.questions) for a in articles)
    if limit:
        total = min(total, limit)
    progress = Progress(f"{label} ({config})", total)
    rows, asked, started = [], 0, time.perf_counter()
    latencies = []
    for a_index, article in enumerate(articles):
        if asked >= total:
            break
        documents = [data.paragraph_document(a_index, p_index, text) for p_index, text in enumerate(article.paragraphs)]
        corpus = engine.corpus(documents, progress=stderr_progress)
        generator = LocalExtractive(corpus.tokenizer, min_support=paper.min_support) if config == "papertrail" else None
        for question in article.questions[: total - asked]:
            asked += 1
            req = request(question.question)
            began = time.perf_counter()
            trace = engine.ask(corpus, req, settings, generator=generator)
            latencies.append(time.perf_counter() - began)
            row = _row(trace, corpus, question, article, documents[question.paragraph].source_id, config)
            if config == "ours" and extras:
                row.update(_diagnostics(trace, corpus, req, settings, question))
            rows.append(row)
            progress(asked)
    return {"rows": rows, "seconds": time.perf_counter() - started, "latencies": latencies}


def _row(trace, corpus, question, article, gold_sid: str, config: str) -> dict:
    """Whether the question was answered, correctly, at the gold answer's place."""
    answered, quote, source = _papertrail_answer(trace, corpus) if config == "papertrail" else _answer(trace)
    correct = answered and not question.impossible and contains_gold(quote, question.answers)
    return {"impossible": question.impossible, "rank": _paragraph_rank(trace, gold_sid), "answered": answered,
            "correct_answer": correct,
            "location_hit": correct and source == gold_sid
            and _covers_location(article.paragraphs[question.paragraph], quote, question.answer_starts)}


def _answer(trace) -> tuple[bool, str, str | None]:
    answered = trace.answer.status == "answered"
    cited = trace.answer.citations[0] if answered and trace.answer.citations else None
    return answered, cited.quote if cited is not None else "", cited.source_id if cited is not None else None


def _papertrail_answer(trace, corpus) -> tuple[bool, str, str | None]:
    """Seed 002's setup: its proposal stands when its words overlap the cited span's."""
    proposal = trace.proposal
    cited = proposal.citations[0] if proposal is not None and proposal.citations else None
    if cited is None:
        return False, "", None
    page = corpus.documents[cited.source_id].pages[0]
    span = page.text[page.lines[cited.start_line - 1].start : page.lines[cited.end_line - 1].end]
    if not word_overlap_verified(proposal.answer or "", span):
        return False, "", None
    return True, cited.quote or "", cited.source_id


def _diagnostics(trace, corpus, req, settings: Settings, question) -> dict:
    """What the thresholds did: the best candidates' scores, the composer without a threshold, the threshold grid
    and the never-abstaining baseline."""
    readable = corpus.readable_documents(())
    candidates = trace.retrieval.candidates
    row = {"top_coverage": max((c.lexical_coverage for c in candidates), default=0.0),
           "top_dense": max((c.dense or 0.0 for c in candidates), default=0.0),
           "retrieval_abstained": not trace.retrieval.selected}
    zero = None
    if trace.context is not None and trace.context.sources and trace.generator_called:
        zero = _unthresholded(corpus)(trace.context)
    row["composer_score"] = _score_of(zero) if zero is not None else None
    row["zero_verified"] = bool(zero is not None and _proposal_outcome(zero, corpus, req, readable))
    row["zero_correct"] = bool(zero is not None and zero.citations and not question.impossible
                               and contains_gold(zero.citations[0].quote or "", question.answers))
    row["grid"] = _grid(trace, corpus, req, readable, settings, question)
    loose = _ungated(trace, corpus, req, readable, settings)
    row["never_abstain_correct"] = bool(loose is not None and not question.impossible
                                        and contains_gold(loose.citations[0].quote or "", question.answers))
    return row


def summarize(rows: list[dict]) -> dict:
    n = len(rows)
    answerable = [r for r in rows if not r["impossible"]]
    impossible = [r for r in rows if r["impossible"]]
    abstained = [r for r in rows if not r["answered"]]
    correct = sum(r["correct_answer"] for r in answerable) + sum(not r["answered"] for r in impossible)
    out = {
        "questions": n, "answerable": len(answerable), "unanswerable": len(impossible),
        "accuracy": share(correct, n),
        "answered_correct": share(sum(r["correct_answer"] for r in answerable), len(answerable)),
        "answered_wrong": share(sum(r["answered"] and not r["correct_answer"] for r in rows), n),
        "abstain_precision": share(sum(r["impossible"] for r in abstained), len(abstained)),
        "abstain_recall": share(sum(not r["answered"] for r in impossible), len(impossible)),
        "baseline_always_abstain": {"accuracy": share(len(impossible), n)},
        "paragraph_hit@1": share(sum(r["rank"] == 1 for r in answerable), len(answerable)),
    }
    if rows and "never_abstain_correct" in rows[0]:
        out["baseline_never_abstain"] = {
            "accuracy": share(sum(r["never_abstain_correct"] for r in answerable), n),
            "accuracy_upper_bound": share(len(answerable), n),
        }
    return out


def threshold_curve(rows: list[dict], thresholds=None) -> list[dict]:
    """The composer's min_support swept over the same runs (exact: it only gates the last step).

    At threshold t a question is answered iff retrieval selected evidence, the composer's best
    score ≥ t and our verifier keeps the answer. Precision: correct answers / answers; recall:
    correct answers / answerable questions; accuracy counts abstentions on unanswerable ones.
    """
    # Every 0.05, and every 0.01 where the shipped thresholds have lain.
    thresholds = thresholds or sorted({round(0.05 * i, 2) for i in range(21)} | {round(0.01 * i, 2) for i in range(8, 21)})
    answerable = sum(not r["impossible"] for r in rows) or 1
    curve = []
    for t in thresholds:
        answered = [r for r in rows if r.get("composer_score") is not None and r["composer_score"] >= t and r["zero_verified"]]
        good = sum(r["zero_correct"] for r in answered)
        abstained_impossible = sum(1 for r in rows if r["impossible"] and r not in answered)
        curve.append({
            "min_support": t,
            "precision": good / len(answered) if answered else 1.0,
            "recall": good / answerable,
            "accuracy": (good + abstained_impossible) / len(rows) if rows else 0.0,
        })
    return curve


def evaluate_squad2(path: Path = data.SQUAD2, config: str = "ours", limit: int | None = None) -> dict:
    result = run(path, config, limit, label="squad2")
    figures = summarize(result["rows"])
    figures["seconds"] = result["seconds"]
    out = {"squad2": rounded(figures), "_rows": result["rows"], "_latencies": result["latencies"]}
    if config == "ours":
        out["squad2"]["threshold_curve"] = rounded(threshold_curve(result["rows"]))
    return out


def summarize_cmrc(rows: list[dict]) -> dict:
    n = len(rows) or 1
    ranks_ = [r["rank"] for r in rows]
    return {
        "questions": len(rows),
        "answered_correct": sum(r["correct_answer"] for r in rows) / n,
        "location_hit": sum(r["location_hit"] for r in rows) / n,
        "answered": sum(r["answered"] for r in rows) / n,
        "paragraph_hit@1": sum(r == 1 for r in ranks_) / n,
        "paragraph_mrr": sum(1 / r for r in ranks_ if r) / n,
    }


def evaluate_cmrc(path: Path = data.CMRC, config: str = "ours", limit: int | None = None,
                  compare_tokenizers: bool = True) -> dict:
    result = run(path, config, limit, tokenizer=Tokenizer("jieba"), label="cmrc", extras=False, pool=True)
    figures = summarize_cmrc(result["rows"])
    figures["tokenizer"] = "jieba" if config == "ours" else "jieba (same corpus tokenizer)"
    figures["seconds"] = result["seconds"]
    if compare_tokenizers and config == "ours":
        bigram = run(path, config, limit, tokenizer=Tokenizer("bigram"), label="cmrc bigram", extras=False, pool=True)
        figures["tokenizers"] = {"jieba": summarize_cmrc(result["rows"]), "bigram": summarize_cmrc(bigram["rows"])}
    return {"cmrc": rounded(figures)}
