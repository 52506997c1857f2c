"""SciFact as citation verification: (claim, cited abstract) pairs.

Each claim with each abstract it cites is an (answer sentence, citation) pair: SUPPORT pairs
should verify; CONTRADICT pairs and pairs without evidence should not. Our verifier runs
`Verifier.check` on a citation spanning the whole abstract (a document whose lines are the
title and then one sentence per line); seed 002's rule (≥ 3 shared lowercase tokens of ≥ 5
characters) runs on the same pairs. Claims are paraphrases, so our exact-copy checks will
refuse most of them: a low recall here is the price of a low false-verification rate.
"""

from __future__ import annotations

from pathlib import Path

from ..contracts import ProposedCitation
from ..tokenize import Tokenizer
from ..support import ContainmentJudge
from ..verify import Verifier
from . import data
from .common import request, word_overlap_verified
from .metrics import rounded


def pairs(claims_path: Path, corpus_path: Path, limit: int | None = None):
    abstracts = {a.doc_id: a for a in data.load_scifact_corpus(corpus_path)}
    out = []
    for claim in data.load_scifact_claims(claims_path):
        for doc_id in claim.cited_doc_ids:
            if doc_id in abstracts:
                out.append((claim, abstracts[doc_id], claim.evidence.get(doc_id, "NOEVIDENCE")))
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


def evaluate(claims_path: Path = data.SCIFACT_CLAIMS, corpus_path: Path = data.SCIFACT_CORPUS, limit: int | None = None,
             tokenizer: Tokenizer | None = None) -> dict:
    verifier = Verifier(ContainmentJudge(tokenizer or Tokenizer()))
    ours, overlap, labels, coverage, failed = [], [], [], [], {}
    documents_cache = {}
    for claim, abstract, label in pairs(claims_path, corpus_path, limit):
        if abstract.doc_id not in documents_cache:
            documents_cache[abstract.doc_id] = data.sentence_document(abstract)
        document = documents_cache[abstract.doc_id]
        lines = document.pages[0].lines
        citation = ProposedCitation(source_id=document.source_id, start_line=1, end_line=len(lines))
        check = verifier.check(citation, claim.claim, {document.source_id: document}, request(claim.claim))
        ours.append(check.verified)
        for name in check.failed_checks:
            failed[name] = failed.get(name, 0) + 1
        detail = next((c.detail for c in check.checks if c.name == "claim_supported"), "")
        coverage.append(_coverage(detail))
        span = " ".join(line.text for line in lines)
        overlap.append(word_overlap_verified(claim.claim, span))
        labels.append(label)
    figures = scores(ours, labels)
    figures["baseline_word_overlap"] = scores(overlap, labels)
    figures["pairs"] = {"total": len(labels), "support": labels.count("SUPPORT"),
                        "contradict": labels.count("CONTRADICT"), "no_evidence": labels.count("NOEVIDENCE")}
    figures["failed_checks"] = failed
    return {"verifier": rounded(figures), "_coverage": list(zip(coverage, labels))}


def _coverage(detail: str) -> float:
    """The claim_supported check's content-word coverage, read back from its detail."""
    if detail.startswith("contained"):
        return 1.0
    head = detail.split("%", 1)[0]
    try:
        return float(head) / 100
    except ValueError:
        return 0.0
