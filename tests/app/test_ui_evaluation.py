"""The Evaluation tab's text tables become HTML tables (pure formatting, no app needed)."""

from __future__ import annotations

from ui.evaluation import text_tables_html

TWO_TABLES = """cmrc (1608 questions)
metric            ours   papertrail
----------------  -----  ----------
answered_correct  0.471  0.013
location_hit      0.450  0.013

cmrc: CJK tokenizer choice (ours)
metric            jieba  bigram
----------------  -----  ------
paragraph_hit@1   0.975  0.980
"""


def test_each_block_is_its_own_table_with_its_own_columns():
    html = text_tables_html(TWO_TABLES)
    assert html.count("<table") == 2
    assert "<th>jieba</th><th>bigram</th>" in html
    assert "<td>paragraph_hit@1</td><td>0.975</td><td>0.980</td>" in html
    assert "-----" not in html  # the rules are not rows


def test_a_text_without_column_rules_keeps_its_layout():
    text = "machine line\n\nmeasure      value  goal\n--------------------------\nparse pages/s  123.0\n"
    html = text_tables_html(text)
    assert html.startswith("<pre") and html.count("<pre") == 1 and "parse pages/s  123.0" in html
