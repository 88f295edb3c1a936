"""Query-log feedback: searches served through the API are logged in PostgreSQL, the nightly fold turns entities
named together into weighted pairs (query_entity_edges, migration 0007), the entity graph build adds them to its
edges, and a graph-entered search then reaches further."""

from __future__ import annotations

import math
import warnings
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from serving.api import create_app
from mendel.index.query_feedback import HALF_LIFE_DAYS, WINDOW_DAYS, fold_query_log, query_edges
from serving.querylog import PostgresQueryLog
from serving.search import Searcher
from tests.test_api import EMBEDDER, base_docs, build_bundle, chunk_graph, chunk_records, corpus  # noqa: F401

COURT, SENATE = "INSTITUTION:Vrchní soud v Praze", "INSTITUTION:Senát"
DECISION = "DECISION_REF:101 VSPH 73/2024"
QUERIES = [
    "Vrchní soud v Praze a Senát",
    "Vrchní soud v Praze a Senát",
    " Vrchní soud v Praze  a  Senát",      # the same text: spacing ignored
    "Senát a Vrchní soud v Praze",         # another text naming the same pair
    "101 VSPH 73/2024 Vrchní soud v Praze",
    "Senát 1. ledna 2025",                 # a date is no graph entity: no pair
    "podpora bydlení",
]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, corpus):  # noqa: F811
    bundles_dir = tmp_path_factory.mktemp("bundles")
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


def log_queries(bundles: Path, url: str, queries: list[str]) -> None:
    """Serve the queries through the API with the PostgreSQL query log, as `mendel serve` does."""
    query_log = PostgresQueryLog(url)
    try:
        client = TestClient(create_app(bundles, embedder=EMBEDDER, query_log=query_log, reload_interval=0))
        for q in queries:
            assert client.get("/search", params={"q": q, "k": 3}).status_code == 200
    finally:
        query_log.close()


def latest_log_time(conn):
    return conn.execute("SELECT max(at) FROM query_log").fetchone()[0]


def test_fold_weights_entities_named_together(bundles, fresh_db):
    log_queries(bundles, fresh_db, QUERIES)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        assert query_edges(conn) == {}
        now = latest_log_time(conn)
        stats = fold_query_log(conn, now=now)
        edges = query_edges(conn)
        assert set(edges) == {(SENATE, COURT), (DECISION, COURT)}  # a < b in code-point order
        # two distinct texts: one asked three times (1 + ln 3), one once (1); a few ms old at most
        assert edges[(SENATE, COURT)] == pytest.approx(2 + math.log(3), rel=1e-6)
        assert edges[(DECISION, COURT)] == pytest.approx(1.0, rel=1e-6)
        assert stats == {"logged_queries": len(QUERIES), "pairs": 2, "pair_queries": 3, "written": 2, "removed": 0}
        # folding again changes nothing
        assert fold_query_log(conn, now=now)["written"] == 0 and query_edges(conn) == edges
        # a half-life later every pair weighs half; outside the window they go
        later = fold_query_log(conn, now=now + timedelta(days=HALF_LIFE_DAYS))
        assert later["written"] == 2
        assert query_edges(conn)[(SENATE, COURT)] == pytest.approx(edges[(SENATE, COURT)] / 2, rel=1e-5)
        gone = fold_query_log(conn, now=now + timedelta(days=WINDOW_DAYS + 1))
        assert gone["removed"] == 2 and query_edges(conn) == {}
        # the table keeps its agreed shape: a < b is enforced
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("INSERT INTO query_entity_edges (a, b, weight) VALUES (%s, %s, 1)", (COURT, SENATE))


def test_more_traffic_strengthens_a_pair(bundles, fresh_db):
    log_queries(bundles, fresh_db, QUERIES[:1])
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        before = query_edges(conn)[(SENATE, COURT)]
    log_queries(bundles, fresh_db, QUERIES[:1] * 3 + ["Senát a Vrchní soud v Praze"])
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        after = query_edges(conn)[(SENATE, COURT)]
    assert before == pytest.approx(1.0, rel=1e-6)
    assert after == pytest.approx(1 + math.log(4) + 1, rel=1e-6)  # repeats count sub-linearly, new texts fully


def test_graph_build_adds_query_weights_and_the_graph_search_reaches_further(bundles, fresh_db, corpus,  # noqa: F811
                                                                            tmp_path):
    from mendel.index.graph import DOCUMENT_WEIGHT, aggregate, document_contributions

    docs = base_docs(corpus)
    records = chunk_records(docs)
    chunk_entities = chunk_graph(records)["chunk_entities"]
    contributions = []
    for doc in docs:
        members = [chunk_entities[r["chunk_id"]] for r in records
                   if r["doc_id"] == doc["doc_id"] and r["chunk_id"] in chunk_entities]
        for (kind, source, target), count in document_contributions(None, members).items():
            contributions.append((doc["doc_id"], kind, source, target, count))
    log_queries(bundles, fresh_db, QUERIES)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        learned = [(a, b, w) for (a, b), w in sorted(query_edges(conn).items())]
    before = aggregate(contributions)
    after = aggregate(contributions, query_edges=learned)

    def edge(graph, a, b):
        return next((e for e in graph.edges if (e["source"], e["target"]) == (a, b)), None)

    # the court and the Senate never share a chunk or a document: only traffic connects them
    assert edge(before, SENATE, COURT) is None
    assert edge(after, SENATE, COURT)["queries"] == pytest.approx(2 + math.log(3), rel=1e-6)
    shared = edge(before, DECISION, COURT)
    assert edge(after, DECISION, COURT)["weight"] == pytest.approx(
        shared["chunks"] + DOCUMENT_WEIGHT * shared["documents"] + 1.0, rel=1e-6)

    searchers = {}
    for name, graph in (("before", before), ("after", after)):
        bundles_dir = tmp_path / name
        build_bundle(bundles_dir, docs, graph=graph.to_json(chunk_entities))
        searchers[name] = Searcher.latest(bundles_dir, embedder=EMBEDDER)
    assert SENATE not in searchers["before"].graph_activation("Vrchní soud v Praze").scores
    assert SENATE in searchers["after"].graph_activation("Vrchní soud v Praze").scores

    def senate_chunks(searcher):
        return [i for i in searcher.graph_ranking("Vrchní soud v Praze")
                if SENATE in searcher.chunk_entities.get(searcher.chunks[i]["chunk_id"], ())]

    assert senate_chunks(searchers["before"]) == []
    reached = senate_chunks(searchers["after"])
    assert reached and {searchers["after"].chunks[i]["doc_id"] for i in reached} == {"/eli/cz/sb/2024/87"}


def test_nightly_asset_folds_the_log(bundles, fresh_db, tmp_path):
    from dagster import materialize

    from assets.feedback import query_entity_edges
    from orchestration.resources import MendelResource

    log_queries(bundles, fresh_db, QUERIES[:2])
    result = materialize([query_entity_edges],
                         resources={"mendel": MendelResource(home=str(tmp_path), database_url=fresh_db)})
    assert result.success
    metadata = result.asset_materializations_for_node("query_entity_edges")[0].metadata
    assert metadata["pairs"].value == 1 and metadata["logged_queries"].value == 2
    with psycopg.connect(fresh_db) as conn:
        assert set(query_edges(conn)) == {(SENATE, COURT)}
