"""Chunks keep their address; the tokenizer serves English and Chinese."""

from __future__ import annotations

from pipeline.index.chunk import WINDOW_OVERLAP, WINDOW_SIZE, card_chunks, line_chunks, retrieval_chunks, window_chunks
from pipeline.ingest.parsers import parse
from pipeline.lang.tokenize import Tokenizer


def _long_document():
    paragraphs = [
        " ".join(f"Paragraph {p} sentence {s} talks about topic {p * 7 + s}." for s in range(12)) for p in range(5)
    ]
    return parse("\n".join(paragraphs).encode(), "long.txt")


def test_line_chunks_cover_every_line_with_its_offsets():
    document = parse(b"---\nid: doc\n---\nalpha\nbeta\n\ngamma\n", "doc.md")
    chunks = line_chunks(document)
    assert [c.chunk_id for c in chunks] == ["doc#L1", "doc#L2", "doc#L3", "doc#L4"]
    assert all(c.parent.start_line == c.parent.end_line for c in chunks)
    assert [c.text for c in chunks] == ["alpha", "beta", "", "gamma"]


def test_windows_are_about_800_with_about_100_overlap_and_exact_offsets():
    document = _long_document()
    page = document.pages[0]
    windows = window_chunks(document)
    assert len(windows) >= 4
    for window in windows:
        assert page.text[window.start : window.end] == window.text
        assert len(window.text) <= WINDOW_SIZE
        first, last = window.parent.start_line, window.parent.end_line
        assert page.lines[first - 1].start <= window.start and window.end <= page.lines[last - 1].end
    for previous, following in zip(windows, windows[1:]):
        overlap = previous.end - following.start
        assert 0 < overlap <= WINDOW_OVERLAP + 20
        assert following.start > previous.start
    # Together the windows cover the text: nothing between them is lost.
    covered = set()
    for window in windows:
        covered.update(range(window.start, window.end))
    assert all(i in covered for i, ch in enumerate(page.text) if not ch.isspace())


def test_cards_replace_windows_over_the_lines_they_cover():
    text = "---\nid: t\ncards:\n  - id: B\n    text: beijing lodging 750\n    lines: 1-2\n---\none\ntwo\nthree\n"
    document = parse(text.encode(), "t.md")
    cards = card_chunks(document)
    assert [(c.kind, c.card_id, c.parent.start_line, c.parent.end_line) for c in cards] == [("card", "B", 1, 2)]
    windows = window_chunks(document)
    assert [(w.parent.start_line, w.parent.end_line, w.text) for w in windows] == [(3, 3, "three")]
    assert len(retrieval_chunks(document)) == 2


def test_english_tokens_are_stemmed_without_stopwords_and_numbers_stay_whole():
    tokenizer = Tokenizer()
    assert tokenizer.tokens("The lodging limits are 1,000 yuan") == ["lodg", "limit", "1000", "yuan"]
    assert tokenizer.query_tokens("What is the lodging limit in Beijing?") == ["lodg", "limit", "beij"]


def test_chinese_is_segmented_into_words_or_bigrams():
    assert Tokenizer("jieba").tokens("北京住宿限额") == ["北京", "住宿", "限额"]
    assert Tokenizer("bigram").tokens("北京住宿") == ["北京", "京住", "住宿"]
    assert Tokenizer().query_tokens("北京住宿是多少？") == ["北京", "住宿"]


def test_words_that_only_frame_a_question_are_not_query_terms():
    """"long" in "How long is the warranty?" and "put" in "How much water can I put in?" appear in no document,
    so as the rarest terms they outweighed "warranty" and "water" in the coverage of the sentence that answers."""
    tokenizer = Tokenizer()
    assert tokenizer.query_tokens("How long is the warranty?") == ["warranti"]
    assert tokenizer.query_tokens("How much water can I put in?") == ["water"]
    assert tokenizer.query_tokens("How much baggage can I take on the ferry?") == ["baggag", "ferri"]
    assert "long" in tokenizer.query_tokens("Which river is long and navigable?")  # not after "how"
    assert tokenizer.query_tokens("What time does the ferry leave?") == ["ferri", "leav"]
    # A preposition stranded at the end frames the question; inside it, it may locate the answer.
    assert tokenizer.query_tokens("What license is pydantic under?") == ["licens", "pydant"]
    assert "under" in tokenizer.query_tokens("Can children under 12 travel free?")
    # "deadline" asks when: documents write the date.
    assert tokenizer.query_tokens("What is the comment deadline?") == ["comment"]
    assert tokenizer.query_tokens("Taking aspirin lowers stroke risk.")[0] == "take"  # a statement's verb is content
