"""Abbreviations a document defines count as their long form when the composer matches words."""

from __future__ import annotations

from pipeline.core.contracts import Request, Settings
from pipeline.generate.extractive.composer import LocalExtractive
from pipeline.generate.extractive.scoring import abbreviation_tokens, candidate_pairs
from pipeline.lang.abbreviations import defined_abbreviations, expand_tokens
from pipeline.pack import pack
from pipeline.retrieve.selection import retrieve
from tests.conftest import REQUEST_DATE


def test_definitions_in_parentheses_are_found_with_their_long_form():
    text = ("The angle of attack (or AOA) is the angle at which the wing meets the air. The flight control\n"
            "computer (FCC) software is updated. Seizing of a main landing gear (MLG) spring pack.\n"
            "Costs (see below) and the U.S. Department of Transportation (DOT) are named.")
    found = defined_abbreviations([text])
    assert found["AOA"] == "angle of attack"
    assert found["FCC"] == "flight control computer"  # across a line break
    assert found["MLG"] == "main landing gear"
    assert found["DOT"] == "Department of Transportation"
    assert "see below" not in found.values() and "see" not in found


def test_a_parenthesis_whose_letters_the_words_before_do_not_hold_is_not_a_definition():
    assert defined_abbreviations(["The report was late (XYZ) again."]) == {}
    assert defined_abbreviations(["The price rose sharply (2019)."]) == {}


def test_either_form_adds_the_other():
    pairs = [(frozenset({"aoa"}), frozenset({"angl", "attack"}))]
    assert expand_tokens({"aoa", "sensor"}, pairs) == {"aoa", "sensor", "angl", "attack"}
    assert expand_tokens({"angl", "attack", "sensor"}, pairs) == {"aoa", "angl", "attack", "sensor"}
    assert expand_tokens({"angl", "sensor"}, pairs) == {"angl", "sensor"}  # half a long form is not the abbreviation


MANUAL = ("---\nid: maintenance\n---\n"
          "The angle of attack (AOA) sensor measures the wing's angle to the air.\n"
          "An AOA sensor system test takes 40 work-hours.\n"
          "The cabin is cleaned every night.\n")


def test_a_question_in_the_long_form_matches_a_unit_in_the_short_form(engine):
    corpus = engine.corpus([engine.parse(MANUAL.encode("utf-8"), "maintenance.md")])
    request = Request(question="How long does the angle-of-attack sensor system test take?", date=REQUEST_DATE)
    retrieval = retrieve(corpus, request, Settings())
    context = pack(retrieval.selected, corpus.documents, request, Settings(), retrieval.term_weights)
    assert context.abbreviations == {"AOA": "angle of attack"}
    units, pairs, lexical, matched = candidate_pairs(context, corpus.tokenizer, corpus.embedder, prefilter=16)
    test_unit = next(i for i, u in enumerate(units) if "40 work-hours" in u.quote)
    assert {"angl", "attack"} <= matched[test_unit]
    # Without the document's definition the same unit matches fewer of the question's words.
    bare = context.model_copy(update={"abbreviations": {}})
    units_bare, _, lexical_bare, _ = candidate_pairs(bare, corpus.tokenizer, corpus.embedder, prefilter=16)
    assert lexical[test_unit] > lexical_bare[units_bare.index(units[test_unit])]
    proposal = LocalExtractive(corpus.tokenizer, embedder=corpus.embedder)(context)
    assert "40 work-hours" in (proposal.answer or ""), proposal


def test_a_short_form_that_is_a_stopword_is_ignored(engine):
    # "IT" tokenizes to nothing (a stopword): an empty short form would be "in" every unit.
    pairs = abbreviation_tokens({"IT": "information technology", "FCC": "flight control computer"}, engine.tokenizer)
    assert pairs == [(frozenset({"fcc"}), frozenset(engine.tokenizer.tokens("flight control computer")))]
