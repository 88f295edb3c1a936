"""Property tests: normalisers and the recognisers never crash on arbitrary Unicode and keep their invariants."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mendel.ner.dates import normalize_date
from mendel.ner.institutions import normalize_institution
from mendel.ner.money import normalize_money
from mendel.ner.rules import LABELS, eli_for, extract_entities

# arbitrary Unicode, and text built from pieces of legal Czech so that the rules actually fire
FRAGMENTS = ["§", " ", "\n", "\u00a0", "odst. ", "písm. a)", "č. ", "89/2012", " Sb.", "sp. zn. ", "22 Cdo 1/2020", "ÚS",
             "12.", " 3. ", "2019", "března ", "březen ", "–", " až ", "1 500", ",50", ",-", " Kč", "EUR ", " mil.",
             "Nejvyššího soudu", " v Brně", "Ministerstvem financí", " ČR", "obce Blešno", "v ", "MÚ", "Sb. NSS",
             "2024-12-19", "0", "9", "/", ".", ",", "(", ")", "„", "“", "\u00ad", "𝔘", "٣"]
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
def test_extract_entities_invariants(text):
    ents = extract_entities(text)
    assert all(text[e.start:e.end] == e.text and e.end > e.start for e in ents)
    assert all(a.end <= b.start for a, b in zip(ents, ents[1:]))
    assert all(e.label in LABELS for e in ents)


@COMMON
@given(ANY_TEXT, st.one_of(st.none(), st.text(max_size=20)))
def test_extract_entities_with_default_act(text, default_act):
    for e in extract_entities(text, default_act=default_act):
        assert text[e.start:e.end] == e.text


@COMMON
@given(LEGALISH)
def test_recognised_surfaces_normalise_alone(text):
    """A DATE / MONEY surface normalises on its own to the norm it got in context."""
    for e in extract_entities(text):
        if e.label == "DATE":
            assert normalize_date(e.text) == e.norm
        elif e.label == "MONEY":
            assert normalize_money(e.text) == e.norm


_NLP = None


@settings(max_examples=80, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT)
def test_spacy_pipeline_never_crashes_and_matches(text):
    global _NLP
    if _NLP is None:
        from mendel.ner.pipeline import build_pipeline
        _NLP = build_pipeline()
    from mendel.ner.pipeline import entities_from_doc
    doc = _NLP(text)
    assert doc.text == text
    assert entities_from_doc(doc) == extract_entities(text)
