"""SciFact (claim, cited abstract) pairs for the learned support judge, with a fixed split by claim.

The split is a hash of the claim id: 60 % of the claims train the judge, 40 % are held out and
are the only pairs its figures are measured on (`python -m pipeline eval verifier`). A claim's
pairs all fall on the same side, so no claim is both trained on and measured.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pipeline.evaluate import data
from pipeline.lang.sentences import sentence_units

HELD_OUT_FIFTHS = 2  # of 5 buckets


def held_out(claim_id: str) -> bool:
    bucket = int(hashlib.sha256(f"scifact-judge-split:{claim_id}".encode()).hexdigest()[:8], 16) % 5
    return bucket < HELD_OUT_FIFTHS


@dataclass(frozen=True)
class Pair:
    claim_id: str
    claim: str
    abstract: data.Abstract
    label: str  # SUPPORT, CONTRADICT or NOEVIDENCE
    rationale: tuple[int, ...]  # 0-based indices into abstract.sentences (the title is not one)


def load_pairs(claims_path: Path = data.SCIFACT_CLAIMS, corpus_path: Path = data.SCIFACT_CORPUS,
               split: str = "held_out") -> list[Pair]:
    """Pairs of one side of the split: "train", "held_out" or "all"."""
    if split not in ("train", "held_out", "all"):
        raise ValueError(f"split must be train, held_out or all, not {split!r}")
    abstracts = {a.doc_id: a for a in data.load_scifact_corpus(corpus_path)}
    pairs = []
    for claim in data.load_scifact_claims(claims_path):
        if split != "all" and held_out(claim.id) != (split == "held_out"):
            continue
        for doc_id in claim.cited_doc_ids:
            if doc_id in abstracts:
                pairs.append(Pair(claim.id, claim.claim, abstracts[doc_id], claim.evidence.get(doc_id, "NOEVIDENCE"),
                                  claim.rationales.get(doc_id, ())))
    return pairs


def judge_units(pair: Pair) -> tuple[list[str], list[int]]:
    """The sentences the judge sees when this abstract is cited, and the SciFact sentence each comes from (-1: title).

    At run time the judge splits a cited span (one line per SciFact sentence, title first:
    data.sentence_document) with lang.sentences.sentence_units, which cuts a few SciFact
    "sentences" further ("… 4 y. Gastric bypass …"); training on the same pieces keeps the
    features (positions, neighbours) the same as those it is measured and used on.
    """
    text = "\n".join([pair.abstract.title or "(untitled)", *pair.abstract.sentences])
    units = sentence_units(text)
    return [text[start:end] for start, end in units], [text.count("\n", 0, start) - 1 for start, _ in units]
