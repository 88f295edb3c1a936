"""pgvector HNSW (the passages' graph of migration 0036) against exact FAISS inner-product search over the same unit
vectors."""

from __future__ import annotations

import faiss
import numpy as np
import psycopg
import pytest

from mendel.index.pgvector import DIMENSION, search_pgvector

N_CHUNKS = 400
N_QUERIES = 25
K = 10


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


@pytest.fixture
def vector_db(fresh_db):
    rng = np.random.default_rng(20240611)
    vectors = _unit(rng, N_CHUNKS)
    ids = [f"chunk-{i:04d}" for i in range(N_CHUNKS)]
    with psycopg.connect(fresh_db) as conn:
        for doc in ("doc-a", "doc-b"):
            conn.execute(
                "INSERT INTO documents (doc_id, source, url) VALUES (%s, 'test', %s)",
                (doc, f"https://example.test/{doc}"),
            )
            version_id = conn.execute(
                "INSERT INTO document_versions (doc_id, sha256, byte_size) VALUES (%s, %s, 1) RETURNING version_id",
                (doc, doc * 8),
            ).fetchone()[0]
            conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (version_id, doc))
        versions = dict(conn.execute("SELECT doc_id, version_id FROM document_versions"))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start, char_end,"
                " text, content_hash, embedding) VALUES (%s, %s, %s, %s, 1, 1, 0, 1, 'x', %s, %s::vector)",
                [
                    (cid, versions["doc-a" if i % 2 else "doc-b"], "doc-a" if i % 2 else "doc-b", i, cid, _literal(v))
                    for i, (cid, v) in enumerate(zip(ids, vectors))
                ],
            )
            # a chunk without a vector is never returned
            cur.execute(
                "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start,"
                " char_end, text, content_hash) VALUES ('no-vector', %s, 'doc-a', 9999, 1, 1, 0, 1, 'x', 'h')",
                (versions["doc-a"],),
            )
        conn.execute("ANALYZE chunks")
    return {"url": fresh_db, "ids": ids, "vectors": vectors, "queries": _unit(rng, N_QUERIES)}


def test_migrations_give_each_layer_its_own_hnsw_cosine_index(fresh_db):
    with psycopg.connect(fresh_db) as conn:
        definitions = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'chunks' AND indexdef ILIKE '%hnsw%'"
            )
        )
    assert sorted(definitions) == [f"chunks_embedding_l{layer}_hnsw_idx" for layer in (1, 2, 3)]
    passages = definitions["chunks_embedding_l3_hnsw_idx"]
    assert "USING hnsw (embedding vector_cosine_ops)" in passages and "WHERE (layer = 3)" in passages
    # built wider than pgvector's default: 0.716 -> 0.86 of the exact top 10 at ef_search 200 on the sample corpus
    assert "ef_construction='128'" in passages


def test_hnsw_agrees_with_faiss_flat_ip(vector_db):
    index = faiss.IndexFlatIP(DIMENSION)
    index.add(vector_db["vectors"])
    exact_scores, exact = index.search(vector_db["queries"], K)
    with psycopg.connect(vector_db["url"]) as conn:
        # 400 rows is small enough for the planner to prefer reading and sorting them (exact, and no test of HNSW)
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            conn.execute(f"SET {setting} = off")
        conn.execute("SET hnsw.ef_search = 100")
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT chunk_id FROM chunks WHERE embedding IS NOT NULL AND layer = 3"
                " ORDER BY embedding <=> %s::vector LIMIT 10",
                (_literal(vector_db["queries"][0]),),
            )
        )
        assert "chunks_embedding_l3_hnsw_idx" in plan
        overlaps = []
        for q, row_ids, row_scores in zip(vector_db["queries"], exact, exact_scores):
            hits = search_pgvector(conn, q, K)
            assert len(hits) == K
            assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
            expected = {vector_db["ids"][i] for i in row_ids}
            overlaps.append(len(expected & {cid for cid, _ in hits}) / K)
            faiss_score = dict(zip((vector_db["ids"][i] for i in row_ids), row_scores))
            for cid, score in hits:  # the same cosine as FAISS' inner product for shared hits
                if cid in faiss_score:
                    assert score == pytest.approx(float(faiss_score[cid]), abs=1e-5)
    print(
        f"\nHNSW vs FAISS IndexFlatIP top-{K} overlap: mean {sum(overlaps) / len(overlaps):.3f},"
        f" min {min(overlaps):.1f} over {N_QUERIES} queries, {N_CHUNKS} chunks"
    )
    assert min(overlaps) >= 0.8
    assert sum(overlaps) / len(overlaps) >= 0.9, overlaps


def test_nearest_of_a_stored_vector_is_itself(vector_db):
    with psycopg.connect(vector_db["url"]) as conn:
        conn.execute("SET enable_seqscan = off")
        for i in (0, 17, 399):
            hits = search_pgvector(conn, vector_db["vectors"][i], 3, ef_search=100)
            assert hits[0][0] == vector_db["ids"][i]
            assert hits[0][1] == pytest.approx(1.0, abs=1e-5)


def test_ef_search_is_local_to_the_search(vector_db):
    with psycopg.connect(vector_db["url"], autocommit=True) as conn:
        search_pgvector(conn, vector_db["queries"][0], 5, ef_search=123)
        assert conn.execute("SHOW hnsw.ef_search").fetchone()[0] == "40"


def test_current_only_skips_superseded_versions(vector_db):
    with psycopg.connect(vector_db["url"]) as conn:
        new_version = conn.execute(
            "INSERT INTO document_versions (doc_id, sha256, byte_size) VALUES ('doc-b', 'new', 1) RETURNING version_id"
        ).fetchone()[0]
        conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = 'doc-b'", (new_version,))
        conn.commit()
        conn.execute("SET enable_seqscan = off")
        hits = search_pgvector(conn, vector_db["queries"][1], 10, ef_search=100, current_only=True)
        everything = search_pgvector(conn, vector_db["queries"][1], 10, ef_search=100)
    assert len(hits) == 10
    doc_a = {cid for i, cid in enumerate(vector_db["ids"]) if i % 2}
    assert {cid for cid, _ in hits} <= doc_a
    assert any(cid not in doc_a for cid, _ in everything)


@pytest.mark.parametrize(
    "vector, k, message",
    [
        ([0.1] * 10, 5, "dimensions"),
        ([float("nan")] + [0.0] * (DIMENSION - 1), 5, "NaN"),
        ([0.0] * DIMENSION, 5, "zeros"),
        ([0.1] * DIMENSION, 0, "positive"),
        ("[0.1, 0.2]", 5, "sequence of numbers"),
        (["a"] * DIMENSION, 5, "sequence of numbers"),
    ],
)
def test_rejects_bad_queries(vector, k, message):
    with pytest.raises(ValueError, match=message):
        search_pgvector(None, vector, k)


def test_layer_filter_keeps_the_index_and_the_layer(vector_db):
    from mendel.index.pgvector import _SEARCH_ALL

    target = vector_db["vectors"][0]
    with psycopg.connect(vector_db["url"]) as conn:
        # 400 rows: the planner would sort them all; without a sort the layer filter must ride on the HNSW scan
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            conn.execute(f"SET {setting} = off")
        plan = "\n".join(
            r[0] for r in conn.execute("EXPLAIN " + _SEARCH_ALL, {"q": _literal(target), "k": 10, "layer": 3})
        )
        assert "chunks_embedding_l3_hnsw_idx" in plan
        conn.execute("UPDATE chunks SET layer = 2 WHERE chunk_id = %s", (vector_db["ids"][0],))
        conn.commit()
        passages = search_pgvector(conn, target, 5, ef_search=100)  # layer 3 by default
        sections = search_pgvector(conn, target, 5, ef_search=100, layer=2)
        every = search_pgvector(conn, target, 5, ef_search=100, layer=None)
    assert vector_db["ids"][0] not in {cid for cid, _ in passages} and len(passages) == 5
    assert [cid for cid, _ in sections] == [vector_db["ids"][0]]  # the only layer-2 row
    assert every[0][0] == vector_db["ids"][0]
    with pytest.raises(ValueError, match="layer"):
        search_pgvector(None, target, 5, layer=4)
