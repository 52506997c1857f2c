"""Retrieve: every scored candidate, the selection, and a table comparison."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pipeline.core.contracts.base import Frozen
from pipeline.core.contracts.chunks import ChunkKind, Span


class Candidate(Frozen):
    chunk_id: str
    source_id: str
    version: str | None
    kind: ChunkKind
    text: str
    parent: Span
    start: int | None = None
    end: int | None = None
    bm25: float
    bm25_rank: int | None
    lexical_coverage: float
    dense: float | None
    dense_rank: int | None
    fused: float
    fused_rank: int
    passes_threshold: bool
    eligible: bool
    ineligible_reasons: tuple[str, ...] = ()
    selected: bool = False
    selected_as: Literal["hit", "sibling"] | None = None
    superseded_by: str | None = None
    sibling_of: str | None = None


class TableComparison(Frozen):
    """The row of a table holding the most (or least) of what a superlative question asks about, compared over every
    row of the table in its document (pipeline/retrieve/table_compare.py): the row retrieval packs first and the composer
    cites, with how it was chosen."""

    source_id: str
    page: int | None
    line: int = Field(description="the winning row's line")
    key: str = Field(description="the winning row's first cell")
    column: str = Field(description="the column compared")
    value: str = Field(description="the winning row's cell in that column, as written")
    highest: bool = Field(description="True: the most; False: the least")
    rows_compared: int
    runner_up: str = Field(description="the next row's key and cell")
    selected_by: tuple[str, ...] = Field((), description="question words every compared row holds (\"airfare\")")
    why: str = Field("", description="why this column")
    tied_with: tuple[str, ...] = Field((), description="other rows holding the same figure: no one row answers")

    def describe(self) -> str:
        most = "highest" if self.highest else "lowest"
        rows = f"{self.rows_compared} rows" + (f" holding {', '.join(map(repr, self.selected_by))}" if self.selected_by else "")
        where = f" (page {self.page})" if self.page is not None else ""
        if self.rows_compared == 1:
            return (f"table comparison: {self.key!r} is the only row holding {', '.join(map(repr, self.selected_by))} "
                    f"of the table{where} in {self.source_id}; its {self.column!r} is {self.value}; {self.why}")
        if self.tied_with:
            shown = ", ".join(map(repr, self.tied_with[:5])) + (f" and {len(self.tied_with) - 5} more" if len(self.tied_with) > 5 else "")
            return (f"table comparison: {self.key!r} and {shown} tie for the {most} {self.column!r} ({self.value}) of "
                    f"{rows} of the table{where} in {self.source_id}: no one row holds it; {self.why}")
        return (f"table comparison: {self.key!r} has the {most} {self.column!r} ({self.value}) of {rows} of the table"
                f"{where} in {self.source_id}; runner-up {self.runner_up}; {self.why}")


class Retrieval(Frozen):
    candidates: tuple[Candidate, ...]
    selected: tuple[Candidate, ...]
    eligibility: Literal["before_cutoff", "after_selection"]
    scored: int = 0
    dense_search: Literal["brute-force", "chroma-hnsw"] | None = Field(
        None, description="how dense scores were computed (None: no dense scoring); with chroma-hnsw only the "
        "returned chunks have a dense score")
    notes: tuple[str, ...] = ()
    dense_pending: tuple[tuple[str, str], ...] = Field((), description="(source id, status) of each readable document "
                                                       "whose vectors were still being computed: every document was "
                                                       "ranked by its words only")
    rankings: tuple[str, ...] = Field((), description="the rankings fused: bm25 and/or dense (dense is left out "
                                      "while a document's vectors are still being computed; notes say why)")
    term_weights: dict[str, float] = Field(default_factory=dict, description="the question terms' IDF weights")
    comparison: TableComparison | None = Field(None, description="for a superlative question, the table row compared "
                                               "to hold the most or least; its chunk is selected first")

    def pending_named(self, shown: int = 8) -> str:
        """"ferries: embedding 2 of 12; pets: waiting": the documents ranked by words only and their vectors' state,
        the first `shown` of them, as the retrieval note and the page name them."""
        named = "; ".join(f"{source}: {state}" for source, state in self.dense_pending[:shown])
        more = len(self.dense_pending) - shown
        return named + (f"; and {more} more" if more > 0 else "")
