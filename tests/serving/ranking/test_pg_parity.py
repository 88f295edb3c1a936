"""The PostgreSQL backend answers as the bundle backend, hit by hit: one small bundle of real documents and a
database holding the same passages (``benchmarks.bench_pg_backend.load_bundle``), the default search of both with
every stage on (bridge, routed and governing acts, learned second stage, dedupe, coverage block, relevance floor).
A stage one backend drops shows here as a different hit, order or coverage block."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from benchmarks.bench_pg_backend import load_bundle
from mendel.core import db
from serving.ranking.pg_search import PostgresSearcher
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, SMALL_BUNDLE_QUERIES, base_docs, build_bundle, load_corpus

pytestmark = pytest.mark.slow

# Real-text questions over the small bundle's documents (the dev questions are about the whole sample corpus):
# plain questions (routed and governed), exact references, decisions, words the collection lacks.
QUERIES = [
    *SMALL_BUNDLE_QUERIES,
    "podpora bydlení vyhovující bydlení",
    "jaké povinnosti má obec",
    "kdo má nárok na podporu bydlení",
    "§ 5 zákona č. 175/2025 Sb.",
    "§ 157 odst. 4 zákona č. 262/2006 Sb.",
    "sp. zn. 15 EXE 746/2026",
    "Nejvyšší soud zákon č. 175/2025 Sb.",
    "qxwz blorft vrmpl",
    "exekuce a náhrada nákladů řízení",
    "ústavní zákon a volby do Senátu",
    "prezdent republiky",  # typed without diacritics, a letter left out: retyped
]


@pytest.fixture(scope="module")
def both(tmp_path_factory, pg_server_url):
    """The bundle and the database of the same passages, the documents in the order the database sorts them (the
    bundle's row order is the order a nightly's publish reads them in: doc_id, seq)."""
    url = db.create_database(pg_server_url, f"pgp_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    docs = base_docs(load_corpus())
    with psycopg.connect(url) as conn:
        order = [
            r[0] for r in conn.execute("SELECT unnest(%s::text[]) AS d ORDER BY d", ([d["doc_id"] for d in docs],))
        ]
    docs = sorted(docs, key=lambda d: order.index(d["doc_id"]))
    path = build_bundle(tmp_path_factory.mktemp("pgp") / "bundles", docs)
    with psycopg.connect(url) as conn:
        load_bundle(conn, path)
    bundle_searcher = Searcher(path, embedder=EMBEDDER)
    postgres = PostgresSearcher(path, embedder=EMBEDDER, database_url=url)
    yield {"bundle": bundle_searcher, "postgres": postgres}
    postgres.close()
    bundle_searcher.close()


# The hashed bag-of-words test embedder gives many passages of this 26-passage bundle the same similarity (0: no
# shared word), and the flat FAISS index returns such exact ties in its heap's order, HNSW in its graph's: the tail
# of a ten-hit answer can hinge on them. A real embedding model has no such ties; the best six hits here never do.
HITS = 6


def answer(searcher, query: str, **options) -> dict:
    result = searcher.search_with_coverage(query, k=HITS, **options)
    return {
        "hits": [(h.doc_id, h.chunk_id, h.lists, h.entities) for h in result.hits],
        "weak": result.weak,
        "coverage": {key: result.coverage.get(key) for key in ("named", "missing", "all_missing", "empty")},
        "lexical": result.coverage["confidence"]["lexical"],
    }


def test_rows_are_the_bundles(both):
    assert [both["postgres"].chunks[i]["chunk_id"] for i in range(len(both["bundle"].chunks))] == [
        c["chunk_id"] for c in both["bundle"].chunks
    ]


@pytest.mark.parametrize("query", QUERIES)
def test_same_answer_hit_by_hit(both, query):
    assert answer(both["postgres"], query) == answer(both["bundle"], query)


def test_each_stage_changes_some_answer(both):
    """The comparison above can fail for a stage: with it off on one backend alone, some answer differs."""
    bundle_searcher = both["bundle"]
    for stage in ({"learned": False}, {"bridge": False}, {"decompose": False}, {"retype": False}):
        changed = [q for q in QUERIES if answer(bundle_searcher, q, **stage) != answer(both["postgres"], q)]
        assert changed, stage
