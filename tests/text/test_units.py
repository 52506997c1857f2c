"""Evidence units: wrapped text, list items, table rows (with their header), Chinese compounds."""

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.generate.extractive.scoring import scored_text
from pipeline.text.units import units_of


def _source(lines, page=None):
    return PackedSource(
        n=1, source_id="doc", version=None, page=page, start_line=1, end_line=len(lines), support_span=False,
        dated="", sibling_group="", lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(lines)),
    )


def test_hard_wrapped_text_becomes_sentences_that_span_lines():
    units = units_of(_source([
        "Implementations MUST retain the session identifier for at",
        "least two years. A second sentence starts on this line and",
        "ends here.",
    ]))
    assert [(u.start_line, u.end_line) for u in units] == [(1, 2), (2, 3)]
    assert units[0].quote.endswith("at\nleast two years.")


def test_short_label_lines_in_text_stay_separate():
    units = units_of(_source(["Beijing: 750 yuan", "Shanghai: 700 yuan"]))
    assert [u.quote for u in units] == ["Beijing: 750 yuan", "Shanghai: 700 yuan"]


def test_bullets_and_numbered_items_are_units_of_their_own():
    units = units_of(_source([
        "Pets are allowed on these terms:",
        "- dogs travel on a lead on the upper deck",
        "  and never in the cabin",
        "- cats travel in a closed basket",
        "2) birds are not allowed",
    ]))
    items = [u for u in units if u.kind == "item"]
    assert [(u.start_line, u.end_line) for u in items] == [(2, 3), (4, 4), (5, 5)]


def test_pdf_table_rows_are_units_with_their_header_and_wrapped_cell():
    units = units_of(_source([
        "DOCUMENT NO.\tDATE\tPAYEE NAME\tAMOUNT ($)",
        "DHAW1\t05/28/2019\tCITIBANK - SENATOR IBA CARD\t618.00",
        "TRAIN FARE FOR SEN HAWLEY WASHINGTON DC TO NEW YORK NY AND RETURN",
        "DHAW2\t06/13/2019\tCITIBANK - SENATOR IBA CARD\t553.30",
        "The report covers the period shown above and",
        "ends with a summary.",
    ], page=3))
    rows = [u for u in units if u.kind == "row"]
    assert [(u.start_line, u.end_line) for u in rows] == [(1, 1), (2, 3), (4, 4)]
    assert rows[1].header.startswith("DOCUMENT NO.")
    prose = [u for u in units if u.kind == "sentence"]
    assert [(u.start_line, u.end_line) for u in prose] == [(5, 6)]


def test_markdown_table_rule_is_not_a_unit():
    units = units_of(_source(["| City | Limit |", "|---|---|", "| Beijing | 750 |"]))
    assert [u.quote for u in units] == ["| City | Limit |", "| Beijing | 750 |"]
    assert units[1].header == "| City | Limit |"


def test_chinese_sentences_split_on_full_stops():
    units = units_of(_source(["北京的住宿标准为每晚750元。上海为每晚700元。"]))
    assert [u.quote for u in units] == ["北京的住宿标准为每晚750元。", "上海为每晚700元。"]


def test_a_sentence_that_opens_with_a_pronoun_is_also_a_unit_with_the_sentence_before_it():
    """"They should not exceed 4,000 words" says what of original articles only with the sentence before it
    ("How long can an original article be?" was answered with the abstract's word limit)."""
    units = units_of(_source([
        "Original articles report new research. They should not exceed 4,000 words,",
        "excluding the abstract. Reviews may be longer.",
    ]))
    quotes = [u.quote for u in units]
    assert "Original articles report new research. They should not exceed 4,000 words,\nexcluding the abstract." in quotes
    assert "They should not exceed 4,000 words,\nexcluding the abstract." in quotes  # the sentence alone stays
    assert not any(q.startswith("They") and "Reviews" in q for q in quotes)
    assert len(units) == 4


def test_a_chinese_sentence_that_opens_with_a_pronoun_is_also_a_unit_with_the_one_before():
    units = units_of(_source(["鲁迅是中国现代作家。他于1918年发表了《狂人日记》。"]))
    assert "鲁迅是中国现代作家。他于1918年发表了《狂人日记》。" in [u.quote for u in units]


def test_the_sentence_a_pdf_heading_opens_is_read_with_it_and_quoted_without_it():
    texts = ["rates were checked in spring", "Costs of", "Compliance",
             "The office estimates that this rule affects 73 airplanes.", "A second sentence follows here."]
    roles = ["", "heading", "heading", "", ""]
    source = PackedSource(
        n=1, source_id="doc", version=None, page=3, start_line=1, end_line=len(texts), support_span=False,
        dated="", sibling_group="",
        lines=tuple(PackedLine(number=i + 1, text=t, role=r) for i, (t, r) in enumerate(zip(texts, roles))))
    sentences = [u for u in units_of(source) if u.kind == "sentence"]
    opened = next(u for u in sentences if u.start_line == 4)
    assert opened.quote == texts[3] and "Compliance" not in opened.quote  # never quoted with its heading
    assert opened.opened_by == "Costs of Compliance" and opened.read() == f"Costs of Compliance\n{texts[3]}"
    assert all(not u.opened_by for u in sentences if u is not opened)  # the next sentence, the one above: no
    assert scored_text(opened).startswith("Costs of Compliance")  # the answer score reads the heading too


def test_a_numbered_section_title_standing_alone_in_plain_text_is_a_heading():
    units = units_of(_source([
        "3.3. Virtual packages for Python-version specific dependencies¶",
        "",
        "The python3 package provides virtual packages for the supported versions.",
        "",
        "2.1. Grants",
        "",
        "3.5 million packages were built in 2020",  # no title: lower case after the number
        "",
        "1.1 Uninstall TeX Live on Windows",  # a short line the next does not continue
        "To uninstall it, run the batch file.",
    ]))
    assert [u.start_line for u in units if u.kind == "heading"] == [1, 5, 9]
    assert any(u.start_line == 7 and u.kind == "sentence" for u in units)


def test_a_short_line_over_a_code_block_labels_it():
    lines = ["Download a single file", "", "```py", "hf_hub_download(repo_id='x/y', filename='config.json')", "```", "",
             "The download is cached.", "", "```py", "print('not labelled: a sentence ends above')", "```"]
    code = [(u.start_line, u.end_line) for u in units_of(_source(lines)) if u.kind == "code"]
    assert (1, 5) in code  # the label with its example, as "… with pip:" over a command
    assert (7, 11) not in code and (9, 11) in code
