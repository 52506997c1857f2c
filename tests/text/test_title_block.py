"""A first page's title block: the title's heading lines, then lines told by their form alone (authors, institutions,
places, addresses, a date, a version) up to where the text begins."""

from __future__ import annotations

import pytest

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.text.title_block import line_role, title_block


def opening(*lines: tuple[str, str], page: int | None = 1, start: int = 1, furniture: tuple[int, ...] = ()) -> PackedSource:
    packed = tuple(PackedLine(number=start + i, text=text, role=role, furniture=start + i in furniture)
                   for i, (text, role) in enumerate(lines))
    return PackedSource(n=1, source_id="doc", version=None, page=page, start_line=start, end_line=start + len(lines) - 1,
                        support_span=False, dated="", sibling_group="", lines=packed)


@pytest.mark.parametrize(("line", "role"), [
    ("Jens Gramm1\tTzvika Hartman2\tTill Nierhoff3", "author"),
    ("Ann Author† and Second Author‡", "author"),
    ("First A. Author∗and Second B. Author∗", "author"),  # the mark set tight against "and"
    ("Ann Author, Sandy Branderson and Second Author", "author"),
    ("Ann Author and", ""),
    ("CV Radhakrishnan2", "author"),  # initials without their full stops
    ("IBM Watson", ""),
    ("G.K.M. Tobin∗", "author"),
    ("李清", "author"),
    ("Wolfgang Putsch¨ogl", "author"),  # TeX's accent, extracted beside its letter
    ("2Bar-Ilan University, Ramat-Gan, Israel", "affiliation"),
    ("The Kumquat Consortium", "affiliation"),
    ("(Dated: August 10, 2010)", "date"),
    ("2021.05.06", "date"),
    ("llncs, Version 2.22, Sep 05, 2022", "version"),
    ("2022/07/14\tv3.1∗", "version"),
    ("†syvshc@foxmail.com", "contact"),
    ("Christchurch, New Zealand", ""),
    ("County Limerick", "affiliation"),  # an address line, not a name
    ("This line break forced with \\\\", ""),
    ("目录", ""),
])
def test_a_line_under_a_title_is_told_by_its_form(line, role):
    assert line_role(line) == role


def test_the_block_runs_from_the_title_to_where_the_text_begins():
    block = title_block(opening(
        ("Introduction\tBad News\tSummary", ""),  # a slide's navigation bar before the title
        ("Instructions for Using the Class for", "heading"),
        ("Computer Science Proceedings Papers", "heading"),  # the title goes on after "for", names or not
        ("Ann Author† and Second Author‡", ""),
        ("Authors’ institution and/or address", ""),
        ("(Dated: August 10, 2010)", ""),
        ("This is the summary of the class. It details usage for many of", ""),
        ("Delta Author", ""),
    ))
    assert [u.quote for u in block.units("title")] == [
        "Instructions for Using the Class for\nComputer Science Proceedings Papers"]
    assert [u.quote for u in block.units("author")] == ["Ann Author† and Second Author‡"]  # not below the text's start
    assert [(u.start_line, u.quote) for u in block.units("date")] == [(6, "(Dated: August 10, 2010)")]
    assert block.units("version") == [] and block.span() == (2, 6)


def test_a_full_date_is_preferred_to_a_bare_year_and_a_version_line_can_date_the_document():
    block = title_block(opening(("A Talk", "heading"), ("Workshop on Algorithms, 2006", ""), ("March 3, 2006", "")))
    assert [u.quote for u in block.units("date")] == ["March 3, 2006"]
    dated = title_block(opening(("xpinyin 宏包", "heading"), ("李清", ""), ("2022/07/14\tv3.1∗", "")))
    assert [u.quote for u in dated.units("date")] == [u.quote for u in dated.units("version")] == ["2022/07/14\tv3.1∗"]


@pytest.mark.parametrize("source", [
    opening(("Some Title", "heading"), page=2),  # not the first page
    opening(("Some Title", "heading"), start=2),  # not the page's opening
    opening(*[(f"Line {n}", "") for n in range(6)], ("Late Heading", "heading")),
    opening(("1\tInstallation", "heading"), ("Copy the file to a directory.", "")),  # a numbered section is text
    opening(("47698", "heading"), ("Federal Register", "")),  # a page number set large
    opening(("Abstract", "heading"), ("We study cranes.", "")),
    opening(("Harbour cranes rust where salt spray meets worn paint and nobody repaints them.", ""),
            ("Results", "heading")),  # a heading under running text is a section's
])
def test_no_title_block_without_a_title_heading_at_the_top_of_the_first_page(source):
    assert title_block(source) is None


def test_a_title_repeated_as_the_running_head_of_other_pages_is_still_the_title():
    # acmart's sample: the short title heads every page, so the parser marks its first-page line as a running head;
    # a bold author's name further down is a heading too.
    block = title_block(opening(("The Name of the Title Is Hope", "heading"),
                                ("Ben Trovato∗\tLars Thørväld\tValerie Béranger", ""), ("G.K.M. Tobin∗", "heading"),
                                ("trovato@corporation.com", ""), ("Page 7", ""), furniture=(1, 5)))
    assert [u.quote for u in block.units("title")] == ["The Name of the Title Is Hope"]
    assert [u.start_line for u in block.units("author")] == [2, 3]
    assert all(line.number != 5 for line, _ in block.lines)  # a running foot further down stays out


def test_a_talk_s_date_repeated_in_every_slide_s_footer_still_dates_its_title_slide():
    # beamer-verona's title slide: title and date repeat in each slide's foot, so the parser marks both on page 1
    block = title_block(opening(("A simple template", "heading"), ("With a subtitle", "heading"), ("Ivan Valbusa", ""),
                                ("Department of Philology, Literature, and Linguistics", ""), ("University of Verona", ""),
                                ("November 27, 2015", ""), furniture=(1, 6)))
    assert [u.quote for u in block.units("date")] == ["November 27, 2015"]


def test_an_author_s_institution_is_found_by_the_mark_after_the_name_or_under_the_name_s_line():
    marked = title_block(opening(("On SNP Blocks", "heading"), ("Jens Gramm1\tTill Tantau2", ""),
                                 ("1Universität Tübingen, Germany", ""), ("2Universität zu Lübeck, Germany", "")))
    assert [u.quote for u in marked.affiliation_of("Till Tantau")] == ["2Universität zu Lübeck, Germany"]
    assert [u.quote for u in marked.affiliation_of("till tantau")] == ["2Universität zu Lübeck, Germany"]
    assert marked.affiliation_of("Someone Else") == []
    columns = title_block(opening(("The Name of the Title", "heading"), ("Aparna Patel\tHuifen Chan", ""),
                                  ("Rajiv Gandhi University", ""), ("Doimukh, Arunachal Pradesh, India", ""),
                                  ("Tsinghua University", ""), ("Haidian Qu, Beijing Shi, China", ""),
                                  ("Delta Author", ""), ("Third institution", "")))
    assert [u.quote for u in columns.affiliation_of("Huifen Chan")] == ["Tsinghua University", "Haidian Qu, Beijing Shi, China"]
    assert [u.quote for u in columns.affiliation_of("Delta Author")] == ["Third institution"]


def test_a_title_that_opens_with_a_label_s_word_is_a_title():
    block = title_block(opening(("Introduction to Harbour Cranes", "heading"), ("Maria Lindqvist", ""),
                                ("Abstract: we study cranes.", "")))
    assert [u.quote for u in block.units("title")] == ["Introduction to Harbour Cranes"]
    assert [u.quote for u in block.units("author")] == ["Maria Lindqvist"] and block.span() == (1, 2)


def test_a_proceedings_header_may_stand_above_the_title():
    block = title_block(opening(("Proceedings of the ASME 2023", ""), ("International Mechanical Engineering Congress", ""),
                                ("IMECE2023", ""), ("October 29–November 2, 2023, New Orleans, LA", ""),
                                ("A TEMPLATE FOR CONFERENCE PAPERS", "heading"),
                                ("John H. Lienhard1,†,∗, Luis Hernández2,†", "heading"),
                                ("1Massachusetts Institute of Technology, Cambridge, MA", ""), ("ABSTRACT", "heading")))
    assert [u.quote for u in block.units("title")] == ["A TEMPLATE FOR CONFERENCE PAPERS"]
    assert [u.start_line for u in block.units("author")] == [6]
    assert [u.quote for u in block.affiliation_of("John H. Lienhard")] == [
        "1Massachusetts Institute of Technology, Cambridge, MA"]
    assert block.affiliation_of("John Lienhard") == block.affiliation_of("John H. Lienhard")  # without the initial
    assert block.affiliation_of("Luis Hernandez") == []  # his number 2 marks no line here: not the MIT line


def test_each_author_on_a_line_of_their_own_over_their_institution():
    # elsarticle's layout: the numbers after the names mark notes at the foot of the page, not institutions
    block = title_block(opening(("This is a specimen title", "heading"), ("Jos Migchielsen1,∗", ""),
                                ("Elsevier B.V., Radarweg 29, 1043 NX Amsterdam, The Netherlands", ""),
                                ("CV Radhakrishnan2", ""), ("Sayahna Foundations, JWRA 34, Trivandrum 695014, India", ""),
                                ("CV Rajagopal1,3", ""), ("STM Document Engineering Pvt Ltd., Trivandrum 695571, India", ""),
                                ("Abstract", "heading")))
    assert [u.start_line for u in block.units("author")] == [2, 4, 6]
    assert [u.start_line for u in block.affiliation_of("Jos Migchielsen")] == [3]
    assert [u.start_line for u in block.affiliation_of("CV Radhakrishnan")] == [5]
    assert [u.start_line for u in block.affiliation_of("CV Rajagopal")] == [7]
