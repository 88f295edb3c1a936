"""The gold annotations (ner_eval/gold/annotations.yaml) and their builder: validation, offsets, near-duplicates."""

import json
import random

import pytest
import yaml

from ner_eval import build_gold
from ner_eval.build_gold import GoldError, build_lines, containment, lcs_length, locate, near_duplicates
from ner_eval.gate import load_thresholds

TEXT = "Podle § 5 zákona č. 89/2012 Sb. a § 5 odst. 2 zaplatí 1 500 Kč do 12. 3. 2019 Nejvyššímu soudu."


def record(*entities, **fields):
    return {"id": "r1", "source": "sample_corpus/x.pdf", "text": TEXT, "entities": list(entities), **fields}


def entity(surface, label="LAW_REF", norm=None, **extra):
    return {"surface": surface, "label": label, "norm": norm if norm is not None else surface, **extra}


def test_offsets_follow_text_order_and_occurrence():
    located = locate(
        record(
            entity("§ 5"),
            entity("zákona č. 89/2012 Sb.", norm="89/2012 Sb."),
            entity("§ 5 odst. 2"),
            entity("1 500 Kč", "MONEY", "1500 CZK"),
            entity("12. 3. 2019", "DATE", "2019-03-12"),
            entity("Nejvyššímu soudu", "INSTITUTION", "Nejvyšší soud"),
        )
    )
    assert [TEXT[e["start"] : e["end"]] for e in located] == [e["text"] for e in located]
    assert [e["start"] for e in located] == sorted(e["start"] for e in located)
    # "§ 5" twice: the second entity of that surface is found after the first one, or named by its occurrence
    second = locate(record(entity("§ 5", occurrence=2)))[0]
    assert second["start"] == TEXT.index("§ 5", TEXT.index("§ 5") + 1)
    assert locate(record(entity("§ 5"), entity("§ 5")))[1] == second


@pytest.mark.parametrize(
    "bad_record,message",
    [
        (record(entity("§ 7")), r"entity 1 \('§ 7'\): surface not in the text"),
        (
            record(entity("§ 5 odst. 2"), entity("zákona č. 89/2012 Sb.", norm="89/2012 Sb.")),
            r"entity 2 .*not after offset \d+, where the previous entity ends",
        ),
        (record(entity("§ 5", "LAW")), r"unknown label 'LAW' \(known: LAW_REF, DECISION_REF"),
        (record(entity("12. 3. 2019", "DATE", "12. 3. 2019")), r"norm '12. 3. 2019' does not fit the DATE format"),
        (record(entity("12. 3. 2019", "DATE", "2019-3-12")), r"does not fit the DATE format"),
        (record(entity("1 500 Kč", "MONEY", "1 500 CZK")), r"norm '1 500 CZK' does not fit the MONEY format"),
        (record(entity("1 500 Kč", "MONEY", "1500.50 Kč")), r"does not fit the MONEY format"),
        (record(entity("1 500 Kč", "MONEY", "1500.00 CZK")), r"does not fit the MONEY format"),  # whole: no fraction
        (record(entity("1 500 Kč", "MONEY", "1500.5 CZK")), r"does not fit the MONEY format"),  # two digits at least
        (record(entity("Nejvyššímu soudu", "INSTITUTION", "Nejvyšší  soud")), r"does not fit the INSTITUTION format"),
        (record(entity("§ 5 odst. 2", norm="§ 5\nodst. 2")), r"does not fit the LAW_REF format"),
        (record(dict(entity("§ 5"), norm=None)), r"norm None does not fit the LAW_REF format"),
        (record(entity("§ 5", occurrence=3)), r"occurrence 3, but the text has 2"),
        (
            record(entity("§ 5 odst. 2"), entity("§ 5", occurrence=1)),
            r"occurrence 1 starts at \d+, before the previous",
        ),
        (record(entity("§ 5", start=6)), r"unknown keys \['start'\]"),
        (record(entity("")), r"surface must be a non-empty string"),
        (record(["§ 5", "LAW_REF", "§ 5"]), r"entity 1: expected \{surface, label, norm\}"),
        (record(source=""), r"r1: source document missing"),
        (record(note="x"), r"record keys are"),
        (record(entities=None), r"entities must be a list"),
        (record(text=""), r"text must be a non-empty string"),
    ],
)
def test_annotation_mistakes_fail_with_a_clear_message(bad_record, message):
    with pytest.raises(GoldError, match=message):
        build_lines([bad_record])


def test_duplicate_ids_and_records_without_id_fail():
    with pytest.raises(GoldError, match="r1: duplicate record id"):
        build_lines([record(), record()])
    with pytest.raises(GoldError, match="record 2: not a mapping with an id"):
        build_lines([record(), {"text": TEXT}])


def test_norm_formats_cover_exactly_the_gated_labels():
    assert set(build_gold.NORM_FORMATS) == set(load_thresholds())


def test_annotations_build_the_committed_gold_file():
    assert build_lines() == build_gold.GOLD_PATH.read_text(encoding="utf-8").splitlines()


def test_builder_refuses_near_duplicates(tmp_path, capsys):
    annotations, out = tmp_path / "annotations.yaml", tmp_path / "gold.jsonl"
    twins = [record(), record(id="r2", text=TEXT.replace("12. 3. 2019", "14. 3. 2019"))]
    annotations.write_text(yaml.safe_dump(twins, allow_unicode=True), encoding="utf-8")
    assert build_gold.main(annotations, out) == 1
    assert "r1 ~ r2: similarity 0.99" in capsys.readouterr().err and not out.exists()
    annotations.write_text(yaml.safe_dump(twins[:1], allow_unicode=True), encoding="utf-8")
    assert build_gold.main(annotations, out) == 0
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["r1"]


PASSAGE = (
    "Nejvyšší soud jako soud dovolací rozhodl v senátě složeném z předsedy senátu a soudců "
    "ve věci žalobkyně proti žalovanému o zaplacení částky, o dovolání žalovaného proti rozsudku"
)


@pytest.mark.parametrize(
    "first,second,similar,contained",
    [
        (PASSAGE, PASSAGE, True, True),
        # another version of the passage; line breaks instead of spaces are no difference
        (PASSAGE, PASSAGE.replace(" ", "\n").replace("soudců", "soudkyň"), True, True),
        # templated notice titles: similar, but no common passage of 20 characters
        (
            "Město Kadaň - Výzva k odstranění vozidla - 7J1 2989",
            "Město Kadaň - Výzvy k odstranění vozidel - 10.2.2025",
            True,
            False,
        ),
        # a short passage lying inside a longer record: its mentions would be scored twice
        (PASSAGE[:120], f"Úvod. {PASSAGE} Dále text, který kratší záznam nemá, a ještě mnohem víc.", False, True),
        (PASSAGE[:60], PASSAGE[60:], False, False),  # two halves of one passage share nothing
        ("Město Kadaň - Smlouva o dílo", "Obec Blešno - Smlouva o dílo", False, False),  # a shared phrase only
    ],
)
def test_near_duplicates_by_similarity_or_containment(first, second, similar, contained):
    found = near_duplicates([{"id": "a", "text": first}, {"id": "b", "text": second}])
    assert len(found) == (similar or contained), found
    if found:
        pair = found[0]
        assert (pair.first, pair.second) == ("a", "b")
        assert (pair.similarity >= 0.8, pair.containment >= 0.8) == (similar, contained)


def test_containment_counts_only_shared_passages():
    assert containment(PASSAGE[:100], PASSAGE) == 1.0
    assert containment(PASSAGE[:100], PASSAGE[50:]) == pytest.approx(0.5)
    assert containment("x" * 19, "x" * 40) == 0.0  # shorter than a passage


def _lcs_reference(a, b):
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def test_lcs_length_matches_dynamic_programming():
    rng = random.Random(7)
    for _ in range(200):
        a = "".join(rng.choice("abč ") for _ in range(rng.randint(0, 30)))
        b = "".join(rng.choice("abčd") for _ in range(rng.randint(0, 30)))
        assert lcs_length(a, b) == _lcs_reference(a, b), (a, b)


def test_no_two_gold_records_share_most_of_their_text():
    assert near_duplicates(build_gold.load_annotations()) == []
