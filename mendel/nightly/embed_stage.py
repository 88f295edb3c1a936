"""The embed stage: passage vectors where their dense text or the model changed (through the content-hash
cache), then section and document vectors as centroids of their passages."""

from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np
import psycopg
from psycopg import sql

from mendel.core import stage_versions
from mendel.index import dense
from mendel.index.corpus import dense_texts, load_layer
from mendel.index.embed import Embedder, embed_with_cache, text_hash, to_pgvector


def vector_hash(model: str, text: str) -> str:
    """What a stored vector was computed from: the model and the exact input text."""
    return text_hash(f"{model}\n{text}")


# Vectors written at once above which the chunks' vector index is dropped and built again after the writes (in
# the same transaction): pgvector builds an HNSW index in bulk several times faster than it takes row by row.
BULK_VECTOR_WRITES = 2000


@contextmanager
def _vector_index_set_aside(conn: psycopg.Connection, writes: int):
    """Around a bulk write of passage vectors (and their sections' and documents'), inside the caller's
    transaction: the HNSW indexes of ``chunks`` dropped before and created again, as defined, after. Readers of
    ``chunks`` wait for the transaction; a failure rolls the drop back with the writes."""
    if writes < BULK_VECTOR_WRITES:
        yield
        return
    indexes = conn.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'chunks'"
        " AND indexdef ILIKE '%% USING hnsw %%' ORDER BY indexname"
    ).fetchall()
    for name, _ in indexes:
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
    yield
    for _, definition in indexes:
        conn.execute(definition)  # the catalogue's own definition, as the migration made it


def _embed_upper_layers(conn: psycopg.Connection, batch_versions: int = 200) -> dict:
    """L2 and L1 vectors as the unit centroid of their L3 passages' vectors, recomputed only where the set
    of passage vectors changed (their hashes are folded into the parent's ``embedded_hash``)."""
    rows = conn.execute(
        "SELECT p.chunk_id, p.layer, p.version_id, p.embedded_hash,"
        " string_agg(coalesce(c.embedded_hash, '?'), ',' ORDER BY c.seq), bool_and(c.embedding IS NOT NULL)"
        " FROM chunks p JOIN documents d ON d.doc_id = p.doc_id AND"
        " coalesce(d.served_version_id, d.current_version_id) = p.version_id"
        " JOIN chunks c ON c.version_id = p.version_id AND c.layer = 3 AND (p.layer = 1 OR c.parent_id = p.chunk_id)"
        " WHERE p.layer IN (1, 2) AND d.status = 'active'"
        " GROUP BY p.chunk_id, p.layer, p.version_id, p.embedded_hash"
    ).fetchall()
    pending: dict[int, list[tuple[str, int, str]]] = {}
    for parent_id, layer, version_id, stored, children, complete in rows:
        expected = text_hash(f"centroid\n{children}")
        if complete and stored != expected:
            pending.setdefault(version_id, []).append((parent_id, layer, expected))
    updated = {1: 0, 2: 0}
    versions = sorted(pending)
    for start in range(0, len(versions), batch_versions):
        batch = versions[start : start + batch_versions]
        children: dict[int, list[tuple[str | None, np.ndarray]]] = {}
        for version_id, parent_id, vector in conn.execute(
            "SELECT version_id, parent_id, embedding::text FROM chunks"
            " WHERE layer = 3 AND version_id = ANY(%s) ORDER BY version_id, seq",
            (batch,),
        ):
            children.setdefault(version_id, []).append((parent_id, dense.parse_vector(vector)))
        updates = []
        for version_id in batch:
            for parent_id, layer, expected in pending[version_id]:
                members = [v for p, v in children[version_id] if layer == 1 or p == parent_id]
                updates.append((to_pgvector(dense.centroid(np.stack(members))), expected, parent_id))
                updated[layer] += 1
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany("UPDATE chunks SET embedding = %s::vector, embedded_hash = %s WHERE chunk_id = %s", updates)
    return updated


def embed_pending(conn: psycopg.Connection, embedder: Embedder) -> dict:
    """Vectors for passages whose dense text (mendel.index.corpus.dense_texts) or model changed since they were
    embedded, through the content-hash cache; then section and document vectors as centroids of their passages."""
    started = time.monotonic()
    reprocessed = stage_versions.reprocess_embed(
        conn, embedder.name
    )  # vectors another model (or an unrecorded one) made
    records = load_layer(conn, 3)
    stored = dict(conn.execute("SELECT chunk_id, embedded_hash FROM chunks WHERE layer = 3 AND embedding IS NOT NULL"))
    pending = [
        (r, t, h)
        for r, t in zip(records, dense_texts(conn, records))
        if stored.get(r.chunk_id) != (h := vector_hash(embedder.name, t))
    ]
    vectors, newly = embed_with_cache(conn, embedder, [t for _, t, _ in pending])
    with conn.transaction(), _vector_index_set_aside(conn, len(pending)):
        with conn.cursor() as cur:
            cur.executemany(
                "UPDATE chunks SET embedding = %s::vector, embedded_hash = %s, embed_version = %s WHERE chunk_id = %s",
                [(to_pgvector(v), h, embedder.name, r.chunk_id) for (r, _, h), v in zip(pending, vectors)],
            )
        upper = _embed_upper_layers(conn)
    return {
        "chunks": len(pending),
        "embedded": newly,
        "cache_hits": len(pending) - newly,
        "sections": upper[2],
        "documents": upper[1],
        "seconds": round(time.monotonic() - started, 2),
        "model": embedder.name,
        "reprocessed_by_version": reprocessed,
    }
