"""The Answer panel, the history table and the Source note for an answer that stands with a claim dropped:
never a clean ✓, the dropped claim struck through with the checks it failed, every text escaped (no browser)."""

from __future__ import annotations

import html

from pipeline.core.contracts import Proposal, ProposedCitation, Request
from pipeline.engine.journey import ask
from tests.conftest import CORPUS, REQUEST_DATE
from ui import history, panels
from ui.source import source_view

REQUEST = Request(question="Beijing lodging", date=REQUEST_DATE, topic="travel")
HOSTILE = 'Executives may spend <img src=x onerror="alert(1)"> 2000 yuan & more.'


def _trace(make_corpus, answer: str, citations: list[ProposedCitation]):
    corpus = make_corpus(("travel-v2.md", (CORPUS / "travel-v2.md").read_text("utf-8")))
    trace = ask(corpus, REQUEST, proposal=Proposal(answer=answer, citations=citations, producer="pasted-answer"))
    return trace, corpus


def test_a_dropped_claim_is_struck_through_with_its_reasons_and_escaped(make_corpus):
    whole = ProposedCitation(source_id="travel-v2", start_line=1, end_line=3)
    trace, corpus = _trace(make_corpus, f"The lodging limit is 750 yuan. [travel-v2:1-3] {HOSTILE} [travel-v2:1-3]",
                           [whole])  # listed once, cited twice
    assert trace.answer.status == "answered" and trace.answer.partial
    shown = panels.answer_html(trace)
    assert "✓ answered" not in shown and '<span class="rag-badge partial">⚠ partly answered — 1 claim dropped</span>' in shown
    struck = f"<del>{html.escape(HOSTILE)}</del>"
    dropped_list = shown.split("<div class='rag-dropped'>")[1].split("</div>")[0]
    assert struck in dropped_list and "failed: claim_supported, numbers_match" in dropped_list
    claims_table = shown.split("<h4>Claims</h4>")[1].split("<h4>Citations</h4>")[0]
    assert claims_table.count("<del>") == 1 and struck in claims_table  # the verified claim is not struck
    assert "(failed: claim_supported, numbers_match)" in claims_table
    assert "<img" not in shown and "onerror=&quot;alert(1)&quot;" in shown
    row = history.history_html(_conversation_with(trace))
    assert "⚠ partly answered — 1 claim dropped" in row and "✓ answered" not in row
    _, _, note = source_view(trace, corpus.documents, lambda digest: None, "1")  # the dropped citation
    assert note.startswith("✗ dropped: travel-v2 lines 1–3") and f"dropped claim “{HOSTILE}”" in note
    assert note.endswith("failed: claim_supported, numbers_match")


def test_a_claim_without_a_citation_is_struck_through_as_uncited(make_corpus):
    trace, _ = _trace(make_corpus, "The lodging limit is 750 yuan. [travel-v2:1-3] Breakfast <b>is</b> free.",
                      [ProposedCitation(source_id="travel-v2", start_line=1, end_line=3)])
    shown = panels.answer_html(trace)
    assert "<del>Breakfast &lt;b&gt;is&lt;/b&gt; free.</del>" in shown and "failed: cited" in shown
    assert "partly answered" in shown


def test_a_clean_answer_keeps_its_check_mark_and_an_abstention_lists_its_dropped_claim(make_corpus):
    whole = ProposedCitation(source_id="travel-v2", start_line=1, end_line=3)
    trace, _ = _trace(make_corpus, "The lodging limit is 750 yuan. [travel-v2:1-3]", [whole])
    shown = panels.answer_html(trace)
    assert '<span class="rag-badge ok">✓ answered</span>' in shown and "<del>" not in shown
    trace, _ = _trace(make_corpus, f"{HOSTILE} [travel-v2:1-3]", [whole])
    shown = panels.answer_html(trace)
    assert "✗ abstained — unsupported_claim" in shown and f"<del>{html.escape(HOSTILE)}</del>" in shown


def _conversation_with(trace):
    conversation = history.Conversation()
    conversation.add("check", "Beijing lodging", trace, {}, None)
    return conversation


def test_the_history_row_words_an_abstention_as_the_answer_panel_does(make_corpus):
    corpus = make_corpus(("travel-v2.md", (CORPUS / "travel-v2.md").read_text("utf-8")))
    trace = ask(corpus, REQUEST, proposal=Proposal(answer=None, citations=[], producer="pasted-answer",
                                                   abstain_reason="insufficient_evidence"))
    assert trace.answer.status == "abstained" and "producer" in trace.explanation
    row = history.history_html(_conversation_with(trace))
    assert "answerer" in row and "producer" not in row
    said = html.escape(panels.plain_words(trace.explanation))
    assert f"<td title='{said}'>{said}</td>" in row  # it fits: shown whole


def test_the_history_row_leads_with_what_tells_an_abstention_from_the_others(make_corpus):
    corpus = make_corpus(("travel-v2.md", (CORPUS / "travel-v2.md").read_text("utf-8")))
    note = ("the reader (reader-v2) finds that the chosen unit [travel-v2:1-3] does not answer the question: "
            "0.10 < threshold 0.15")
    trace = ask(corpus, REQUEST, proposal=Proposal(answer=None, citations=[], producer="pasted-answer", note=note,
                                                   abstain_reason="insufficient_evidence"))
    assert trace.explanation.startswith("Eligible sources were found") and note in trace.explanation
    cell = history.history_html(_conversation_with(trace)).split("<td title=")[1]
    shown = cell.split(">", 1)[1].split("</td>")[0]
    assert shown.startswith("The reader (reader-v2) finds that the chosen passage [travel-v2:1-3] does not answer")
    assert shown.endswith("0.10, below the 0.15 needed")
    assert html.escape(panels.plain_words(trace.explanation), quote=True) in cell.split(">", 1)[0]  # the whole reason
    failed = ask(corpus, REQUEST, proposal=Proposal(answer=None, citations=[], producer="pasted-answer",
                                                    note="travel-v2:1-3 failed claim_supported",
                                                    abstain_reason="insufficient_evidence"))
    shown = history.history_html(_conversation_with(failed)).split("<td title=")[1].split(">", 1)[1]
    assert shown.startswith("travel-v2:1-3 failed claim_supported")  # an id keeps its case


def test_a_long_answer_is_cut_at_a_word_and_one_without_spaces_at_the_length():
    assert history._clipped("The pass costs 42 euros.") == "The pass costs 42 euros."
    reason = "the reader (reader-v2) finds that the chosen passage [chage-man:51-52] does not answer the question: " * 3
    shown = history._clipped(reason)
    assert shown.endswith("…") and len(shown) <= history.SAID_LENGTH
    assert reason.startswith(shown[:-1]) and reason[len(shown) - 1] in " ,;:"  # ends where a word ends
    long_cjk = "北京的住宿限额是每晚七百五十元" * 20
    assert history._clipped(long_cjk) == long_cjk[: history.SAID_LENGTH - 1] + "…"
