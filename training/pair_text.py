"""What the pair builders share: the content words of a text, how much of a query a unit repeats, a stable split
bucket, a file's hash.

Its own module so that training.pairs (the public sets) and training.product_pairs (questions on real documents)
both import it, and neither imports the other at import time.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset("""a an the of in on at to for by with from and or but is are was were be been being do does did
what which who whom whose when where why how that this these those it its as into than then there their they he she
his her we you i not no yes can could would should will may might must has have had about after before during""".split())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bucket(key: str, n: int) -> int:
    """A stable bucket in [0, n) for `key` (its SHA-256): the same split on every run and machine."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % n


def content_words(text: str) -> set[str]:
    words = {w.casefold() for w in WORD.findall(text)}
    return {w for w in words if w not in _STOP} | {text[i : i + 2] for i in range(len(text) - 1)
                                                   if "\u4e00" <= text[i] <= "\u9fff" and "\u4e00" <= text[i + 1] <= "\u9fff"}


def overlap(query: str, unit: str) -> float:
    q = content_words(query)
    return len(q & content_words(unit)) / (len(q) or 1)
