"""Queries typed as people type them: the collection's word forms restore diacritics, mend slips and complete
clipped words, and understanding keeps pointing into the query as typed."""

import pytest

from mendel.czech.folding import fold
from mendel.czech.wordforms import WordForms, czech_word_forms
from serving.query.analyze import understand
from serving.query.typed import Lexicon, slip_kind

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
    ],
)
def test_words_typed_with_diacritics_are_not_corrected_into_other_words(typed, expected):
    lexicon = Lexicon.from_texts(["dávka dávka dávka vydat vydat vydat úrazem úrazem úrazem"] * 3)
    assert lexicon.corrected(typed) == expected


# A law collection's words: each a word one edit away from a real word of the language that it does not write.
NEIGHBOURS = (
    "dávka vydat úrazem psa zákona dani soud nájemce smlouva pojistné mzda obec cena vina sestry hrad "
    "zaměstnavatele výpověď výpovědní zákoníku práce byt být"
)


@pytest.fixture(scope="module")
def language_lexicon():
    return Lexicon.from_texts([NEIGHBOURS] * 5, language=czech_word_forms())


@pytest.mark.parametrize(
    "typed, meant, not_meant",
    [
        ("divka", "dívka", "dávka"),  # a girl, not a benefit
        ("vdat", "vdát", "vydat"),
        ("psat", "psát", "psa"),
        ("zakony", "zákony", "zákona"),
        ("soudy", "soudy", "soud"),
        ("najemci", "nájemci", "nájemce"),
        ("smlouvy", "smlouvy", "smlouva"),
        ("pojistny", "pojistný", "pojistné"),
        ("mzdy", "mzdy", "mzda"),
        ("otec", "otec", "obec"),
        ("zena", "žena", "cena"),
        ("vino", "víno", "vina"),
        ("sestra", "sestra", "sestry"),
        ("hrac", "hráč", "hrad"),
        ("Divka", "Dívka", "Dávka"),  # the case as typed
    ],
)
def test_a_real_word_of_the_language_is_restored_never_edited_into_another(language_lexicon, typed, meant, not_meant):
    changes = language_lexicon.changes(typed)
    retyped = changes[0][2] if changes else typed
    assert retyped == meant
    assert retyped != not_meant
    assert fold(retyped) == typed  # only diacritics: the word is the one typed
    assert language_lexicon.corrected(typed) is None


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("vipoved", "výpověď"),  # no word of the language either: still mended with the collection's words
        ("zamestnavtele", "zaměstnavatele"),
        ("zamestn", "zaměstnavatele"),
        ("zakoniku", "zákoníku"),  # the collection's spelling
        ("byt", None),  # the collection writes both "byt" and "být": its word wins over the language's "být"
    ],
)
def test_the_collection_still_mends_and_decides_where_it_knows_the_word(language_lexicon, typed, expected):
    assert (language_lexicon.restored(typed) or language_lexicon.corrected(typed)) == expected


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("straznyky", "strážníky"),  # neither writes it; the language writes one edit away: its commonest word
        ("tirkolky", "tříkolky"),  # two letters swapped
        ("zamestnavtele", "zaměstnavatele"),  # the collection's word one edit away comes first
        ("zamestn", "zaměstnavatele"),  # ... and a clipped word it begins
        ("xqzvwyk", None),  # nothing near in either
    ],
)
def test_a_slip_the_collection_cannot_mend_is_mended_with_the_languages_words(language_lexicon, typed, expected):
    assert language_lexicon.corrected(typed) == expected


def test_without_the_language_only_the_collection_mends():
    assert Lexicon.from_texts([NEIGHBOURS] * 5).corrected("straznyky") is None


def test_word_forms_restore_only_a_spelling_far_commoner_than_the_plain_one():
    forms = WordForms({"dívka": 3e-5, "divka": 3e-8, "být": 1e-3, "byt": 8e-4, "3d": 1e-5, "Zákon": 1e-6})
    assert forms.restored("divka") == "dívka"
    assert forms.restored("byt") is None  # both common: left as typed
    assert "divka" in forms and "dívka" in forms and "zakon" in forms and "zakony" not in forms
    assert "3d" not in forms  # not a word


def test_a_word_of_the_language_is_known_to_the_lexicon(language_lexicon):
    assert language_lexicon.knows("divka") and language_lexicon.knows("dívka")
    assert not Lexicon.from_texts([NEIGHBOURS] * 5).knows("divka")  # the collection alone does not know it
    assert not language_lexicon.knows("vipoved")


def test_spans_point_into_the_query_as_typed(language_lexicon):
    query = "divka a vipoved"
    assert language_lexicon.changes(query) == [(0, 5, "dívka"), (8, 15, "výpověď")]


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


@pytest.mark.parametrize("query", ["Bles0434/2020", "MUKK/6462/2025 vypoved", "zn. Bles-12a vypoved"])
def test_letters_of_a_reference_number_are_never_mended(query):
    lexicon = Lexicon.from_texts(TEXTS * 3 + ["les lesa lesem v lese, mukk"] * 20)
    assert lexicon.changes("Bles a vypoved") != []  # as a word of its own, "Bles" would be mended
    mended = {query[start:end] for start, end, _ in lexicon.changes(query)}
    assert not mended & {"Bles", "MUKK", "a"}
    assert ("vypoved" in mended) is query.endswith(" vypoved")  # a word beside it still is


# A collection where the common word one slip away is not the word meant: "pojem" is common, but "pozem" is the
# start of the commoner "pozemek"; "výhody" is commoner than "vyhodil", but "vyhodyl" slipped on i/y.
WEIGHED = "pojem pojem pojem pozemku pozemku pozemek pozemní výhody výhody vyhodil nabídl nabídl nabídl"


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("pozem", "pozemku"),  # cut short: the words it begins, together, outweigh the one slip away
        ("vyhodyl", "vyhodil"),  # i and y are one sound: that slip is likelier than a letter too many
        ("nabidl", None),  # a word the collection writes is never mended
        ("nabidly", "nabídl"),  # one letter too many, nothing it begins
    ],
)
def test_a_slip_is_weighed_by_how_often_people_make_it(typed, expected):
    lexicon = Lexicon.from_texts([WEIGHED] * 3)
    assert lexicon.corrected(typed) == expected


def test_the_languages_words_weigh_in_where_a_question_uses_them():
    texts = ["jinou jinou " + "zákon " * 30_000] * 3  # "jinou" a small share of the words, as in a real collection
    lexicon = Lexicon.from_texts(texts, language=czech_word_forms())
    assert lexicon.corrected("jdnou") == "jednou"  # the everyday word, though only the collection's is one slip away
    assert Lexicon.from_texts(texts).corrected("jdnou") == "jinou"  # the collection alone


@pytest.mark.parametrize(
    "typed, meant, kind",
    [
        ("vipoved", "vypoved", "i/y"),
        ("zakn", "zakon", "missing"),
        ("zakoon", "zakon", "extra"),
        ("zakno", "zakon", "swapped"),
        ("zakpn", "zakon", "neighbour key"),  # o and p touch
        ("zakan", "zakon", "wrong"),
    ],
)
def test_slip_kinds(typed, meant, kind):
    assert slip_kind(typed, meant) == kind


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("zapla", "zaplacení"),  # a rare form of the language's long list, typed cut short
        ("zaplaceni", None),  # the whole word: read as typed
        ("nápad", None),  # typed with diacritics
    ],
)
def test_a_rare_known_word_is_read_as_cut_short_when_the_words_it_begins_are_far_likelier(typed, expected):
    lexicon = Lexicon.from_texts(
        ["zaplacení " * 40 + "zaplatit " * 20 + "zákon " * 100] * 3, language=czech_word_forms()
    )
    assert lexicon.knows("zapla")
    assert lexicon.reread(typed) == expected


def test_a_word_in_use_is_never_reread():
    lexicon = Lexicon.from_texts(["trest trest trest trestní " + "trestného " * 50] * 3, language=czech_word_forms())
    assert lexicon.reread("trest") is None  # the collection writes it: a word of its own, however many "trestný"


@pytest.mark.parametrize(
    "texts",
    [
        TEXTS * 3,  # the collection's words, most of them the language's too
        ["qqzzxy " * 5 + "zzzzzz " * 4 + "áááá " * 3 + "zaměstnavatel " * 2],  # forms the language never writes
        [],
        ["byt " * 3],  # a word both write is listed once
    ],
)
def test_the_forms_in_order_are_both_vocabularies_weighed_as_one_word_is(texts):
    language = WordForms({"zaměstnavatel": 1e-4, "byt": 2e-4, "být": 5e-3, "áááá": 1e-9, "zzzzzz": 3e-7})
    lexicon = Lexicon.from_texts(texts, language=language)
    forms = lexicon._forms
    assert forms == sorted(set(lexicon.totals) | set(language.known))
    assert [lexicon.likelihood(form) for form in forms] == lexicon._form_likelihood.tolist()
    assert lexicon._running[-1] == pytest.approx(sum(lexicon._form_likelihood))


def test_a_language_without_forms_leaves_the_collections_own():
    lexicon = Lexicon.from_texts(TEXTS * 3, language=WordForms({}))
    assert lexicon._forms == sorted(lexicon.totals) and lexicon.likelihood("byt") > 0
