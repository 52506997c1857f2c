"""A question form: "What is the support e-mail?": a web address, an e-mail address or a phone number."""

from __future__ import annotations

from pipeline.lang.questions import asked_address


class Address:
    name = "address"

    def found(self, question: str) -> str | None:
        return asked_address(question)
