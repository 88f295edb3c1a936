"""The postgres serving backend (serving.ranking.pg_search) over the same passages as a bundle: the bundle of real
documents the API tests use, loaded into a database by benchmarks/bench_pg_backend.load_bundle."""

from __future__ import annotations

import dataclasses
import uuid
from collections import Counter

import psycopg
import pytest
from fastapi.testclient import TestClient

from benchmarks.bench_pg_backend import load_bundle
from mendel.core import db
from mendel.core.config import Settings
from mendel.czech.analyzer import analyze
from mendel.index import bundle
from mendel.index.corpus import contextual_text
from mendel.index.fulltext import fill_lexemes, tsvector_literal
from serving.ranking.backend import BackendError, backend_name, open_searcher, searcher_factory
from serving.ranking.hits import VERSION_FIELDS, Hit
from serving.ranking.pg_search import PostgresSearcher
from serving.ranking.search import Searcher
from serving.web.results import run_search
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, load_corpus
from tests.support.bundle import SMALL_BUNDLE_QUERIES as QUERIES


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, pg_server_url):
    """A real bundle and a database holding the same passages (vectors, lexemes, graph, mentions)."""
    bundles_dir = tmp_path_factory.mktemp("pgb") / "bundles"
    path = build_bundle(bundles_dir, base_docs(load_corpus()))
    url = db.create_database(pg_server_url, f"pgb_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    with psycopg.connect(url) as conn:
        counts = load_bundle(conn, path)
    return {
        "path": path,
        "bundles_dir": bundles_dir,
        "url": url,
        "counts": counts,
        "bundle": Searcher(path, embedder=EMBEDDER),
        "postgres": PostgresSearcher(path, embedder=EMBEDDER, database_url=url),
    }


def test_hits_have_the_bundle_schema(loaded):
    pg = loaded["postgres"]
    assert len(pg.chunks) == loaded["counts"]["chunks"] == len(loaded["bundle"].chunks)
    fields = ("doc_id", "title", "source", "url", "citation", "doc_type", "published", "sha256", "content_type")
    assert {d: [doc[k] for k in fields] for d, doc in pg.documents.items()} == {
        d: [doc.get(k) for k in fields] for d, doc in loaded["bundle"].documents.items()
    }
    hits = pg.search(QUERIES[0], k=10)
    assert len(hits) == 10 and all(isinstance(h, Hit) for h in hits)
    bundle_hit = loaded["bundle"].search(QUERIES[0], k=1)[0]
    assert [f.name for f in dataclasses.fields(hits[0])] == [f.name for f in dataclasses.fields(bundle_hit)]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    row = next(c for c in loaded["bundle"].chunks if c["chunk_id"] == hits[0].chunk_id)
    assert (
        hits[0].doc_id,
        hits[0].page,
        hits[0].page_end,
        hits[0].section,
        hits[0].text,
        hits[0].title,
        hits[0].citation,
    ) == (row["doc_id"], row["page_start"], row["page_end"], row["section"], row["text"], row["title"], row["citation"])
    payload, _ = run_search(pg, QUERIES[0], k=5)
    expected, _ = run_search(loaded["bundle"], QUERIES[0], k=5)
    # the hand-built bundle's chunks carry no act version fields (mendel.index.corpus adds them when publishing
    # from the database, tests/serving/ranking/test_pg_in_force.py compares them); the database gives an act's chunks theirs
    assert set(payload["results"][0]) - set(VERSION_FIELDS) == set(expected["results"][0]) - set(VERSION_FIELDS)
    assert payload["bundle"] == loaded["path"].name
    found = pg.document(hits[0].doc_id)
    assert [c["chunk_id"] for c in found["chunks"]] == [
        c["chunk_id"] for c in loaded["bundle"].document(hits[0].doc_id)["chunks"]
    ]
    assert pg.document("/eli/cz/sb/1900/1") is None


def _unique_term_chunk(searcher: Searcher) -> tuple[str, str]:
    """A word of at least 9 letters that only one passage holds (in its raw text), and that passage."""
    counts, where = Counter(), {}
    for c in searcher.chunks:
        for term in set(analyze(contextual_text(c.get("citation"), c["title"], c["section"], "", c["text"]))):
            counts[term] += 1
            where[term] = c
    for term, n in sorted(counts.items()):
        if n == 1 and term.isalpha() and len(term) >= 9:
            for word in where[term]["text"].split():
                if analyze(word) == [term]:
                    return word.strip(".,;:()"), where[term]["chunk_id"]
    raise AssertionError("no unique word in the corpus")


def test_finds_an_exact_term_and_a_semantically_close_passage(loaded):
    pg = loaded["postgres"]
    word, chunk_id = _unique_term_chunk(loaded["bundle"])
    with pg.connection() as conn:
        assert pg.lexical_ranking(conn, word, 10, None) == [chunk_id]
        assert pg.lexical_ranking(conn, "xyzzy neexistujici", 10, None) == []
    # in the fused order: the lay stage ranks acts' passages the test embedder's tied vectors bring above it (rank 4,
    # as the bundle's own search does)
    assert chunk_id in [h.chunk_id for h in pg.search(f"{word} ustanovení", k=3, learned=False)]
    assert chunk_id in [h.chunk_id for h in pg.search(f"{word} ustanovení", k=5)]
    # semantically close: the passage whose vector is nearest the query's, with no shared rare word needed
    target = loaded["bundle"].chunks[len(loaded["bundle"].chunks) // 2]
    context = contextual_text(target.get("citation"), target["title"], target["section"], "", target["text"])
    with pg.connection() as conn:
        dense = pg.dense_ranking(conn, context, 10, None)
    assert dense[0] == target["chunk_id"]
    exact = [loaded["bundle"].chunks[i]["chunk_id"] for i in loaded["bundle"].dense_ranking(context, n=10)]
    assert len(set(dense) & set(exact)) >= 8  # HNSW against the bundle's exact flat index


def test_filters_restrict_hits_like_the_bundle(loaded):
    pg, bundle_searcher = loaded["postgres"], loaded["bundle"]
    for filters in (
        {"source": "nsoud"},
        {"doc_type": "law"},
        {"date_from": "2025-01-01"},
        {"act": next(d["citation"] for d in pg.documents.values() if d["doc_type"] == "law")},
    ):
        allowed = bundle_searcher.allowed_chunks(filters)
        allowed_docs = {bundle_searcher.chunks[i]["doc_id"] for i in range(len(allowed)) if allowed[i]}
        hits = pg.search("rozhodnutí zákon náhrada", k=10, filters=filters)
        assert hits, filters
        assert {h.doc_id for h in hits} <= allowed_docs, filters
    assert pg.search("zákon", k=10, filters={"source": "no-such-source"}) == []


def test_exact_references_lead_and_entities_enter_the_graph_list(loaded):
    pg = loaded["postgres"]
    for query, doc_id, section in (
        ("§ 157 odst. 4 zákona č. 262/2006 Sb.", "/eli/cz/sb/2025/573", "§ 1"),
        ("§ 5 zákona č. 175/2025 Sb.", "/eli/cz/sb/2025/175", "§ 5"),
        ("sp. zn. 15 EXE 746/2026", "ECLI:CZ:NS:2026:20.ND.234.2026.1", None),
    ):
        hits = pg.search(query, k=3)
        expected = loaded["bundle"].search(query, k=3)
        assert hits[0].lists[0] == "reference" and hits[0].doc_id == doc_id, query
        assert hits[0].chunk_id == expected[0].chunk_id, query
        if section:
            assert hits[0].section.rsplit(" > ", 1)[-1] == section
    plain = pg.search("Nejvyšší soud zákon č. 175/2025 Sb.", k=5)
    assert all("reference" not in h.lists for h in plain)
    assert any("graph" in h.lists and h.entities for h in plain)
    expected = loaded["bundle"].search("Nejvyšší soud zákon č. 175/2025 Sb.", k=5)
    # the same activation reaches a passage both return: the same matched entities, in the same order
    both = {h.chunk_id: h.entities for h in expected}
    shared = [(h.entities, both[h.chunk_id]) for h in plain if h.chunk_id in both]
    assert shared and all(mine == theirs for mine, theirs in shared), shared


def test_top10_overlaps_the_bundle_backend(loaded):
    overlaps = []
    for query in QUERIES:
        a = {h.chunk_id for h in loaded["bundle"].search(query, k=10)}
        b = {h.chunk_id for h in loaded["postgres"].search(query, k=10)}
        overlaps.append(len(a & b) / 10)
    # same passages, same vectors, same analyser: the lists differ in the lexical ranking (ts_rank_cd x IDF, not
    # BM25) and HNSW against a flat index
    assert sum(overlaps) / len(overlaps) >= 0.6, overlaps
    assert min(overlaps) >= 0.3, overlaps


def test_backend_is_chosen_by_environment(loaded, monkeypatch):
    assert backend_name({}) == "bundle"
    assert backend_name({"MENDEL_SERVING_BACKEND": " Postgres "}) == "postgres"
    with pytest.raises(BackendError, match="MENDEL_SERVING_BACKEND"):
        backend_name({"MENDEL_SERVING_BACKEND": "faiss"})
    settings = Settings(home=loaded["bundles_dir"].parent, database_url=loaded["url"])
    assert searcher_factory(settings, {}) is Searcher
    chosen = searcher_factory(settings, {"MENDEL_SERVING_BACKEND": "postgres"})(loaded["path"], embedder=EMBEDDER)
    assert isinstance(chosen, PostgresSearcher) and chosen.path == loaded["path"]
    assert isinstance(open_searcher(settings, {"MENDEL_SERVING_BACKEND": "postgres"}), PostgresSearcher)
    # the API picks it up from the environment
    from serving.web.api import create_app

    monkeypatch.setenv("MENDEL_SERVING_BACKEND", "postgres")
    monkeypatch.setenv("MENDEL_DATABASE_URL", loaded["url"])
    client = TestClient(create_app(loaded["bundles_dir"], embedder=EMBEDDER, reload_interval=0))
    assert isinstance(client.app.state.holder.current(), PostgresSearcher)
    body = client.get("/search", params={"q": QUERIES[0], "k": 3}).json()
    assert len(body["results"]) == 3 and body["bundle"] == loaded["path"].name
    assert client.get("/ready").json()["chunks"] == loaded["counts"]["chunks"]


def test_missing_lexemes_or_embeddings_is_a_clear_error(loaded, pg_server_url):
    url = db.create_database(pg_server_url, f"pgb_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    with psycopg.connect(url) as conn:
        load_bundle(conn, loaded["path"])
        conn.execute("UPDATE chunks SET lexemes = NULL, lexemes_hash = NULL WHERE seq % 2 = 0")
        conn.commit()
        missing = conn.execute("SELECT count(*) FROM chunks WHERE lexemes IS NULL").fetchone()[0]
    with pytest.raises(BackendError, match=f"{missing} of .* have no lexemes"):
        PostgresSearcher(loaded["path"], embedder=EMBEDDER, database_url=url)
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE chunks SET embedding = NULL WHERE seq = 0")
        conn.commit()
    with pytest.raises(BackendError, match="have no embedding"):
        PostgresSearcher(loaded["path"], embedder=EMBEDDER, database_url=url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM mentions")
        conn.execute("DELETE FROM chunks")
    with pytest.raises(BackendError, match="no live passages"):
        PostgresSearcher(loaded["path"], embedder=EMBEDDER, database_url=url)


def test_fill_lexemes_writes_missing_and_changed_rows_only(loaded, pg_server_url):
    url = db.create_database(pg_server_url, f"pgb_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    with psycopg.connect(url) as conn:
        load_bundle(conn, loaded["path"])
        conn.execute("UPDATE chunks SET lexemes = NULL, lexemes_hash = NULL")
        conn.commit()
        first = fill_lexemes(conn)
        conn.commit()
        assert first["lexemes_written"] == loaded["counts"]["chunks"] and first["lexemes_kept"] == 0
        assert fill_lexemes(conn)["lexemes_written"] == 0
        chunk_id, text = conn.execute("SELECT chunk_id, text FROM chunks ORDER BY chunk_id LIMIT 1").fetchone()
        # a passage's text changes with its content hash (the chunk stage writes both): that marks its document
        conn.execute(
            "UPDATE chunks SET text = %s, content_hash = md5(%s) WHERE chunk_id = %s",
            (text + " trpaslík", text + " trpaslík", chunk_id),
        )
        assert fill_lexemes(conn)["lexemes_written"] == 1
        found = conn.execute("SELECT chunk_id FROM chunks WHERE lexemes @@ 'trpaslik'::tsquery").fetchall()
        assert found == [(chunk_id,)]
        # the lexemes are the BM25 analyser's tokens, legal identifiers whole
        assert conn.execute(
            "SELECT %s::tsvector @@ '''§7'''::tsquery AND %s::tsvector @@ '''89/2012'''::tsquery",
            (tsvector_literal(analyze("podle § 7 zákona č. 89/2012 Sb.")),) * 2,
        ).fetchone()[0]


@pytest.mark.parametrize(
    "missing, message",
    [
        ("ALTER TABLE chunks DROP COLUMN lexemes CASCADE", "no chunks.lexemes column"),  # before migration 0016
        ("DROP TABLE chunk_postings", "no chunk_postings table"),  # before migration 0034
    ],
)
def test_a_database_not_migrated_is_a_clear_error(fresh_db, loaded, missing, message):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(missing)
    with pytest.raises(BackendError, match=message):
        PostgresSearcher(loaded["path"], embedder=EMBEDDER, database_url=fresh_db)
    assert bundle.current_version(loaded["bundles_dir"]) == loaded["path"].name
