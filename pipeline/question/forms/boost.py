"""A question form's ranking of its own (the optional hook `BoostsRetrieval`): the chunks a form of question points at
("What is X?": those defining X) rank first in it, whatever their words' scores, fused by retrieval with BM25 and
dense like every other form's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from pipeline.index.corpus import Corpus


@dataclass(frozen=True)
class Boost:
    values: np.ndarray  # per scored row: 0, or how strongly the chunk is pointed at (1.0; a summary 1.5)
    votes: float = 1.0  # a value of 1.0 counts as this many first places in the fusion
    passes: bool = False  # a chunk pointed at passes the minimum score (its form makes it relevant)


@runtime_checkable
class BoostsRetrieval(Protocol):
    """A form that ranks the readable chunks (`rows`, corpus chunk indices) for a question it finds, or None."""

    def boost(self, corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None: ...
