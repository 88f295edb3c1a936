"""Graph-entered retrieval: query entities -> weighted neighbourhood -> linked chunks, as a third RRF list.

Unit tests over a small graph written here (entity ids only, no legal text), then the Searcher over the real
test bundle of tests/serving/web/test_api.py (Sbírka PDFs and Nejvyšší soud decisions from the sample corpus).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serving.query.analyze import understand
from serving.ranking.fusion import RRF_K, RRF_WEIGHTS, entity_coverage, rrf_fuse
from serving.ranking.graph_retrieval import (
    ACT_SHARE,
    MAX_NEIGHBOURS,
    NEIGHBOUR_SHARE,
    SAME_PROVISION_SHARE,
    EntityGraph,
)
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, base_docs, build_bundle

A, B, C, D = (
    "INSTITUTION:Vrchní soud v Praze",
    "DECISION_REF:101 VSPH 73/2024",
    "INSTITUTION:Senát",
    "LAW_REF:89/2012 Sb. § 2079 odst. 1",
)
ACT = "LAW_REF:89/2012 Sb."


def small_graph() -> EntityGraph:
    graph = {
        "nodes": [{"id": x} for x in (A, B, C, D, ACT)],
        "edges": [{"source": A, "target": B, "weight": 4.0}, {"source": A, "target": C, "weight": 1.0}],
        "relations": [{"source": D, "target": ACT, "type": "PART_OF", "weight": 2.0}],
        # chunk c0 names A only; c1 names B only; c2 names C; c3 names A and nine other things; c4 names D
        "chunk_entities": {
            "c0": [A],
            "c1": [B],
            "c2": [C],
            "c3": [A] + [f"INSTITUTION:x{i}" for i in range(9)],
            "c4": [D],
        },
    }
    return EntityGraph(graph, ["c0", "c1", "c2", "c3", "c4", "c5"])


def test_resolve_exact_more_precise_provision_and_act():
    graph = small_graph()
    assert graph.resolve(A) == {graph.index[A]: 1.0}
    # "§ 2079" asked, only "§ 2079 odst. 1" known: that node, less; the act itself, less still
    found = graph.resolve("LAW_REF:89/2012 Sb. § 2079", 1.0)
    assert found == {graph.index[D]: pytest.approx(SAME_PROVISION_SHARE), graph.index[ACT]: pytest.approx(ACT_SHARE)}
    assert graph.resolve("LAW_REF:89/2012 Sb. § 9999") == {graph.index[ACT]: pytest.approx(ACT_SHARE)}
    assert graph.resolve("INSTITUTION:neznámý úřad") == {}
    assert graph.resolve("LAW_REF:1/1900 Sb. § 1") == {}


def test_activation_spreads_one_hop_by_relative_edge_weight():
    graph = small_graph()
    activation = graph.activate([(A, 1.0)])
    assert activation.seeds == {A: 1.0}
    # A's strongest edge (to B) passes NEIGHBOUR_SHARE; the four times weaker one a quarter of that
    assert activation.scores[B] == pytest.approx(NEIGHBOUR_SHARE)
    assert activation.scores[C] == pytest.approx(NEIGHBOUR_SHARE / 4)
    assert graph.activate([(C, 1.0)]).scores[A] == pytest.approx(NEIGHBOUR_SHARE)  # edges are two-way
    # typed relations count too: a provision reaches its act
    assert ACT in graph.activate([(D, 1.0)]).scores
    assert graph.activate([("INSTITUTION:neznámý úřad", 1.0)]).scores == {}


def test_neighbourhood_is_bounded():
    hub = "INSTITUTION:hub"
    others = [f"INSTITUTION:n{i}" for i in range(MAX_NEIGHBOURS + 10)]
    graph = EntityGraph(
        {
            "nodes": [{"id": x} for x in [hub, *others]],
            "edges": [{"source": hub, "target": o, "weight": float(i + 1)} for i, o in enumerate(others)],
            "chunk_entities": {},
        },
        [],
    )
    scores = graph.activate([(hub, 1.0)]).scores
    assert len(scores) == 1 + MAX_NEIGHBOURS
    assert others[-1] in scores and others[0] not in scores  # the strongest are kept


def test_ranking_seed_chunks_first_focused_before_lists_and_mask():
    graph = small_graph()
    activation = graph.activate([(A, 1.0)])
    ranking = graph.ranking(activation, n=10)
    # c0 names the seed alone; c3 names it among ten entities; c1 and c2 only neighbours; c4, c5 nothing
    assert ranking[0] == 0 and set(ranking) == {0, 1, 2, 3}
    assert ranking.index(1) < ranking.index(2)  # the stronger neighbour first
    allowed = np.array([False, True, True, True, True, True])
    assert graph.ranking(activation, n=10, allowed=allowed)[0] != 0 and 0 not in graph.ranking(activation, 10, allowed)
    assert graph.ranking(activation, n=2) == ranking[:2]
    assert EntityGraph.empty().ranking(activation, 5) == []


def test_rrf_with_three_lists():
    fused = rrf_fuse({"bm25": [1, 2, 3], "dense": [2, 1], "graph": [3, 4]}, weights=RRF_WEIGHTS)
    order = [item for item, _, _ in fused]
    assert order == [1, 2, 3, 4]
    scores = {item: score for item, score, _ in fused}
    assert scores[3] == pytest.approx(1.0 / (RRF_K + 3) + RRF_WEIGHTS["graph"] / (RRF_K + 1))
    assert {item: lists for item, _, lists in fused}[3] == ["bm25", "graph"]


@pytest.mark.parametrize(
    "query, coverage",
    [
        ("Vrchní soud v Praze", 1.0),
        ("101 VSPH 73/2024", 1.0),
        ("Co rozhodl Vrchní soud v Praze o insolvenci dlužníka?", 0.5),
        ("podpora bydlení", 0.0),
    ],
)
def test_entity_coverage(query, coverage):
    assert entity_coverage(understand(query)) == pytest.approx(coverage, abs=0.01)


# --- over the real test bundle ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def searcher(tmp_path_factory, corpus):
    return Searcher.latest(
        build_bundle(tmp_path_factory.mktemp("bundles"), base_docs(corpus)).parent, embedder=EMBEDDER
    )


def _mentions(searcher, hit, entity):
    return entity in searcher.chunk_entities.get(hit.chunk_id, ())


def test_graph_reaches_chunks_no_word_of_the_query_is_in(searcher):
    query = "101 VSPH 73/2024"
    seed = "DECISION_REF:101 VSPH 73/2024"
    with_graph = searcher.search(query, k=10, dense=False, decompose=False)
    without = searcher.search(query, k=10, dense=False, graph=False, decompose=False)
    lexical = set(searcher.bm25_ranking(query))
    reached = [h for h in with_graph if "graph" in h.lists and not _mentions(searcher, h, seed)]
    assert reached, "the decision's graph neighbours bring chunks that do not cite it"
    for hit in reached:
        item = next(i for i, c in enumerate(searcher.chunks) if c["chunk_id"] == hit.chunk_id)
        assert item not in lexical and hit.lists == ["graph"]
        # grounded in the graph: the hit names the entities it was reached through (neighbours of the seed)
        assert hit.entities and seed not in hit.entities
        assert all(e in searcher.graph_activation(query).scores for e in hit.entities)
    assert not {h.chunk_id for h in reached} & {h.chunk_id for h in without}
    # the chunks citing the file number itself lead (exact reference), and name it among their entities
    assert with_graph[0].lists[0] == "reference" and with_graph[0].entities[0] == seed


def test_institution_query_enters_through_the_graph(searcher):
    hits = searcher.search("Vrchní soud v Praze", k=5)
    assert all("graph" in h.lists for h in hits[:2])
    assert hits[0].entities[0] == "INSTITUTION:Vrchní soud v Praze" and _mentions(
        searcher, hits[0], "INSTITUTION:Vrchní soud v Praze"
    )
    assert searcher.search("Vrchní soud v Praze", k=5, graph=False)[0].entities == []


def test_graph_stays_out_of_questions_the_words_answer(searcher):
    # No entity named in the query (only routed acts): the graph list gets no weight and claims no hit; the hits
    # are the hybrid's (the routed and governing acts' lists, which graph=False leaves out too, may order them).
    query = "podpora bydlení vyhovující bydlení"
    hits = searcher.search(query, k=5)
    assert {h.chunk_id for h in hits} == {h.chunk_id for h in searcher.search(query, k=5, graph=False)}
    assert all("graph" not in h.lists for h in hits)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.text(max_size=120)
    | st.lists(
        st.sampled_from(
            [
                "Vrchní soud v Praze",
                "101 VSPH 73/2024",
                "§ 5",
                "zákona č. 175/2025 Sb.",
                "a",
                ",",
                "celý",
                "zákon",
                "o čem je",
                "paragraf 204 OSŘ",
                "bydlení",
                "Senát",
                "\x00",
                "§§",
                "čl.",
            ]
        ),
        max_size=10,
    ).map(" ".join)
)
def test_any_query_gets_grounded_hits_or_none(searcher, query):
    hits = searcher.search(query, k=5)
    assert len(hits) <= 5
    for hit in hits:
        assert hit.lists and hit.doc_id in searcher.documents and hit.layer == 3
        assert set(hit.entities) <= set(searcher.chunk_entities.get(hit.chunk_id, ()))
