"""Words read in their own language: a text whose function words show Italian, French, German … drops that
language's function words and takes its Snowball stems; any other text keeps the English reading."""

from __future__ import annotations

from pipeline.lang.languages import word_language
from pipeline.lang.questions import found_types, wanted_types
from pipeline.lang.tokenize import Tokenizer


def test_the_language_is_told_by_its_own_function_words():
    assert word_language("il numero medio dei dipendenti nel corso dell esercizio".split()) == "it"
    assert word_language("wie viele mitarbeiter hat die firma im jahr".split()) == "de"
    assert Tokenizer().query_tokens("Wie viele Mitarbeiter hat das Unternehmen?") == ["mitarbeit", "unternehm"]
    assert Tokenizer().query_tokens("Сколько сотрудников работает в компании?") == ["сотрудник", "работа", "компан"]
    assert word_language("combien coûte le billet pour paris".split()) == "fr"
    # English words that are another language's function words ("die", "per", "con") tip nothing.
    assert word_language("die casting costs per unit in the plant".split()) is None
    assert word_language("the con artist and the die".split()) is None
    assert word_language("conto economico".split()) is None  # no evidence: the English reading


def test_an_italian_question_meets_its_document_s_words():
    tokens = Tokenizer()
    question = tokens.query_tokens("Quanti dipendenti ha in media la società?")
    assert not {"ha", "in", "la", "quanti"} & set(question)  # function and question words dropped
    sentence = set(tokens.tokens("Il numero medio dei dipendenti nel corso dell'esercizio è stato pari a 58 unità"))
    assert set(question) - sentence == {"societ"}  # "media" and "medio" share their Italian stem


def test_english_text_reads_as_before():
    tokens = Tokenizer()
    assert tokens.tokens("The harbour fees are paid daily in cash, per boat") == ["harbour", "fee", "paid", "daili",
                                                                                  "cash", "per", "boat"]
    assert tokens.query_tokens("How much is the ferry fare for a dog?") == ["ferri", "fare", "dog"]


def test_questions_in_other_languages_ask_for_their_answer_types():
    assert wanted_types("Quanti dipendenti ha in media la società?") == ("number",)
    assert wanted_types("A quanto ammontano i ricavi nel 2022?") == ("number",)
    assert wanted_types("Quando è stato approvato il bilancio?") == ("date",)
    assert wanted_types("Chi è l'amministratore delegato?") == ("who",)
    assert wanted_types("Dove ha sede la società?") == ("where",)
    assert wanted_types("Perché sono aumentati i ricavi?") == ("why",)
    assert wanted_types("Wann wurde die Firma gegründet?") == ("date",)
    assert wanted_types("Combien coûte le billet?") == ("number",)
    assert wanted_types("¿Dónde está la oficina?") == ("where",)
    # English questions that merely hold such a word ask for nothing more.
    assert wanted_types("Where does the dove nest?") == ("where",)
    assert wanted_types("What is the chi-square value?") == ()
    assert "date" in found_types("Il termine scade il 31 dicembre.") and "why" in found_types("è dovuto alle commesse")


def test_a_short_row_is_read_by_a_function_word_english_does_not_write():
    assert word_language("utile perdita dell esercizio".split()) == "it"  # "dell'": Italian only
    assert word_language("totale valore della produzione".split()) == "it"
    assert word_language("war memorial".split()) is None and word_language("la paz".split()) is None
    tokens = Tokenizer()
    assert set(tokens.tokens("21) Utile (perdita) dell'esercizio")) >= set(tokens.query_tokens("Qual è l'utile "
                                                                                                "dell'esercizio?"))
