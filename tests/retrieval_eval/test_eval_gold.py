"""Gold that names what answers a question (an act's provision, a decision, a municipality's document, the act
governing an unanswerable question): the verdicts on synthetic hits and whether a synthetic bundle holds the gold.
No search and no real bundle."""

import pytest

from retrieval_eval.gold import (
    GroundTruth,
    act_of,
    alternatives,
    item_errors,
    names_act,
    provision_key,
    provisions_of,
)
from retrieval_eval.retrieval import gold_size, is_relevant, judge

OZ = "89/2012 Sb."
NAJEM = {"act": OZ, "provision": "§ 2235"}


def passage(doc="/eli/cz/sb/2012/89", citation=OZ, section="", text="", **extra):
    return {"doc_id": doc, "page": 1, "page_end": 1, "citation": citation, "section": section, "text": text, **extra}


@pytest.mark.parametrize(
    "text, key",
    [
        ("§ 2235", ("§", "2235")),
        ("§2235a Nájem bytu", ("§", "2235a")),
        ("§ 12 odst. 3 písm. a)", ("§", "12")),
        ("par_12-odst_3", ("§", "12")),
        ("čl. 5", ("čl", "5")),
        ("Článek 57", ("čl", "57")),
        ("cl_5", ("čl", "5")),
        ("Čl. IV", ("čl", "IV")),
        ("ČÁST ČTVRTÁ", None),
        ("Díl 2", None),
        ("", None),
    ],
)
def test_provision_key(text, key):
    assert provision_key(text) == key


def test_provisions_of_reads_the_path_the_field_and_heading_lines():
    hit = passage(section="ČÁST ČTVRTÁ > HLAVA II > Díl 2 > § 2234", text="… konec.\n§ 2235\n(1) Nájem bytu …")
    assert provisions_of(hit) == {("§", "2234"), ("§", "2235")}
    assert provisions_of(passage(provision="§ 2254 odst. 1")) == {("§", "2254")}
    # a reference inside a sentence is not the provision's heading
    assert provisions_of(passage(text="podle § 2235 a násl. se použije")) == set()


@pytest.mark.parametrize(
    "hit, act",
    [
        (passage(), OZ),
        (passage(citation="89/2012 Sb. § 2079"), OZ),
        (passage(doc="/eli/cz/sb/2012/89/2025-07-01", citation=None), OZ),
        (passage(doc="x", citation=None, title="Zákon č. 40/2009 Sb., trestní zákoník"), "40/2009 Sb."),
        # an amending act is itself, never the act it amends
        (
            passage(doc="x", citation=None, title="Zákon č. 270/2025 Sb., kterým se mění zákon č. 40/2009 Sb."),
            "270/2025 Sb.",
        ),
        (passage(doc="rozhodnuti-11_Tz_117_2005", citation="11 Tz 117/2005"), None),
    ],
)
def test_act_of(hit, act):
    assert act_of(hit) == act


def test_act_of_reads_the_hits_document_record():
    documents = {"d1": {"doc_id": "d1", "citation": "40/2009 Sb.", "title": "trestní zákoník"}}
    assert act_of(passage(doc="d1", citation=None), documents) == "40/2009 Sb."


@pytest.mark.parametrize(
    "hit, gold, relevant",
    [
        (passage(section="ČÁST ČTVRTÁ > § 2235"), NAJEM, True),
        (passage(section="§ 2235a"), NAJEM, False),  # another provision
        (passage(section="§ 22"), NAJEM, False),  # a prefix of the number
        (passage(section="§ 2236"), NAJEM, False),  # the neighbour
        (passage(citation="40/2009 Sb.", doc="/eli/cz/sb/2009/40", section="§ 2235"), NAJEM, False),  # another act
        (passage(section="§ 2234", text="konec.\n§ 2235\nNájem bytu"), NAJEM, True),  # the provision opens here
        (passage(section="§ 2234", text="jako v § 2235 odst. 1"), NAJEM, False),
        (passage(section="§ 1"), {"act": OZ}, True),  # act-level gold: any passage of the act
        (
            passage(citation="1/1993 Sb.", doc="/eli/cz/sb/1993/1", section="HLAVA TŘETÍ > Čl. 62"),
            {"act": "1/1993 Sb.", "provision": "čl. 62"},
            True,
        ),
    ],
)
def test_provision_gold(hit, gold, relevant):
    assert is_relevant(hit, gold) is relevant


def test_alternatives_count_as_one_gold_item():
    gold = [NAJEM, {"act": OZ, "provision": "§ 2236"}]
    hits = [passage(section="§ 1"), passage(section="§ 2236"), passage(section="§ 2235")]
    assert alternatives(gold) and gold_size(gold) == 1
    assert judge(hits, gold) == [frozenset(), frozenset({0}), frozenset({0})]
    passage_gold = [{"doc_id": "D", "page": 1, "evidence": "x"}, {"doc_id": "E", "page": 1, "evidence": "y"}]
    assert not alternatives(passage_gold) and gold_size(passage_gold) == 2


@pytest.mark.parametrize(
    "hit, number, relevant",
    [
        ({"doc_id": "n1", "citation": "11 Tz 117/2005"}, "11 Tz 117/2005", True),
        ({"doc_id": "n1", "citation": "11 TZ 117/2005"}, "11 Tz 117/2005", True),
        ({"doc_id": "rozhodnuti-11_Tz_117_2005", "citation": None}, "11 Tz 117/2005", True),
        ({"doc_id": "ECLI:CZ:NS:2005:11.TZ.117.2005.1"}, "11 Tz 117/2005", True),
        ({"doc_id": "n2", "citation": "111 Tz 117/2005"}, "11 Tz 117/2005", False),
        ({"doc_id": "n2", "title": "11 Tz 117/20051"}, "11 Tz 117/2005", False),
        ({"doc_id": "us1", "title": "Nález I. ÚS 689/05"}, "I. ÚS 689/05", True),
        ({"doc_id": "us2", "title": "Nález II. ÚS 689/05"}, "I. ÚS 689/05", False),
        ({"doc_id": "us1", "citation": "I.ÚS 689/05"}, "I. ÚS 689/05", True),
    ],
)
def test_decision_gold(hit, number, relevant):
    assert is_relevant(hit, {"file_number": number}) is relevant


DOCUMENTS = {
    "k1": {"doc_id": "k1", "title": "Oznámení o době a místě konání voleb", "obec": "Kadaň"},
    "k2": {"doc_id": "k2", "title": "Veřejná vyhláška", "obec": "Kadaň"},
    "h1": {"doc_id": "h1", "title": "Oznámení o době a místě konání voleb", "obec": "Hranice"},
    "b1": {"doc_id": "b1", "title": "svozový plán pro rok 2019"},
    "a1": {
        "doc_id": "a1",
        "title": "priloha.pdf",
        "obec": "Kadaň",
        "notice": {"title": "Návrh rozpočtu města na rok 2024", "url": "https://www.mesto-kadan.cz/n/1"},
    },
}


@pytest.mark.parametrize(
    "hit, gold, relevant",
    [
        ({"doc_id": "k1"}, {"place": "Kadaň", "title_any": ["voleb"]}, True),
        ({"doc_id": "k2"}, {"place": "Kadaň", "title_any": ["voleb"]}, False),  # the place, not the topic
        ({"doc_id": "h1"}, {"place": "Kadaň", "title_any": ["voleb"]}, False),  # the topic, not the place
        ({"doc_id": "k2"}, {"place": "Kadan", "title_any": []}, True),  # no words: any document of the place
        # no board place: the place in the address, the words in the address or title, diacritics folded
        (
            {"doc_id": "b1", "url": "https://obec-blesno.mirror.test/assets/articles/svoz-odpadu-2019/plan.pdf"},
            {"place": "Blešno", "title_any": ["svoz"]},
            True,
        ),
        ({"doc_id": "b1", "url": "https://jinde.test/svoz.pdf"}, {"place": "Blešno", "title_any": ["svoz"]}, False),
        ({"doc_id": "a1"}, {"place": "Kadaň", "title_any": ["rozpočet", "rozpočtu"]}, True),  # the notice's title
    ],
)
def test_notice_gold(hit, gold, relevant):
    assert is_relevant(hit, gold, DOCUMENTS) is relevant


def test_names_act_finds_the_governing_act_as_not_held():
    missing = {"named": [], "missing": [{"kind": "act", "id": "262/2006 Sb.", "status": "missing"}]}
    cited = {"named": [{"kind": "act", "id": "262/2006  Sb.", "status": "cited", "amended_by": []}]}
    held = {"named": [{"kind": "act", "id": "262/2006 Sb.", "status": "indexed"}]}
    governing = {"governing": [{"citation": "262/2006 Sb.", "held": False, "message": "není v kolekci"}]}
    assert names_act(missing, "262/2006 Sb.") and names_act(cited, "262/2006 Sb.")
    assert names_act(governing, "262/2006 Sb.")
    assert not names_act(held, "262/2006 Sb.")
    assert not names_act(missing, "235/2004 Sb.") and not names_act({}, "262/2006 Sb.")
    assert not names_act({"governing": [{"citation": "262/2006 Sb.", "held": True}]}, "262/2006 Sb.")


@pytest.mark.parametrize(
    "item, ok",
    [
        ({"act": OZ, "provision": "§ 2235"}, True),
        ({"act": OZ}, True),
        ({"act": "občanský zákoník", "provision": "§ 2235"}, False),
        ({"act": OZ, "provision": "odst. 2"}, False),
        ({"file_number": "11 Tz 117/2005"}, True),
        ({"file_number": " / "}, False),
        ({"place": "Blešno", "title_any": ["svoz"]}, True),
        ({"place": "", "title_any": []}, False),
        ({"unanswerable": True, "governing_act": "262/2006 Sb."}, True),
        ({"unanswerable": True, "governing_act": "zákoník práce"}, False),
        ({"something": 1}, False),
    ],
)
def test_item_errors(item, ok):
    assert (item_errors(item) == []) is ok


def _bundle():
    chunks = [
        passage(section="ČÁST ČTVRTÁ > § 2235", text="Nájem bytu"),
        passage(section="§ 2254", text="jistota"),
        {"doc_id": "n1", "citation": "11 Tz 117/2005", "page_start": 1, "page_end": 1, "section": "", "text": "x"},
    ]
    for c in chunks:
        c.setdefault("page_start", 1)
    documents = {
        "/eli/cz/sb/2012/89": {"doc_id": "/eli/cz/sb/2012/89", "citation": OZ, "title": "občanský zákoník"},
        "n1": {"doc_id": "n1", "citation": "11 Tz 117/2005", "title": "11 Tz 117/2005"},
        **DOCUMENTS,
    }
    return chunks, documents


def test_ground_truth_leaves_out_gold_the_bundle_does_not_hold():
    chunks, documents = _bundle()
    truth = GroundTruth(chunks, documents)
    questions = [
        {"id": "held", "gold": [NAJEM]},
        {"id": "one-of-two", "gold": [{"act": "40/2009 Sb.", "provision": "§ 205"}, {"act": OZ, "provision": "§ 1"}]},
        {"id": "no-act", "gold": [{"act": "40/2009 Sb.", "provision": "§ 205"}]},
        {"id": "decision", "gold": [{"file_number": "11 Tz 117/2005"}]},
        {"id": "no-decision", "gold": [{"file_number": "7 Tdo 1/2020"}]},
        {"id": "notice", "gold": [{"place": "Kadaň", "title_any": ["voleb"]}]},
        {"id": "no-place", "gold": [{"place": "Blešno", "title_any": ["stočné"]}]},
        {"id": "na", "expect": "not_in_collection", "gold": [{"unanswerable": True, "governing_act": "262/2006 Sb."}]},
        {"id": "na-held", "expect": "not_in_collection", "gold": [{"unanswerable": True, "governing_act": OZ}]},
    ]
    errors = truth.errors(questions)
    assert [e.split(":")[0] for e in errors] == ["no-act", "no-decision", "no-place", "na-held"]
    # the act is held but no passage carries the gold provision: scored, and listed
    warnings = truth.warnings(questions[:3])
    assert [w.split(":")[0] for w in warnings] == ["one-of-two"]


def test_ground_truth_still_checks_passage_gold():
    chunks = [{"doc_id": "D", "page_start": 2, "page_end": 3, "text": "a Sazba základní náhrady b"}]
    gold = {"doc_id": "D", "page": 3, "evidence": "sazba základní"}
    truth = GroundTruth(chunks, ["D"])
    assert truth.errors([{"id": "ok", "gold": [gold]}]) == []
    assert truth.errors([{"id": "bad", "gold": [{**gold, "page": 9}]}])[0].startswith("bad")
