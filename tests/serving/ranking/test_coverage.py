"""The coverage block's governing acts: the act a plain question is governed by, with its status in the
collection, a Czech message when it is missing, and the answer weak then (no bundle needed)."""

import pytest

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
# acts the whole-corpus collection holds: the ones lay questions below are governed by when they are answerable
HELD = {
    f"/eli/cz/sb/{year}/{number}": {"doc_id": f"/eli/cz/sb/{year}/{number}", "citation": f"{number}/{year} Sb."}
    for number, year in (("89", "2012"), ("40", "2009"), ("455", "1991"), ("90", "2024"), ("251", "2016"))
} | {
    "/eli/cz/sb/2024/88": {"doc_id": "/eli/cz/sb/2024/88", "citation": "88/2024 Sb."},
    "/eli/cz/sb/2025/120": {
        "doc_id": "/eli/cz/sb/2025/120",
        "citation": "120/2025 Sb.",
        "title": "Zákon, kterým se mění zákon č. 262/2006 Sb., zákoník práce",
    },
}


def _coverage(question: str, documents: dict = DOCUMENTS) -> dict:
    return coverage_report(question, understand(question), CollectionIndex(documents), governing_acts(question))


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


@pytest.mark.parametrize(
    "question, missing",
    [
        ("Kolik dní dovolené mám nárok za rok?", "zákoník práce (262/2006 Sb.)"),  # only its amendment is held
        ("Při jakém obratu se musím stát plátcem DPH?", "zákon o dani z přidané hodnoty (235/2004 Sb.)"),
        ("jak dlouho dostavam podporu v nezamestnanosti", "zákon o zaměstnanosti (435/2004 Sb.)"),
        ("Potřebuju stavební povolení na garáž u domu?", "stavební zákon (283/2021 Sb.)"),
        ("Kdy musím dát dítě k zápisu do první třídy?", "školský zákon (561/2004 Sb.)"),
        ("jak ziskat ceske obcanstvi", "zákon o státním občanství České republiky (186/2013 Sb.)"),
        ("Jak dlouho trvá vyřízení cestovního pasu?", "zákon o cestovních dokladech (329/1999 Sb.)"),
        ("Jak dlouho mám na reklamaci vadného zboží?", None),
        ("jaky je trest za podvod", None),
        ("Co potřebuju k ohlášení řemeslné živnosti?", None),
        ("Kdo může dostat zbrojní průkaz?", None),
        ("Jakou pokutu můžu dostat za rušení nočního klidu?", None),
        ("Jak můžu volit mimo místo, kde mám trvalý pobyt?", None),
        # routed by one word alone ("policii", "válce", "směně"): too little to tell anyone the act is absent
        ("Synovec vyhrožoval sousedovi, že na něj zavolá policii. Může mít sám problém?", None),
        ("Bratr se přihlásil jako dobrovolník do cizí armády ve válce. Hrozí mu něco doma?", None),
        ("Kolega po směně odnesl z fabriky nářadí. Co mu hrozí?", None),
    ],
)
def test_a_lay_question_is_told_when_the_act_governing_it_is_not_in_the_collection(question, missing):
    coverage = _coverage(question, HELD)
    assert coverage["governing_missing"] is (missing is not None)
    messages = [item["message"] for item in coverage["missing"] if item.get("governing")]
    assert messages[:1] == ([f"{missing} není v kolekci"] if missing else [])


NO_COVERAGE: dict = {"all_missing": False, "governing_missing": False}


@pytest.mark.parametrize(
    "lexical, dense, model, weak",
    [
        (0.20, 0.86, "e5", False),  # the calibrated model: the dense signal clears its floor
        (0.20, 0.80, "e5", True),  # below both of the pair
        (0.40, 0.80, "e5", False),  # the pair's lexical floor cleared
        (0.20, 0.86, "other", False),  # another model: the lexical floor chosen to stand alone
        (0.10, 0.99, "other", True),  # ... and no dense signal to lean on
    ],
)
def test_a_lexical_floor_chosen_beside_a_dense_one_does_not_stand_alone(lexical, dense, model, weak):
    floor = Floor(lexical=0.33, dense=0.85, model="e5", lexical_alone=0.14)
    verdict = judge(Confidence(lexical=lexical, dense=dense), floor, model, NO_COVERAGE)
    assert verdict["weak"] is weak
    assert verdict["floor"]["lexical"] == (0.33 if model == "e5" else 0.14)


def test_a_floor_without_a_lexical_threshold_of_its_own_keeps_the_pairs():
    floor = Floor(lexical=0.33, dense=0.85, model="e5")
    assert floor.lexical_for("other") == floor.lexical_for("e5") == 0.33
