"""The embed stage: passage vectors where their dense text or the model changed (through the content-hash
cache), then section and document vectors as centroids of their passages.

A night with no document marked changed since the stage last ran (mendel.index.change_marks), on the same basis
(:func:`embed_basis`: the embedder, the code that makes a dense text, and what of a dense text no mark follows),
reads no passage (an act's heading paths, from its act tables, mark it when they change: migration 0040); any other
night reads every passage, as before marks.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np
import psycopg
from psycopg import sql

from mendel.core import stage_versions
from mendel.index import change_marks, dense
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


# Each live section (L2) with its passages, then each live document (L1) with all of its version's passages: two
# joins, not one on "p.layer = 1 OR c.parent_id = p.chunk_id" (that one paired every section of a version with
# every passage of it: 10-12 s on the sample's 33,444 parents, 2.2-2.5 s this way, the same rows).
_UPPER_LAYER = (
    "SELECT p.chunk_id, p.layer, p.version_id, p.embedded_hash,"
    " string_agg(coalesce(c.embedded_hash, '?'), ',' ORDER BY c.seq), bool_and(c.embedding IS NOT NULL)"
    " FROM chunks p JOIN documents d ON d.doc_id = p.doc_id AND"
    " coalesce(d.served_version_id, d.current_version_id) = p.version_id"
    " JOIN chunks c ON c.version_id = p.version_id AND c.layer = 3{children}"
    " WHERE p.layer = {layer} AND d.status = 'active'{documents}"
    " GROUP BY p.chunk_id, p.layer, p.version_id, p.embedded_hash"
)
_UPPER_LAYERS = (
    _UPPER_LAYER.format(layer=2, children=" AND c.parent_id = p.chunk_id", documents="{documents}")
    + " UNION ALL "
    + _UPPER_LAYER.format(layer=1, children="", documents="{documents}")
)
_UPPER_LAYERS_ALL = _UPPER_LAYERS.format(documents="")
_UPPER_LAYERS_OF_DOCUMENTS = _UPPER_LAYERS.format(documents=" AND p.doc_id = ANY(%(documents)s)")
_STORED_HASHES = "SELECT chunk_id, embedded_hash FROM chunks WHERE layer = 3 AND embedding IS NOT NULL"
_STORED_HASHES_OF_DOCUMENTS = _STORED_HASHES + " AND doc_id = ANY(%s)"


def _embed_upper_layers(conn: psycopg.Connection, batch_versions: int = 200, doc_ids: list[str] | None = None) -> dict:
    """L2 and L1 vectors as the unit centroid of their L3 passages' vectors, recomputed only where the set
    of passage vectors changed (their hashes are folded into the parent's ``embedded_hash``). ``doc_ids``: only
    those documents' (a parent's passages are its own document's)."""
    if doc_ids is None:
        rows = conn.execute(_UPPER_LAYERS_ALL).fetchall()
    else:
        rows = conn.execute(_UPPER_LAYERS_OF_DOCUMENTS, {"documents": doc_ids}).fetchall()
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


MARK_CONSUMER = "embeddings"
# The code a dense text (and its hash) is made by: a change reads every passage again.
DENSE_TEXT_CODE = stage_versions.Stage(
    "dense_text",
    (
        "index/corpus.py",
        "index/embed.py",
        "nightly/embed_stage.py",
        "passages/act_passages.py",
        "law/heading_wordings.py",
        "law/provision_wordings.py",
        "data/provision_wordings.v1.yaml",
        "law/vocabulary.py",
        "data/legal_vocabulary.v1.yaml",
    ),
)
# What a dense text depends on that no change mark follows, besides the acts' tables: each active document's
# listing (its boilerplate is its listing's: mendel.index.corpus.boilerplate_lines; documents.listing is not
# marked), and which documents have a provision tree (those are read every night).
_UNMARKED_INPUTS = (
    "SELECT md5(coalesce(string_agg(doc_id || chr(31) || listing, chr(30) ORDER BY doc_id), ''))"
    " FROM documents WHERE status = 'active' AND listing IS NOT NULL",
    "SELECT md5(coalesce(string_agg(doc_id, chr(30) ORDER BY doc_id), ''))"
    " FROM (SELECT DISTINCT doc_id FROM provisions) acts",
)


def embed_basis(conn: psycopg.Connection, embedder_name: str) -> str:
    """What a consumed change mark of this stage holds for: the embedder, the code that makes a dense text, and a
    digest of what of a dense text no mark follows (:data:`_UNMARKED_INPUTS`)."""
    listings, acts = (conn.execute(query).fetchone()[0] for query in _UNMARKED_INPUTS)
    return f"{embedder_name} {DENSE_TEXT_CODE.version()} listings:{listings} acts:{acts}"


def documents_to_read(conn: psycopg.Connection, embedder_name: str, reprocessed: int) -> tuple[list[str] | None, str]:
    """The documents whose passages this night reads (None: every one) and the basis to consume the mark with:
    none when nothing was marked since the mark consumed on this basis, else all."""
    basis = embed_basis(conn, embedder_name)
    since = None if reprocessed else change_marks.consumed_mark(conn, MARK_CONSUMER, basis)
    if since is None or change_marks.marked_since(conn, since):
        return None, basis
    return [], basis


def embed_pending(conn: psycopg.Connection, embedder: Embedder) -> dict:
    """Vectors for passages whose dense text (mendel.index.corpus.dense_texts) or model changed since they were
    embedded, through the content-hash cache; then section and document vectors as centroids of their passages.
    A night with nothing marked changed reads only the acts and their listings (the module docstring)."""
    started = time.monotonic()
    mark = change_marks.newest_mark(conn)  # before anything is read: a change committed after it is seen next time
    reprocessed = stage_versions.reprocess_embed(
        conn, embedder.name
    )  # vectors another model (or an unrecorded one) made
    documents, basis = documents_to_read(conn, embedder.name, reprocessed)
    records = load_layer(conn, 3) if documents is None else load_layer(conn, 3, documents)
    if documents is None:
        stored = dict(conn.execute(_STORED_HASHES))
    else:
        stored = dict(conn.execute(_STORED_HASHES_OF_DOCUMENTS, (documents,)))
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
        upper = _embed_upper_layers(conn, doc_ids=documents)
    change_marks.consume_mark(conn, MARK_CONSUMER, mark, basis)
    return {
        "read": "all" if documents is None else "none",  # every passage, or none (nothing marked changed)
        "documents_read": len({r.doc_id for r in records}),
        "chunks": len(pending),
        "embedded": newly,
        "cache_hits": len(pending) - newly,
        "sections": upper[2],
        "documents": upper[1],
        "seconds": round(time.monotonic() - started, 2),
        "model": embedder.name,
        "reprocessed_by_version": reprocessed,
    }
