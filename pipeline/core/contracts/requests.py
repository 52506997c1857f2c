"""The request: a question with its explicit date, topic and access groups."""

from __future__ import annotations

import datetime as dt

from pipeline.core.contracts.base import Frozen


class Request(Frozen):
    question: str
    date: dt.date
    date_given: bool = True
    topic: str | None = None
    groups: tuple[str, ...] = ()
