"""The spaCy pipeline: offline blank cs, legal tokenizer exceptions, gazetteer ruler, same entities as the regex path."""
import spacy
import pytest

from mendel.ner.pipeline import (NER_NAME, RULER_NAME, build_pipeline, entities_from_doc, load_pipeline,
                                 save_pipeline)
from mendel.ner.rules import extract_entities
from ner_eval.gate import default_gold_path, evaluate_gate
from ner_eval.scorer import load_gold


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline()


@pytest.fixture(scope="module")
def gold():
    return load_gold(default_gold_path())


def test_blank_czech_needs_no_download():
    nlp = spacy.blank("cs")
    assert nlp.lang == "cs" and nlp.pipe_names == []
    assert [t.text for t in nlp("Nejvyšší soud")] == ["Nejvyšší", "soud"]


def test_pipeline_components(nlp):
    assert nlp.lang == "cs"
    assert nlp.pipe_names == [RULER_NAME, NER_NAME]
    assert len(nlp.get_pipe(RULER_NAME).patterns) > 500


@pytest.mark.parametrize("text,tokens", [
    ("§ 5 odst. 1 písm. a) zákona č. 89/2012 Sb.", ["§", "5", "odst.", "1", "písm.", "a", ")", "zákona", "č.", "89/2012", "Sb."]),
    ("sp. zn. 29 Cdo 1/2020 a č. j. 5 As 1/2020", ["sp.", "zn.", "29", "Cdo", "1/2020", "a", "č.", "j.", "5", "As", "1/2020"]),
    ("čl. 36 a Čl. I", ["čl.", "36", "a", "Čl.", "I"]),
    ("sp.zn. a č.j.", ["sp.", "zn.", "a", "č.", "j."]),
])
def test_tokenizer_keeps_legal_abbreviations(nlp, text, tokens):
    assert [t.text for t in nlp.make_doc(text)] == tokens


def test_entities_with_norm_extension(nlp):
    text = "Nejvyšší soud dne 12. 3. 2019 přiznal 1 500 Kč podle § 5 zákona č. 89/2012 Sb. (sp. zn. 22 Cdo 2191/2002)."
    doc = nlp(text)
    assert [(s.text, s.label_, s._.norm) for s in doc.ents] == [
        ("Nejvyšší soud", "INSTITUTION", "Nejvyšší soud"), ("12. 3. 2019", "DATE", "2019-03-12"),
        ("1 500 Kč", "MONEY", "1500 CZK"), ("§ 5 zákona č. 89/2012 Sb.", "LAW_REF", "89/2012 Sb. § 5"),
        ("22 Cdo 2191/2002", "DECISION_REF", "22 Cdo 2191/2002"),
    ]
    assert entities_from_doc(doc) == extract_entities(text)


def test_boundaries_inside_tokens_are_split(nlp):
    text = "3. V§122odst. 3 větě první a od10000Kč do 100 000 Kč"
    doc = nlp(text)
    assert entities_from_doc(doc) == extract_entities(text)
    assert doc.text == text
    assert [s.text for s in doc.ents] == ["§122odst. 3 větě první", "10000Kč", "100 000 Kč"]


def test_same_entities_as_regex_path_on_gold(nlp, gold):
    mismatches = [r["id"] for r in gold if entities_from_doc(nlp(r["text"])) != extract_entities(r["text"])]
    assert mismatches == []


def test_gate_passes_with_the_pipeline(nlp):
    result = evaluate_gate(predict=lambda text: entities_from_doc(nlp(text)))
    assert result.passed, result.failures


def test_round_trip_save_and_spacy_load(tmp_path, nlp, gold):
    path = save_pipeline(tmp_path / "mendel_ner", nlp)
    assert (path / "config.cfg").is_file() and (path / "tokenizer").is_file()
    loaded = spacy.load(path)  # factories are registered by importing mendel.ner.pipeline
    assert loaded.pipe_names == nlp.pipe_names
    assert [t.text for t in loaded.make_doc("odst. 1 písm. b)")] == ["odst.", "1", "písm.", "b", ")"]
    for r in gold[::3]:
        assert entities_from_doc(loaded(r["text"])) == extract_entities(r["text"]), r["id"]
    assert load_pipeline(path).pipe_names == nlp.pipe_names


def test_ruler_patterns_feed_the_entities(tmp_path):
    nlp = build_pipeline()
    text = "Státní úřad pro jadernou bezpečnost vydal povolení."
    assert [e.label for e in entities_from_doc(nlp(text))] == []
    nlp.get_pipe(RULER_NAME).add_patterns([{"label": "INSTITUTION", "pattern": "Státní úřad pro jadernou bezpečnost",
                                            "id": "Státní úřad pro jadernou bezpečnost"}])
    doc = nlp(text)
    assert [(s.text, s.label_, s._.norm) for s in doc.ents] == [
        ("Státní úřad pro jadernou bezpečnost", "INSTITUTION", "Státní úřad pro jadernou bezpečnost")]
    reloaded = spacy.load(save_pipeline(tmp_path / "custom", nlp))  # added patterns are saved with the pipeline
    assert [s._.norm for s in reloaded(text).ents] == ["Státní úřad pro jadernou bezpečnost"]


def test_default_act_from_config_and_doc(nlp):
    text = "podle § 24 odst. 3 platí"
    assert [s._.norm for s in nlp(text).ents] == ["§ 24 odst. 3"]
    doc = nlp.make_doc(text)
    doc._.default_act = "563/1991 Sb."
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    assert [s._.norm for s in doc.ents] == ["563/1991 Sb. § 24 odst. 3"]


def test_empty_and_whitespace_texts(nlp):
    assert entities_from_doc(nlp("")) == []
    assert entities_from_doc(nlp("   \n ")) == []
