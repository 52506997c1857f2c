"""Shared helpers for the evaluations: progress lines, timing, the request date, configs."""

from __future__ import annotations

import datetime as dt
import sys
import time
from dataclasses import dataclass

from pipeline.core.contracts import Request, Settings

# The public sets carry no validity dates; any fixed date makes runs reproducible.
REQUEST_DATE = dt.date(2026, 1, 1)
CONFIGS = ("ours", "papertrail")


def request(question: str) -> Request:
    return Request(question=question, date=REQUEST_DATE)


class Progress:
    """A one-line progress meter on stderr (only when stderr is a terminal or `force`)."""

    def __init__(self, label: str, total: int, force: bool = False):
        self.label, self.total, self.started = label, total, time.perf_counter()
        self.enabled = force or sys.stderr.isatty()
        self._last = 0.0

    def __call__(self, done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last < 1.0 and done < self.total):
            return
        self._last = now
        rate = done / max(now - self.started, 1e-9)
        print(f"\r{self.label}: {done}/{self.total} ({rate:.1f}/s)", end="\n" if done >= self.total else "",
              file=sys.stderr, flush=True)


@dataclass(frozen=True)
class PaperTrail:
    """Seed 002's setup ("papertrail"): dense top-5 only, no threshold, no eligibility filter,
    a citation counts as verified when the answer and the cited text share at least 3
    lowercase tokens of at least 5 characters."""

    settings: Settings = Settings(retrieval="dense", top_k=5, min_lexical=0.0, min_dense=-1.0,
                                  eligibility="after_selection")
    min_support: float = 0.0


def overlap_tokens(text: str) -> set[str]:
    """Seed 002's tokens: `w for w in text.lower().split() if len(w) >= 5`."""
    return {w for w in text.lower().split() if len(w) >= 5}


def word_overlap_verified(answer: str, cited: str, minimum: int = 3) -> bool:
    """Seed 002's rule: at least `minimum` shared lowercase tokens of at least 5 characters."""
    return len(overlap_tokens(answer) & overlap_tokens(cited)) >= minimum
