"""The one NER path: ``mendel.ner.recognise`` over a blank Czech spaCy pipeline whose components are the rule
finders (no model download), its tokenizer, ``doc.ents``, batching and per-text default acts."""

import pytest
import spacy

from mendel.ner import recognise, recognise_text
from mendel.ner.component import FINDERS, NER_NAME, build_pipeline, shared_pipeline
from ner_eval.gate import evaluate_gate


@pytest.fixture(scope="module")
def nlp():
    return shared_pipeline()


def test_blank_czech_needs_no_download():
    nlp = spacy.blank("cs")
    assert nlp.lang == "cs" and nlp.pipe_names == []
    assert [t.text for t in nlp("Nejvyšší soud")] == ["Nejvyšší", "soud"]


def test_pipeline_is_blank_czech_with_the_rule_components(nlp):
    assert nlp.lang == "cs"
    assert nlp.pipe_names == [*FINDERS, NER_NAME]
    assert not any(getattr(proc, "is_trainable", False) for _, proc in nlp.pipeline)  # rules only, no weights
    assert nlp.meta["name"] == "pipeline"  # built here, not loaded from a package such as cs_core_news_sm
    assert shared_pipeline() is nlp  # built once per process


@pytest.mark.parametrize(
    "text,tokens",
    [
        (
            "§ 5 odst. 1 písm. a) zákona č. 89/2012 Sb.",
            ["§", "5", "odst.", "1", "písm.", "a", ")", "zákona", "č.", "89/2012", "Sb."],
        ),
        (
            "sp. zn. 29 Cdo 1/2020 a č. j. 5 As 1/2020",
            ["sp.", "zn.", "29", "Cdo", "1/2020", "a", "č.", "j.", "5", "As", "1/2020"],
        ),
        ("čl. 36 a Čl. I", ["čl.", "36", "a", "Čl.", "I"]),
        ("sp.zn. a č.j.", ["sp.", "zn.", "a", "č.", "j."]),
    ],
)
def test_tokenizer_keeps_legal_abbreviations(nlp, text, tokens):
    assert [t.text for t in nlp.make_doc(text)] == tokens


def test_entities_with_norm_extension(nlp):
    text = "Nejvyšší soud dne 12. 3. 2019 přiznal 1 500 Kč podle § 5 zákona č. 89/2012 Sb. (sp. zn. 22 Cdo 2191/2002)."
    doc = nlp(text)
    expected = [
        ("Nejvyšší soud", "INSTITUTION", "Nejvyšší soud"),
        ("12. 3. 2019", "DATE", "2019-03-12"),
        ("1 500 Kč", "MONEY", "1500 CZK"),
        ("§ 5 zákona č. 89/2012 Sb.", "LAW_REF", "89/2012 Sb. § 5"),
        ("22 Cdo 2191/2002", "DECISION_REF", "22 Cdo 2191/2002"),
    ]
    assert [(s.text, s.label_, s._.norm) for s in doc.ents] == expected
    assert [(e.text, e.label, e.norm) for e in doc._.entities] == expected
    assert recognise_text(text) == doc._.entities


def test_boundaries_inside_tokens_are_split(nlp):
    text = "3. V§122odst. 3 větě první a od10000Kč do 100 000 Kč"
    doc = nlp(text)
    assert doc.text == text
    assert [s.text for s in doc.ents] == ["§122odst. 3 větě první", "10000Kč", "100 000 Kč"]
    assert [(e.start, e.end) for e in recognise_text(text)] == [(s.start_char, s.end_char) for s in doc.ents]


def test_a_batch_is_recognised_text_by_text():
    texts = ["podle § 24 odst. 3 platí", "", "Krajský soud v Brně", None, "zákon č. 89/2012 Sb."]
    found = recognise(texts, batch_size=2)
    assert len(found) == len(texts)
    assert found == [recognise_text(t) for t in texts]
    assert found[1] == found[3] == []
    assert [e.norm for e in found[2]] == ["Krajský soud v Brně"]


@pytest.mark.parametrize(
    "default_act,norms",
    [
        (None, ["§ 24 odst. 3", "§ 5"]),
        ("563/1991 Sb.", ["563/1991 Sb. § 24 odst. 3", "563/1991 Sb. § 5"]),
        (["563/1991 Sb.", None], ["563/1991 Sb. § 24 odst. 3", "§ 5"]),  # one act per text
    ],
)
def test_default_act_for_all_texts_or_per_text(default_act, norms):
    found = recognise(["podle § 24 odst. 3 platí", "viz § 5"], default_act=default_act)
    assert [e.norm for entities in found for e in entities] == norms


def test_default_act_on_a_doc(nlp):
    doc = nlp.make_doc("podle § 24 odst. 3 platí")
    doc._.default_act = "563/1991 Sb."
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    assert [s._.norm for s in doc.ents] == ["563/1991 Sb. § 24 odst. 3"]


def test_one_default_act_per_text_or_none():
    with pytest.raises(ValueError):
        recognise(["a", "b"], default_act=["563/1991 Sb."])


def test_empty_and_whitespace_texts(nlp):
    assert recognise_text("") == [] and recognise_text("   \n ") == []
    assert list(nlp("   \n ").ents) == []


def test_institution_names_come_from_the_versioned_pattern_file(monkeypatch):
    from mendel.ner import institutions, patterns

    text = "Rozhodl Státní úřad pro jadernou bezpečnost."
    assert [e.label for e in recognise_text(text)] == []
    file_patterns = patterns.load_patterns()
    assert patterns.bundled_patterns_path().name == f"institutions.v{institutions.load_gazetteer().version}.jsonl"
    added = {"label": "INSTITUTION", "pattern": "Státní úřad pro jadernou bezpečnost", "id": "Nejvyšší soud"}
    monkeypatch.setattr(patterns, "load_patterns", lambda: [*file_patterns, added])
    institutions._compiled.cache_clear()
    try:
        assert [(e.text, e.norm) for e in recognise_text(text)] == [
            ("Státní úřad pro jadernou bezpečnost", "Nejvyšší soud")
        ]
    finally:
        monkeypatch.undo()
        institutions._compiled.cache_clear()
    assert recognise_text(text) == []


def test_gate_passes_with_the_pipeline():
    result = evaluate_gate()
    assert result.passed, result.failures


def test_the_shared_pipeline_is_rebuilt_when_its_vocabulary_grows_too_large(monkeypatch):
    from mendel.ner import component

    recognise_text("Nejvyšší soud")
    before = shared_pipeline()
    monkeypatch.setattr(component, "MAX_VOCABULARY_STRINGS", len(before.vocab.strings) + 5)
    recognise_text(" ".join(f"slovo{n}" for n in range(10)))  # ten new strings
    assert shared_pipeline() is before  # grown past the limit, but rebuilt only at the next call
    assert recognise_text("Nejvyšší soud")[0].norm == "Nejvyšší soud"
    assert shared_pipeline() is not before and len(shared_pipeline().vocab.strings) < len(before.vocab.strings)


def test_build_pipeline_makes_a_new_one():
    fresh = build_pipeline()
    assert fresh is not shared_pipeline() and fresh.pipe_names == shared_pipeline().pipe_names
    text = "podle § 5 odst. 2 zákona č. 89/2012 Sb."
    assert fresh(text)._.entities == recognise_text(text) != []
