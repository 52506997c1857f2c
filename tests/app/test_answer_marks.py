"""The Answer panel's two marks, apart: "the quote is in the source" (the citation check) and "this answers your
question" (the answerer's confidence with its reason), in plain words with the technical names in tooltips, and
every document-derived string escaped. Real parsing, index and checks (the deterministic test embedder)."""

from __future__ import annotations

import datetime as dt

from pipeline import Proposal, ProposedCitation, Request

from ui.panels import answer_html, marks_html
from ui.verdict import answers_mark, quote_mark, read

POLICY = "---\nid: harbour\n---\nHarbour rules.\nThe harbour pass costs 42 euros per month.\nDogs stay on a lead.\n"
REQUEST = Request(question="How much is the harbour pass?", date=dt.date(2026, 9, 14))


def _trace(logic_engine, make_corpus, proposal: Proposal):
    return logic_engine.ask(make_corpus(("harbour.md", POLICY)), REQUEST, proposal=proposal)


def _citing(answer: str, **fields) -> Proposal:
    return Proposal(answer=answer, citations=[ProposedCitation(source_id="harbour", start_line=2, end_line=2)],
                    **fields)


def test_a_verified_quote_does_not_claim_to_answer_the_question(logic_engine, make_corpus):
    trace = _trace(logic_engine, make_corpus, _citing("The harbour pass costs 42 euros per month. [harbour:2]"))
    assert trace.answer.status == "answered"
    assert quote_mark(trace).kind == "ok"
    assert answers_mark(trace).kind == "muted"  # a person's proposal: nobody measured that it answers
    shown = marks_html(read(trace))
    assert "Quote is in the source" in shown and "Answers your question" in shown
    assert "title='citation check" in shown and "title='answerer confidence" in shown


def test_a_dropped_citation_names_the_failed_check_in_words_and_by_name(logic_engine, make_corpus):
    trace = _trace(logic_engine, make_corpus, _citing("The harbour pass costs 99 euros per month. [harbour:2]"))
    kind, words = quote_mark(trace).kind, quote_mark(trace).text
    assert kind == "no"
    assert "not: the numbers in the sentence are in those lines" in words and "title='numbers_match'" in words


def test_a_scorer_below_its_threshold_says_unlikely_with_both_numbers(logic_engine, make_corpus):
    proposal = Proposal(producer="extractive", abstain_reason="insufficient_evidence", score=0.08, threshold=0.1,
                        best_unit="<b>Dogs</b> stay on a lead.", note="the best unit <script>x</script> scores 0.08")
    trace = _trace(logic_engine, make_corpus, proposal)
    kind, words = answers_mark(trace).kind, answers_mark(trace).text
    assert kind == "no" and "0.08" in words and "0.10" in words and "unlikely" in words
    shown = answer_html(trace)
    assert "<script>" not in shown and "<b>Dogs</b>" not in shown and "&lt;b&gt;Dogs&lt;/b&gt;" in shown
    assert "How the passage was chosen" in shown  # the technical trace stays, folded
    named = trace.model_copy(update={"components": {**trace.components, "scorer": "answer-model (answer_model.json)"}})
    assert "Answer scorer</span> (answer-model (answer_model.json)): best" in answer_html(named)


def test_a_reader_above_its_threshold_says_likely_and_names_the_reader(logic_engine, make_corpus):
    proposal = _citing("The harbour pass costs 42 euros per month. [harbour:2]", producer="extractive", score=0.7,
                       threshold=0.1, reader="reader-v2", reader_score=0.91, reader_threshold=0.5)
    trace = _trace(logic_engine, make_corpus, proposal)
    kind, words = answers_mark(trace).kind, answers_mark(trace).text
    assert kind == ("ok" if trace.answer.status == "answered" else "no")
    assert "0.91 sure" in words and "reader reader-v2" in words and "0.50" in words


def test_the_why_line_says_the_engines_jargon_in_plain_words_and_keeps_it_in_the_tooltip():
    from ui.panels import why_html
    from ui.verdict import Mark, Reading, plain_words

    engine_words = "No evidence is strong enough (the best unit [a:1] scores 0.10 < threshold 0.10 <i>)."
    muted = Mark("muted", "")
    shown = why_html(Reading(muted, muted, muted, why=plain_words(engine_words), why_engine=engine_words))
    plain = shown.split("</b>", 1)[-1]
    assert "the best passage [a:1] scores 0.10, below the 0.10 needed" in plain
    assert "threshold" not in plain and "unit" not in plain
    assert "title='No evidence is strong enough (the best unit [a:1] scores 0.10 &lt; threshold 0.10 &lt;i&gt;).'" in shown
    assert "<i>" not in shown


def test_a_score_above_the_threshold_refused_by_a_rule_says_so_instead_of_unlikely(logic_engine, make_corpus):
    proposal = Proposal(producer="extractive", abstain_reason="insufficient_evidence", score=0.11, threshold=0.1,
                        note="the question names Who and no candidate unit's source mentions it")
    mark = answers_mark(_trace(logic_engine, make_corpus, proposal))
    kind, words = mark.kind, mark.text
    assert kind == "no" and "scores <" in words and "(it needs" in words and "unlikely" not in words
    assert "refused it by one of its rules (see Why)" in words  # the rule itself is said once, by Why


def test_a_score_just_below_its_threshold_never_reads_as_equal(logic_engine, make_corpus):
    proposal = Proposal(producer="extractive", abstain_reason="insufficient_evidence", score=0.0996, threshold=0.1,
                        note="the best unit [harbour:2] scores 0.0996 < threshold 0.10")
    mark = answers_mark(_trace(logic_engine, make_corpus, proposal))
    kind, words = mark.kind, mark.text
    assert kind == "no" and ">0.0996<" in words and ">0.10<" in words


def test_a_row_answer_is_shown_under_its_column_names_and_escaped(engine):
    statement = ("---\nid: statement\n---\nIncome statement\nNote\t2023\t2022\n"
                 "Personnel costs <staff>\t9\t(81,337)\t(76,540)\nNet profit for the year\t27,426\t21,892\n")
    corpus = engine.corpus([engine.parse(statement.encode("utf-8"), "statement.txt")])
    trace = engine.ask(corpus, Request(question="What were personnel costs in 2023?", date=dt.date(2026, 9, 14)))
    assert trace.answer.status == "answered", trace.explanation
    shown = answer_html(trace)
    assert "id='answer-row'" in shown
    # the asked year's column is marked
    assert ("<th class='asked'>2023</th><th>2022</th></tr><tr><td>Personnel costs &lt;staff&gt;</td><td>9</td>"
            "<td class='asked'>(81,337)</td><td>(76,540)</td>") in shown
    # and said in one line: the row, the column asked and its cell
    assert "<p class='rag-row-answer' id='answer-cell'><b>Personnel costs &lt;staff&gt;</b> — 2023: (81,337)</p>" in shown
    sentence = engine.ask(engine.corpus([engine.parse(POLICY.encode("utf-8"), "harbour.md")]), REQUEST)
    assert sentence.answer.status == "answered" and "id='answer-row'" not in answer_html(sentence)


def test_a_column_headed_by_a_closing_date_is_marked_by_its_year(engine):
    from tests.pdf_files import ask_pdf, italian_statement

    trace = ask_pdf(engine, italian_statement(), "bilancio.pdf", "Qual è l'utile dell'esercizio 2023?")
    assert trace.answer.status == "answered", trace.explanation
    assert ("<th class='asked'>31/12/2023</th><th>31/12/2022</th></tr><tr><td>21) Utile (perdita) dell&#x27;esercizio"
            "</td><td class='asked'>685.529</td><td>296.611</td>") in answer_html(trace)


def test_a_command_in_the_answer_is_shown_as_code_not_as_its_fences(logic_engine, make_corpus):
    readme = "---\nid: tool\n---\nInstall the tool with pip:\n\n```bash\npip install <tool>\n```\n"
    request = Request(question="How do I install the tool?", date=dt.date(2026, 9, 14))
    proposal = Proposal(answer="Install the tool with pip:\n\n```bash\npip install <tool>\n``` [tool:1-5]",
                        citations=[ProposedCitation(source_id="tool", start_line=1, end_line=5)])
    trace = logic_engine.ask(make_corpus(("tool.md", readme)), request, proposal=proposal)
    shown = answer_html(trace)
    answer = shown[shown.index('<div class="rag-answer">'):]
    answer = answer[:answer.index("</div>")]
    assert '<pre class="rag-pre rag-code"><code>pip install &lt;tool&gt;</code></pre>' in answer
    assert "```" not in answer and "[tool:1-5]" in answer
    claim = shown[shown.index("<td>✓ verified</td><td>") + len("<td>✓ verified</td><td>"):]
    claim = claim[:claim.index("</td>")]  # the Claims table's claim cell (its citation cell names the source lines)
    assert "<code>pip install &lt;tool&gt;</code>" in claim and "```" not in claim


def test_the_answer_panel_says_how_the_question_was_read(logic_engine, make_corpus):
    """The trace's reading (what the answer stage took the question to ask) is shown with the scores, from its data."""
    corpus = make_corpus(("harbour.md", POLICY))
    trace = logic_engine.ask(corpus, Request(question="What does <b>pass</b> mean?", date=dt.date(2026, 9, 14)))
    assert [f.form for f in trace.reading.forms] == ["definition"]
    shown = answer_html(trace)
    line = shown[shown.index("id='question-reading'"):]
    assert "a question" in line and "definition: &lt;b&gt;pass&lt;/b&gt;" in line  # the question's words escaped
