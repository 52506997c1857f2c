"""A question form: "What is the support e-mail?": a web address, an e-mail address or a phone number; only a unit
holding one may answer."""

from __future__ import annotations

from pipeline.lang.questions import asked_address, holds_address
from pipeline.question.forms.keep import Evidence, Refusal


class Address:
    name = "address"
    with_reader = True

    def found(self, question: str) -> str | None:
        return asked_address(question)

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        if (address := asked_address(question)) is None:
            return candidates
        article = "an" if address[0] in "aeiou" else "a"
        return [c for c in candidates if holds_address(address, c.unit.quote)] or Refusal(
            "address_missing", {"address": f"{article} {address}"})
