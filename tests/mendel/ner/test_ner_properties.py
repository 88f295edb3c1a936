"""Property tests: normalisers and the recognisers never crash on arbitrary Unicode and keep their invariants."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mendel.ner import recognise, recognise_text
from mendel.ner.dates import normalize_date
from mendel.ner.institutions import normalize_institution
from mendel.ner.money import normalize_money
from mendel.ner.rules import LABELS, eli_for

# arbitrary Unicode, and text built from pieces of legal Czech so that the rules actually fire
FRAGMENTS = [
    "§",
    " ",
    "\n",
    "\u00a0",
    "odst. ",
    "písm. a)",
    "č. ",
    "89/2012",
    " Sb.",
    "sp. zn. ",
    "22 Cdo 1/2020",
    "ÚS",
    "12.",
    " 3. ",
    "2019",
    "března ",
    "březen ",
    "–",
    " až ",
    "1 500",
    ",50",
    ",-",
    " Kč",
    "EUR ",
    " mil.",
    "Nejvyššího soudu",
    " v Brně",
    "Ministerstvem financí",
    " ČR",
    "obce Blešno",
    "v ",
    "MÚ",
    "Sb. NSS",
    "2024-12-19",
    "0",
    "9",
    "/",
    ".",
    ",",
    "(",
    ")",
    "„",
    "“",
    "\u00ad",
    "𝔘",
    "٣",
]
LEGALISH = st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=300), LEGALISH)
COMMON = settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@COMMON
@given(ANY_TEXT)
def test_normalisers_never_crash(text):
    for normalise in (normalize_date, normalize_money, normalize_institution, eli_for):
        result = normalise(text)
        assert result is None or isinstance(result, str)


@COMMON
@given(ANY_TEXT)
def test_recognise_invariants(text):
    ents = recognise_text(text)
    assert all(text[e.start : e.end] == e.text and e.end > e.start for e in ents)
    assert all(a.end <= b.start for a, b in zip(ents, ents[1:]))
    assert all(e.label in LABELS for e in ents)


@COMMON
@given(ANY_TEXT, st.one_of(st.none(), st.text(max_size=20)))
def test_recognise_with_default_act(text, default_act):
    for e in recognise_text(text, default_act=default_act):
        assert text[e.start : e.end] == e.text


@COMMON
@given(LEGALISH)
def test_recognised_surfaces_normalise_alone(text):
    """A DATE / MONEY surface normalises on its own to the norm it got in context."""
    for e in recognise_text(text):
        if e.label == "DATE":
            assert normalize_date(e.text) == e.norm
        elif e.label == "MONEY":
            assert normalize_money(e.text) == e.norm


@COMMON
@given(ANY_TEXT)
def test_doc_ents_are_the_entities(text):
    """The pipeline's ``doc.ents`` (token spans) are the entities it returns (character spans)."""
    from mendel.ner.component import shared_pipeline

    doc = shared_pipeline()(text)
    assert doc.text == text
    assert [(s.start_char, s.end_char, s.label_, s._.norm) for s in doc.ents] == [
        (e.start, e.end, e.label, e.norm) for e in doc._.entities or []
    ]


@COMMON
@given(st.lists(ANY_TEXT, max_size=6), st.one_of(st.none(), st.sampled_from(["563/1991 Sb.", "89/2012 Sb."])))
def test_a_batch_equals_its_texts_one_by_one(texts, default_act):
    assert recognise(texts, default_act=default_act) == [recognise_text(t, default_act) for t in texts]


NAME_FRAGMENTS = [
    "Krajský",
    "Krajského",
    " soud",
    " soudu",
    "\n",
    " ",
    "Nejvyššího",
    "Nejvyssiho",
    "Ministerstvo",
    " financí",
    "Magistrát",
    " hlavního",
    " města Prahy",
    "1)",
    "§",
    "/",
    ".",
    "-",
    "„",
    "(",
    "a",
    "2",
    "Úřad",
    " vlády",
    "úřad",
    "Obecní",
    " Blešno",
    "_",
    "’",
    "ČR",
]


@COMMON
@given(st.one_of(st.text(max_size=200), st.lists(st.sampled_from(NAME_FRAGMENTS), max_size=40).map("".join)))
def test_name_finder_finds_what_the_whole_gazetteer_regex_finds(text):
    """Trying the names only where a first word stands gives the very matches of a scan at every position."""
    from mendel.ner.institutions import _compiled, _name_matches

    assert [(m.span(), m.lastgroup) for m in _name_matches(text)] == [
        (m.span(), m.lastgroup) for m in _compiled().name_re.finditer(text)
    ]
