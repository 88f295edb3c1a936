"""Routing plain questions by the domain graph (``serving.ranking.graph_retrieval.routed_acts`` / ``ActRouter``): a question NER
recognises nothing in gets a routed list -- BM25 within the acts the graph routes it to -- weighted by how little of
it the entities cover, and the routed acts' share as a feature of the learned stage."""

import numpy as np

from serving.ranking.graph_retrieval import ROUTE_MIN_SCORE, ActRouter, routed_acts

PLAIN = "Do kdy musí zaměstnavatel podat jednotné měsíční hlášení?"


def test_a_plain_question_routes_to_its_act():
    routed = routed_acts(PLAIN)
    assert next(iter(routed)) == "323/2025 Sb." and routed["323/2025 Sb."] == 1.0
    assert all(0.5 <= share <= 1.0 for share in routed.values())


def test_no_route_when_nothing_routes_confidently():
    from mendel.law.domain_graph import default_graph

    assert routed_acts("IČ zhotovitele ELTODO-CITELUM") == {}
    weak = "Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?"
    best = default_graph().route(weak, k=1, types=("act",))
    assert not best or best[0][1] < ROUTE_MIN_SCORE
    assert routed_acts(weak) == {}


def test_act_router_masks_the_routed_acts_chunks():
    documents = {"a": {"citation": "323/2025 Sb."}, "b": {"citation": "1/1993 Sb."}, "n": {}}
    router = ActRouter(documents, {"a": [0, 2], "b": [1], "n": [3]}, 4)
    assert router.mask(["323/2025 Sb."]).tolist() == [True, False, True, False]
    assert router.mask(["323/2025 Sb.", "1/1993 Sb."]).tolist() == [True, True, True, False]
    assert router.mask(["99/2099 Sb."]) is None


def _searcher(tmp_path):
    from serving.ranking.search import Searcher
    from tests.support.bundle import EMBEDDER, build_bundle

    docs = [
        {
            "doc_id": "/eli/cz/sb/2025/323",
            "title": "Zákon o jednotném hlášení",
            "source": "esbirka",
            "url": "u1",
            "citation": "323/2025 Sb.",
            "doc_type": "law",
            "published": "2025-01-01",
            "pages": [
                "§ 7 Zaměstnavatel podá hlášení ve lhůtě do dvacátého dne kalendářního měsíce.",
                "§ 8 Hlášení obsahuje údaje o zaměstnanci a o příjmu.",
            ],
        },
        {
            "doc_id": "/eli/cz/sb/1993/1",
            "title": "Ústava",
            "source": "esbirka",
            "url": "u2",
            "citation": "1/1993 Sb.",
            "doc_type": "law",
            "published": "1993-01-01",
            "pages": ["Čl. 54 Prezident republiky je hlavou státu. Kdo podá hlášení o volbě, stanoví zákon."],
        },
        {
            "doc_id": "notice-1",
            "title": "Oznámení",
            "source": "boards",
            "url": "u3",
            "citation": None,
            "doc_type": "notice",
            "published": "2025-03-01",
            "pages": ["Zaměstnavatel musí podat hlášení o uzavírce silnice do pátku."],
        },
    ]
    return Searcher.latest(build_bundle(tmp_path / "bundles", docs).parent, embedder=EMBEDDER)


def test_plain_question_gets_the_routed_list_and_feature(tmp_path):
    from serving.query.analyze import understand

    searcher = _searcher(tmp_path)
    ranked = searcher.rank(PLAIN, understanding=understand(PLAIN))
    act_rows = set(searcher.doc_chunks["/eli/cz/sb/2025/323"])
    assert ranked.signals.routed == {"323/2025 Sb.": 1.0}
    routed_items = {item for item, _, lists in ranked.fused if "routed" in lists}
    assert routed_items and routed_items <= act_rows  # the routed list stays within the routed act
    without = searcher.rank(PLAIN, understanding=understand(PLAIN), graph=False)
    assert not without.signals.routed and all("routed" not in lists for _, _, lists in without.fused)
    # the routed list adds to the routed act's passages only: they rise, the notice does not
    score = {item: s for item, s, _ in ranked.fused}
    plain_score = {item: s for item, s, _ in without.fused}
    assert all(score[i] > plain_score.get(i, 0.0) for i in routed_items)
    notice = searcher.doc_chunks["notice-1"][0]
    assert np.isclose(score[notice], plain_score[notice])


def test_a_question_all_entities_gets_no_routed_list(tmp_path):
    from serving.query.analyze import understand

    searcher = _searcher(tmp_path)
    query = "čl. 54 zákona č. 1/1993 Sb."
    ranked = searcher.rank(query, understanding=understand(query))
    assert not ranked.signals.routed and all("routed" not in lists for _, _, lists in ranked.fused)
