"""Query-log feedback: searches served through the API are logged in PostgreSQL with a keyed hash of the client,
the nightly fold deletes rows past the retention and turns entities named together into pairs weighted by the
distinct clients that asked (query_entity_edges, migration 0007), the entity graph build adds them to its edges
(capped at a share of its heaviest data edge), and a graph-entered search then reaches further."""

from __future__ import annotations

import logging
import threading
import time
import warnings
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from psycopg.types.json import Jsonb

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from mendel.index.query_feedback import DEFAULT_RETENTION_DAYS, HALF_LIFE_DAYS, fold_query_log, query_edges
from serving.ranking.search import Searcher
from serving.web.api import create_app
from serving.web.querylog import PostgresQueryLog
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, chunk_graph, chunk_records

COURT, SENATE = "INSTITUTION:Vrchní soud v Praze", "INSTITUTION:Senát"
DECISION = "DECISION_REF:101 VSPH 73/2024"
QUERIES = [
    "Vrchní soud v Praze a Senát",
    "Vrchní soud v Praze a Senát",
    " Vrchní soud v Praze  a  Senát",
    "Senát a Vrchní soud v Praze",  # another text naming the same pair
    "101 VSPH 73/2024 Vrchní soud v Praze",
    "Senát 1. ledna 2025",  # a date is no graph entity: no pair
    "podpora bydlení",
]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, corpus):
    bundles_dir = tmp_path_factory.mktemp("bundles")
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


def log_queries(bundles: Path, url: str, queries: list[str], address: str = "203.0.113.7") -> None:
    """Serve the queries through the API with the PostgreSQL query log, as `mendel serve` does, from one client."""
    query_log = PostgresQueryLog(url)
    try:
        client = TestClient(
            create_app(bundles, embedder=EMBEDDER, query_log=query_log, reload_interval=0), client=(address, 50000)
        )
        for q in queries:
            assert client.get("/search", params={"q": q, "k": 3}).status_code == 200
    finally:
        query_log.close()


def latest_log_time(conn):
    return conn.execute("SELECT max(at) FROM query_log").fetchone()[0]


def test_fold_counts_each_client_once_per_pair(bundles, fresh_db):
    log_queries(bundles, fresh_db, QUERIES, address="203.0.113.7")
    log_queries(bundles, fresh_db, QUERIES[3:5], address="198.51.100.20")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        assert query_edges(conn) == {}
        now = latest_log_time(conn)
        stats = fold_query_log(conn, now=now)
        edges = query_edges(conn)
        assert set(edges) == {(SENATE, COURT), (DECISION, COURT)}  # a < b in code-point order
        # four queries of the first client name Senát + court: one client, weight 1; the second client adds 1
        assert edges[(SENATE, COURT)] == pytest.approx(2.0, rel=1e-6)
        assert edges[(DECISION, COURT)] == pytest.approx(2.0, rel=1e-6)
        assert stats == {
            "logged_queries": len(QUERIES) + 2,
            "expired_queries": 0,
            "pairs": 2,
            "pair_queries": 7,
            "max_pair_clients": 2,
            "written": 2,
            "removed": 0,
            "retention_days": DEFAULT_RETENTION_DAYS,
        }
        # folding again changes nothing
        assert fold_query_log(conn, now=now)["written"] == 0 and query_edges(conn) == edges
        # a half-life later every pair weighs half
        later = fold_query_log(conn, now=now + timedelta(days=HALF_LIFE_DAYS))
        assert later["written"] == 2 and later["expired_queries"] == 0
        assert query_edges(conn)[(SENATE, COURT)] == pytest.approx(edges[(SENATE, COURT)] / 2, rel=1e-5)
        # past the retention the rows themselves are deleted, and their pairs go
        gone = fold_query_log(conn, now=now + timedelta(days=DEFAULT_RETENTION_DAYS + 1))
        assert gone["expired_queries"] == len(QUERIES) + 2 and gone["removed"] == 2 and query_edges(conn) == {}
        assert conn.execute("SELECT count(*) FROM query_log").fetchone()[0] == 0
        # the table keeps its agreed shape: a < b is enforced
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("INSERT INTO query_entity_edges (a, b, weight) VALUES (%s, %s, 1)", (COURT, SENATE))


def test_log_keeps_a_keyed_hash_of_the_client_never_its_address(bundles, fresh_db):
    log_queries(bundles, fresh_db, QUERIES[:2], address="203.0.113.7")
    log_queries(bundles, fresh_db, QUERIES[:1], address="198.51.100.20")
    with psycopg.connect(fresh_db) as conn:
        rows = conn.execute("SELECT client, query_log::text FROM query_log ORDER BY id").fetchall()
    clients = [client for client, _ in rows]
    assert len(set(clients)) == 2 and clients[0] == clients[1] != clients[2]
    assert all(len(c) == 16 and int(c, 16) >= 0 for c in clients)
    assert not any("203.0.113" in text or "198.51.100" in text for _, text in rows)


def test_retention_is_configurable(bundles, fresh_db, monkeypatch):
    log_queries(bundles, fresh_db, QUERIES[:1])
    monkeypatch.setenv("MENDEL_QUERY_LOG_RETENTION_DAYS", "7")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        now = latest_log_time(conn)
        assert fold_query_log(conn, now=now + timedelta(days=6))["expired_queries"] == 0
        stats = fold_query_log(conn, now=now + timedelta(days=8))
        assert stats["expired_queries"] == 1 and stats["retention_days"] == 7


def test_repeats_of_one_client_add_nothing_new_clients_do(bundles, fresh_db):
    started = time.monotonic()
    log_queries(bundles, fresh_db, QUERIES[:1])
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        before = query_edges(conn)[(SENATE, COURT)]
    log_queries(bundles, fresh_db, QUERIES[:1] * 3 + ["Senát a Vrchní soud v Praze"])
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        repeated = query_edges(conn)[(SENATE, COURT)]
    log_queries(bundles, fresh_db, QUERIES[:1], address="192.0.2.44")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        fold_query_log(conn, now=latest_log_time(conn))
        another = query_edges(conn)[(SENATE, COURT)]
    # each client's weight decays from its last query to the latest one: by this much at most over the test's time
    # (a slow machine spreads the three logs over seconds; a repeat counted again would add a whole 1.0)
    decay = 1.0 - 0.5 ** ((time.monotonic() - started) / (HALF_LIFE_DAYS * 86400.0))
    assert before == pytest.approx(1.0, rel=1e-6)
    assert repeated == pytest.approx(1.0, abs=decay + 1e-6)
    assert another == pytest.approx(2.0, abs=2 * decay + 1e-6)


def _data_contributions(corpus):
    from mendel.index.entity_graph import document_contributions

    docs = base_docs(corpus)
    records = chunk_records(docs)
    chunk_entities = chunk_graph(records)["chunk_entities"]
    contributions = []
    for doc in docs:
        members = [
            chunk_entities[r["chunk_id"]]
            for r in records
            if r["doc_id"] == doc["doc_id"] and r["chunk_id"] in chunk_entities
        ]
        for (kind, source, target), count in document_contributions(None, members).items():
            contributions.append((doc["doc_id"], kind, source, target, count))
    return docs, chunk_entities, contributions


def _flood(conn, clients: int, per_client: int, pair=(COURT, SENATE)) -> None:
    """What the API logs for ``clients`` × ``per_client`` identical searches naming ``pair``."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO query_log (query, entities, client) VALUES (%s, %s, %s)",
            [
                ("Vrchní soud v Praze a Senát", Jsonb(sorted(pair)), None if clients == 1 else f"c{n:04d}")
                for n in range(clients)
                for _ in range(per_client)
            ],
        )


@pytest.mark.parametrize("clients,per_client", [(1, 300), (300, 1)], ids=["one-client", "300-clients"])
def test_flood_of_identical_queries_never_makes_the_heaviest_edge(fresh_db, corpus, clients, per_client):
    from mendel.index.entity_graph import QUERY_WEIGHT_MAX_SHARE, aggregate

    _, _, contributions = _data_contributions(corpus)
    natural = aggregate(contributions)
    heaviest = max(e["weight"] for e in natural.edges)
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        _flood(conn, clients, per_client)
        fold_query_log(conn)
        learned = [(a, b, w) for (a, b), w in sorted(query_edges(conn).items())]
    assert learned and learned[0][2] == pytest.approx(float(clients), rel=1e-3)  # one per client, not per query
    if clients > 1:
        assert learned[0][2] > heaviest  # uncapped, this flood would be the heaviest edge
    flooded = aggregate(contributions, query_edges=learned)
    edge = next(e for e in flooded.edges if (e["source"], e["target"]) == (SENATE, COURT))
    assert 0 < edge["weight"] <= QUERY_WEIGHT_MAX_SHARE * heaviest
    top = max(flooded.edges, key=lambda e: e["weight"])
    assert top["weight"] == pytest.approx(heaviest) and (top["source"], top["target"]) != (SENATE, COURT)


def test_graph_build_adds_query_weights_and_the_graph_search_reaches_further(
    bundles,
    fresh_db,
    corpus,
    tmp_path,
):
    from mendel.index.entity_graph import DOCUMENT_WEIGHT, aggregate

    docs, chunk_entities, contributions = _data_contributions(corpus)
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
    assert edge(after, SENATE, COURT)["queries"] == pytest.approx(1.0, rel=1e-6)
    shared = edge(before, DECISION, COURT)
    assert edge(after, DECISION, COURT)["weight"] == pytest.approx(
        shared["chunks"] + DOCUMENT_WEIGHT * shared["documents"] + 1.0, rel=1e-6
    )

    searchers = {}
    for name, graph in (("before", before), ("after", after)):
        bundles_dir = tmp_path / name
        build_bundle(bundles_dir, docs, graph=graph.to_json(chunk_entities))
        searchers[name] = Searcher.latest(bundles_dir, embedder=EMBEDDER)
    assert SENATE not in searchers["before"].graph_activation("Vrchní soud v Praze").scores
    assert SENATE in searchers["after"].graph_activation("Vrchní soud v Praze").scores

    def senate_chunks(searcher):
        return [
            i
            for i in searcher.graph_ranking("Vrchní soud v Praze")
            if SENATE in searcher.chunk_entities.get(searcher.chunks[i]["chunk_id"], ())
        ]

    assert senate_chunks(searchers["before"]) == []
    reached = senate_chunks(searchers["after"])
    assert reached and {searchers["after"].chunks[i]["doc_id"] for i in reached} == {"/eli/cz/sb/2024/87"}


def test_nightly_asset_folds_the_log(bundles, fresh_db, tmp_path):
    from dagster import materialize

    from assets.index.query_feedback import query_entity_edges
    from orchestration.resources import MendelResource

    log_queries(bundles, fresh_db, QUERIES[:2])
    result = materialize(
        [query_entity_edges], resources={"mendel": MendelResource(home=str(tmp_path), database_url=fresh_db)}
    )
    assert result.success
    metadata = result.asset_materializations_for_node("query_entity_edges")[0].metadata
    assert metadata["pairs"].value == 1 and metadata["logged_queries"].value == 2
    with psycopg.connect(fresh_db) as conn:
        assert set(query_edges(conn)) == {(SENATE, COURT)}


def test_access_log_shows_no_query_text(bundles, tmp_path):
    from serving.web.server import make_server

    server = make_server(bundles, host="127.0.0.1", port=0, embedder=EMBEDDER, reload_interval=0)
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(self.format(record))

    handler = Collect()
    logging.getLogger("uvicorn.access").addHandler(handler)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        import httpx

        response = httpx.get(f"http://127.0.0.1:{port}/search", params={"q": "tajná rozvodová záležitost Senát"})
        assert response.status_code == 200
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        logging.getLogger("uvicorn.access").removeHandler(handler)
    [line] = [line for line in lines if "/search" in line]
    assert "GET /search HTTP/1.1" in line and "200" in line
    assert "?" not in line and "tajn" not in line and "q=" not in line
