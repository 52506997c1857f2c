"""A new question form is one class plus one registration (issue 52): registered for the length of a test, it is read
from every question, recorded in the trace the CLI writes, and shown on the Answer panel, with no other change."""

from __future__ import annotations

import datetime as dt
import json

from pipeline import FORMS, FormFound, Request, read_question


class Politeness:
    """A test form: the question says please."""

    name = "politeness"

    def found(self, question: str) -> str | None:
        return "says please" if "please" in question.lower() else None


def test_a_registered_form_is_read_with_the_shipped_ones():
    assert "politeness" not in FORMS.names()
    question = "Which hotel is the most expensive, please?"
    shipped = read_question(question).forms
    assert "superlative" in {f.form for f in shipped}
    with FORMS.registered("politeness", Politeness):
        forms = read_question(question).forms
        assert forms == (*shipped, FormFound(form="politeness", evidence="says please"))  # read after the shipped ones
        assert all(f.form != "politeness" for f in read_question("Which hotel is the most expensive?").forms)
    assert read_question(question).forms == shipped


def test_it_reaches_the_trace_the_cli_writes(tmp_path, capsys):
    from pipeline.cli import main

    trace_file = tmp_path / "trace.json"
    with FORMS.registered("politeness", Politeness):
        code = main(["ask", "--docs", "sample_docs/corpus", "--question", "Please tell me the Beijing lodging limit",
                     "--date", "2026-09-14", "--trace", str(trace_file)])
    assert code == 0, capsys.readouterr().err
    reading = json.loads(trace_file.read_text(encoding="utf-8"))["reading"]
    assert {"form": "politeness", "evidence": "says please"} in reading["forms"]


def test_it_is_shown_on_the_answer_panel(engine, sample_corpus):
    from ui.panels import answer_html

    with FORMS.registered("politeness", Politeness):
        trace = engine.ask(sample_corpus, Request(question="Please tell me the Beijing lodging limit",
                                                  date=dt.date(2026, 9, 14)))
    shown = answer_html(trace)
    assert "politeness: says please" in shown[shown.index("id='question-reading'"):]


class Parrots:
    """A test form with a ranking of its own: a question about a parrot points retrieval at the chunks on pets."""

    name = "parrots"

    def found(self, question: str) -> str | None:
        return "a parrot" if "parrot" in question.lower() else None

    def boost(self, corpus, rows, question):
        import numpy as np

        from pipeline.question.forms import Boost

        if self.found(question) is None:
            return None
        return Boost(np.fromiter((corpus.chunks[row].source_id == "pets" for row in rows), dtype=np.float64,
                                 count=len(rows)), votes=3.0, passes=True)


def test_a_registered_forms_ranking_is_fused_by_retrieval(engine, sample_corpus):
    request = Request(question="Tell me about the parrot on the timetable", date=dt.date(2026, 9, 14))
    before = engine.ask(sample_corpus, request)
    with FORMS.registered("parrots", Parrots):
        after = engine.ask(sample_corpus, request)
    assert before.retrieval.selected[0].source_id != "pets"
    assert after.retrieval.selected[0].source_id == "pets"
    assert {"form": "parrots", "evidence": "a parrot"} in [f.model_dump() for f in after.reading.forms]


class Obligation:
    """A test form that checks the answerer's candidates: a question about a limit may be answered only by a unit that
    says what must be done, and the sample policies' limits say none."""

    name = "obligation"
    with_reader = True

    def found(self, question: str) -> str | None:
        return "a limit" if "limit" in question.lower() else None

    def keep(self, question, candidates, evidence):
        from pipeline.question.forms import Refusal

        if self.found(question) is None:
            return candidates
        return [c for c in candidates if " must " in c.unit.quote] or Refusal("no_obligation", {"asked": "a limit"})


def test_a_registered_forms_check_refuses_with_its_own_reason(engine, sample_corpus, monkeypatch):
    from pipeline.core.contracts import REASON_WORDS
    from tests.decisions import decision
    from ui.panels import answer_html

    # A form's own reason code comes with its words (the page renders them in plain words).
    monkeypatch.setitem(REASON_WORDS, "no_obligation", "the question asks about {asked} and no candidate {unit} says "
                                                       "what must be done")
    request = Request(question="What is the lodging limit in Beijing?", date=dt.date(2026, 9, 14))
    before = engine.ask(sample_corpus, request)
    with FORMS.registered("obligation", Obligation):
        after = engine.ask(sample_corpus, request)
        other = engine.ask(sample_corpus, Request(question="Who approves travel?", date=request.date))
    assert before.answer.status == "answered"
    assert after.answer.status == "abstained" and after.answer.reason_code == "insufficient_evidence"
    refused = decision(after.proposal, "no_obligation")
    assert (refused.by, refused.outcome, refused.facts) == ("obligation", "abstained", {"asked": "a limit"})
    assert "no candidate passage says what must be done" in answer_html(after)  # in the page's words
    assert "no_obligation" not in [d.reason for d in other.proposal.decisions]  # a question without the form passes


class FirstLine:
    """A test form that answers whole, before any unit is scored: "What does the first line say?" is answered by the
    first unit of the source retrieval ranked first."""

    name = "first line"

    def found(self, question: str) -> str | None:
        return "the first line" if "first line" in question.lower() else None

    def answer(self, context):
        from pipeline import Decision
        from pipeline.question.forms import WholeAnswer
        from pipeline.text.units import units_of

        if self.found(context.question) is None:
            return None
        first = units_of(context.sources[0])[0]
        return WholeAnswer([first], Decision(by=self.name, outcome="answered", reason="first_line", unit=first.marker()))


def test_a_registered_form_may_answer_whole(engine, sample_corpus, monkeypatch):
    from pipeline.core.contracts import REASON_WORDS
    from tests.decisions import decision

    monkeypatch.setitem(REASON_WORDS, "first_line", "the question asks for the first line: {unit_marker}")
    request = Request(question="What does the first line of the Beijing lodging policy say?", date=dt.date(2026, 9, 14))
    with FORMS.registered("first line", FirstLine):
        trace = engine.ask(sample_corpus, request)
    assert trace.answer.status == "answered" and trace.answer.citations[0].verified
    (citation,) = trace.answer.citations
    chosen = decision(trace.proposal, "first_line")
    assert chosen.by == "first line" and citation.start_line == 1
    assert trace.proposal.best_unit.startswith(chosen.unit) and chosen.unit.startswith(f"[{citation.source_id}:1")
    assert trace.proposal.note == f"the question asks for the first line: {chosen.unit}"
