"""The OCR benchmarks' scanned PDFs (benchmarks/scanned.py): image-only pages, and the words typeset on each."""

from __future__ import annotations

import pymupdf

from benchmarks.scanned import recognised, scanned_pdf


def test_a_generated_scan_has_no_text_layer_and_knows_its_words():
    data, truth = scanned_pdf(2, scan_dpi=100, stamp="scan 1")
    with pymupdf.open(stream=data) as doc:
        assert doc.page_count == 2 == len(truth)
        assert all(page.get_text().strip() == "" and len(page.get_images()) == 1 for page in doc)
    assert all(len(words) > 200 for words in truth) and truth[0] != truth[1]


def test_recognised_counts_each_typeset_word_once():
    assert recognised(["the", "fee", "the", "boat"], ["the", "fee", "boat", "boats"]) == 0.75
    assert recognised(["a"], []) == 0.0 and recognised([], ["a"]) == 0.0
