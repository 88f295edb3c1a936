"""The municipalities a query names among those whose boards the collection holds (``serving.query.places``)."""

import pytest

from serving.query.places import board_places_named, name_terms

BOARDS = frozenset({"Blešno", "Hranice", "Kadaň", "Most"})


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("svoz odpadu Blešno", ["Blešno"]),  # a bare name, the collection holds its board
        ("Jaký je svozový den odpadu v Blešně v roce 2019?", ["Blešno"]),  # declined, after a preposition
        ("uzavírka Kadaň", ["Kadaň"]),
        ("záměr prodeje Hranice", ["Hranice"]),
        ("Hranice pozemku se sousedem, kdo platí plot", []),  # opens the sentence: perhaps the word
        ("Kdo platí plot? Hranice pozemku", []),
        ("záměr prodeje v Hranicích a uzavírka v Kadani", ["Hranice", "Kadaň"]),
        ("svoz odpadu Přerov", []),  # a municipality whose board the collection does not hold
        ("svoz odpadu v Praze", []),
        ("hranice pozemku se sousedem", []),  # a word, not a name
        ("Kdy se vyváží odpad?", []),
    ],
)
def test_places_named(query, named):
    assert board_places_named(query, BOARDS) == named


def test_no_boards_no_places():
    assert board_places_named("svoz odpadu Blešno", frozenset()) == []


def test_a_names_terms_cover_its_case_forms():
    assert {"kadan"} <= name_terms("Kadaň") and {"prerov", "prer"} <= name_terms("Přerov")  # "Přerově" stems short
