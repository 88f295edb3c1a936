"""Queries typed as people type them: the collection's word forms restore diacritics, mend slips and complete
clipped words, and understanding keeps pointing into the query as typed."""

import pytest

from serving.query.analyze import understand
from serving.query.typed import Lexicon

TEXTS = [
    "Zaměstnavatel může dát zaměstnanci výpověď. Výpovědní doba činí dva měsíce.",
    "Zkušební doba nesmí být delší než 3 měsíce po dni vzniku pracovního poměru.",
    "Nájemce platí nájemné. Byt je v domě; nájemce bytu nesmí byt užívat jinak.",
    "zaměstnavatele zaměstnavatele zaměstnavatele zaměstnavatele výpověď výpověď",
    "zákoník práce, zákoník práce, zákoníku práce; být být být byt byt byt",
]


@pytest.fixture(scope="module")
def lexicon():
    return Lexicon.from_texts(TEXTS * 3)


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("vypovedni", "výpovědní"),  # no diacritics: the collection's spelling
        ("Zkusebni", "Zkušební"),  # the case as typed
        ("zakoniku", "zákoníku"),
        ("byt", None),  # the collection writes both "byt" and "být": left as typed
        ("výpověď", None),  # already as written
        ("nájemné", None),
    ],
)
def test_diacritics_restored_where_the_collection_is_clear(lexicon, typed, expected):
    assert lexicon.restored(typed) == expected


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("vipoved", "výpověď"),  # one wrong letter (i for y)
        ("zamestnavtele", "zaměstnavatele"),  # one letter missing
        ("zamestn", "zaměstnavatele"),  # clipped: the most common word it begins
        ("xyzw", None),  # nothing close
        ("bit", None),  # short words are left alone
        ("pracovniho", None),  # a word the collection knows
    ],
)
def test_unknown_words_corrected_or_completed(lexicon, typed, expected):
    assert lexicon.corrected(typed) == expected


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("dívka", None),  # typed with diacritics: a word of its own, not a slip of "dávka"
        ("vdát", None),  # not "vydat"
        ("urazím", None),  # not "úrazem"
        ("divka", "dávka"),  # the same word typed without diacritics is still mended by the collection's words
    ],
)
def test_words_typed_with_diacritics_are_not_corrected_into_other_words(typed, expected):
    lexicon = Lexicon.from_texts(["dávka dávka dávka vydat vydat vydat úrazem úrazem úrazem"] * 3)
    assert lexicon.corrected(typed) == expected


def test_understanding_reads_the_retyped_query_and_spans_point_into_the_typed_one(lexicon):
    query = "vypovedni doba podle zakoniku prace"
    found = understand(query, lexicon)
    assert found.normalized == "výpovědní doba podle zákoníku práce"
    assert found.query == query
    plain = understand(query)  # without a lexicon the query is read as typed
    assert plain.normalized == query


def test_a_reference_is_not_retyped(lexicon):
    found = understand("paragraf 52 zakoniku prace", lexicon)
    assert found.normalized.startswith("§ 52 zákoníku práce")
    (entity,) = [e for e in found.entities if e.label == "LAW_REF"]
    assert entity.norm.startswith("262/2006 Sb.")
    assert "paragraf 52 zakoniku prace"[entity.start : entity.end] == entity.text
