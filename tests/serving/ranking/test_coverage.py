"""The coverage block's governing acts: the act a plain question is governed by, with its status in the
collection, a Czech message when it is missing, and the answer weak then (no bundle needed)."""

from serving.query.analyze import understand
from serving.query.governing import governing_acts
from serving.ranking.coverage import CollectionIndex, Confidence, Floor, coverage_report, judge

DOCUMENTS = {
    "/eli/cz/sb/2025/175": {
        "doc_id": "/eli/cz/sb/2025/175",
        "citation": "175/2025 Sb.",
        "title": "Zákon o podpoře bydlení",
    }
}


def _coverage(question: str) -> dict:
    return coverage_report(question, understand(question), CollectionIndex(DOCUMENTS), governing_acts(question))


def test_a_missing_governing_act_is_said_in_czech_and_makes_the_answer_weak():
    coverage = _coverage("Jak dlouhá může být zkušební doba?")
    (item,) = coverage["missing"]
    assert item["governing"] and item["id"] == "262/2006 Sb." and item["area"] == "zkušební doba"
    assert item["message"] == "zákoník práce (262/2006 Sb.) není v kolekci"
    assert coverage["governing_missing"] and not coverage["all_missing"]  # the query itself names nothing
    strong = Confidence(lexical=0.9, dense=0.9)
    assert judge(strong, Floor(lexical=0.1), None, coverage)["weak"]


def test_a_held_governing_act_is_listed_and_the_answer_judged_by_the_floor():
    coverage = _coverage("Kdo může požádat o podporu bydlení?")
    assert [(i["id"], i["status"]) for i in coverage["named"] if i.get("governing")] == [("175/2025 Sb.", "indexed")]
    assert coverage["missing"] == [] and not coverage["governing_missing"]
    assert not judge(Confidence(lexical=0.9, dense=0.9), Floor(lexical=0.1), None, coverage)["weak"]
