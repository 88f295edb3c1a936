"""A published bundle loaded into a migrated PostgreSQL database, so the postgres serving backend answers over the
same chunks as the bundle backend (the parity tests, ``benchmarks/bench_pg_backend.py``): documents, the passages
and, where the bundle has them, its document and section layers, with their vectors and analysed terms, the graph
and its chunk -> entity links."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from mendel.czech.analyzer import analyze
from mendel.index import bundle
from mendel.index.corpus import contextual_text
from mendel.index.fulltext import lexemes_hash, tsvector_literal
from mendel.index.layer_terms import chunk_terms

HNSW_INDEX = (
    "CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops)"
    " WITH (m = 16, ef_construction = 64)"
)  # migration 0004's definition
UPPER_HNSW_INDEXES = [
    f"CREATE INDEX IF NOT EXISTS chunks_embedding_l{n}_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops)"
    f" WITH (m = 16, ef_construction = 64) WHERE layer = {n}"
    for n in (1, 2)
]  # migration 0035's
GIN_INDEX = "CREATE INDEX IF NOT EXISTS chunks_lexemes_gin_idx ON chunks USING gin (lexemes)"  # migration 0016's


def _vectors(bundle_path: Path) -> np.ndarray:
    import faiss

    index = faiss.read_index(str(bundle.faiss_index_path(bundle_path)))
    return index.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, 384), np.float32)


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"


def load_bundle(conn, bundle_path: Path, timings: dict | None = None) -> dict:
    """Write a published bundle's documents, L3 passages (with their FAISS vectors and the lexemes of their
    contextual text; their postings follow by migration 0034's triggers) and its L1/L2 chunks where it has them
    (with their vectors and terms: migration 0035), its graph nodes and edges and its chunk ->
    entity links (as mentions) into an empty, migrated database, so the postgres backend answers over the bundle's
    passages. The HNSW and GIN indexes are dropped during the load and built after it. Returns counts."""
    timings = {} if timings is None else timings
    clock = time.perf_counter()
    bundle_path = Path(bundle_path)
    documents = bundle.read_documents(bundle_path)
    graph = json.loads(bundle.graph_path(bundle_path).read_text())
    summaries = document_summaries(bundle_path, documents)
    conn.execute("SET maintenance_work_mem = '1GB'")
    for index in ("chunks_embedding_hnsw_idx", "chunks_embedding_l1_hnsw_idx", "chunks_embedding_l2_hnsw_idx"):
        conn.execute(f"DROP INDEX IF EXISTS {index}")
    conn.execute("DROP INDEX IF EXISTS chunks_lexemes_gin_idx")
    with (
        conn.cursor() as cur,
        cur.copy("COPY documents (doc_id, source, url, title, doc_type, citation, published) FROM STDIN") as copy,
    ):
        for d in documents:
            copy.write_row(
                (
                    d["doc_id"],
                    d.get("source") or "unknown",
                    d.get("url") or "",
                    d.get("title"),
                    d.get("doc_type"),
                    d.get("citation"),
                    d.get("published"),
                )
            )
    with (
        conn.cursor() as cur,
        cur.copy("COPY document_versions (doc_id, sha256, content_type, byte_size) FROM STDIN") as copy,
    ):
        for d in documents:
            copy.write_row(
                (
                    d["doc_id"],
                    d.get("sha256") or hashlib.sha256(d["doc_id"].encode()).hexdigest(),
                    d.get("content_type"),
                    0,
                )
            )
    conn.execute(
        "UPDATE documents d SET current_version_id = v.version_id FROM document_versions v WHERE v.doc_id = d.doc_id"
    )
    versions = dict(conn.execute("SELECT doc_id, version_id FROM document_versions"))
    chunk_ids = _copy_layer(conn, bundle_path, 3, versions, summaries)
    for layer in (1, 2):
        if bundle.layer_exists(bundle_path, layer):
            _copy_layer(conn, bundle_path, layer, versions, summaries)
    timings["rows_seconds"] = round(time.perf_counter() - clock, 2)
    links = graph.get("chunk_entities", {})
    live = set(chunk_ids)
    linked: dict[str, set[str]] = {}
    entity_docs: dict[str, set[str]] = {}
    chunk_doc = {}
    for _, _, c in _scan(bundle_path / bundle.CHUNKS):
        chunk_doc[c["chunk_id"]] = c["doc_id"]
    for chunk_id, found in links.items():
        if chunk_id in live:
            for entity in found:
                linked.setdefault(entity, set()).add(chunk_id)
                entity_docs.setdefault(entity, set()).add(chunk_doc[chunk_id])
    entities = {n["id"] for n in graph.get("nodes", ())} | set(linked)
    with conn.cursor() as cur, cur.copy("COPY entities (entity_id, label, norm) FROM STDIN") as copy:
        for entity in sorted(entities):
            label, _, norm = entity.partition(":")
            copy.write_row((entity, label, norm))
    with (
        conn.cursor() as cur,
        cur.copy("COPY graph_nodes (entity_id, label, norm, chunks, documents) FROM STDIN") as copy,
    ):
        for entity in sorted(entities):
            label, _, norm = entity.partition(":")
            copy.write_row((entity, label, norm, len(linked.get(entity, ())), len(entity_docs.get(entity, ()))))
    edges: dict[tuple[str, str, str], float] = {}
    for kind, items in (("CO_OCCURS", graph.get("edges", ())), (None, graph.get("relations", ()))):
        for e in items:
            if e["source"] in entities and e["target"] in entities:
                key = (e["source"], e["target"], kind or e.get("type", "REFERS_TO"))
                edges[key] = edges.get(key, 0.0) + float(e.get("weight", 1.0))
    with conn.cursor() as cur, cur.copy("COPY graph_edges (source, target, type, weight) FROM STDIN") as copy:
        for (source, target, kind), weight in edges.items():
            copy.write_row((source, target, kind, weight))
    with (
        conn.cursor() as cur,
        cur.copy("COPY mentions (chunk_id, entity_id, start_char, end_char, surface) FROM STDIN") as copy,
    ):
        for chunk_id, found in links.items():
            if chunk_id in live:
                for at, entity in enumerate(sorted(set(found))):  # the bundle keeps no offsets: one slot each
                    copy.write_row((chunk_id, entity, at, at + 1, ""))
    conn.commit()
    clock = time.perf_counter()
    conn.execute(GIN_INDEX)
    conn.commit()
    timings["gin_seconds"] = round(time.perf_counter() - clock, 2)
    clock = time.perf_counter()
    for statement in (HNSW_INDEX, *UPPER_HNSW_INDEXES):
        conn.execute(statement)
    conn.commit()
    timings["hnsw_seconds"] = round(time.perf_counter() - clock, 2)
    conn.autocommit = True  # VACUUM runs outside a transaction
    conn.execute("VACUUM (ANALYZE)")  # and sets the visibility map: chunk_postings is read by index-only scans
    conn.autocommit = False
    return {"documents": len(documents), "chunks": len(chunk_ids), "entities": len(entities), "edges": len(edges)}


def _copy_layer(conn, bundle_path: Path, layer: int, versions: dict, summaries: dict[str, str]) -> list[str]:
    """One layer's chunk rows of the bundle into ``chunks``, each with its FAISS vector and its contextual text
    analysed (L3: lexemes; L1/L2: term names and counts, mendel.index.layer_terms); their chunk ids in order."""
    root = bundle_path if layer == 3 else bundle.layer_path(bundle_path, layer)
    vectors = _vectors(root)
    analysed = "lexemes" if layer == 3 else "term_names, term_counts"
    chunk_ids = []
    with (
        conn.cursor() as cur,
        cur.copy(
            "COPY chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path, char_start,"
            f" char_end, text, content_hash, embedding, {analysed}, lexemes_hash) FROM STDIN"
        ) as copy,
    ):
        for row, (_, _, c) in enumerate(_scan(root / bundle.CHUNKS)):
            context = contextual_text(
                c.get("citation"),
                c.get("title") or "",
                c.get("section") or "",
                summaries.get(c["doc_id"], ""),
                c["text"],
            )
            terms = (tsvector_literal(analyze(context)),) if layer == 3 else chunk_terms(context)
            copy.write_row(
                (
                    c["chunk_id"],
                    versions[c["doc_id"]],
                    c["doc_id"],
                    layer,
                    c.get("seq", row),
                    c["page_start"],
                    c["page_end"],
                    c.get("section") or "",
                    c.get("char_start", 0),
                    c.get("char_end", 0),
                    c["text"],
                    hashlib.sha256(c["text"].encode()).hexdigest(),
                    _vector_text(vectors[row]),
                    *terms,
                    lexemes_hash(context),
                )
            )
            chunk_ids.append(c["chunk_id"])
    return chunk_ids


def document_summaries(bundle_path: Path, documents: list[dict]) -> dict[str, str]:
    """Each document's summary as the bundle's passages were indexed with it: its L1 chunk's summary (what
    mendel.index.corpus reads as a passage's document summary), else documents.json's. A scale bundle's
    documents.json has empty summaries while its BM25 index holds each document's first sentence as the summary."""
    found = {d["doc_id"]: d.get("summary") or "" for d in documents}
    top = bundle.layer_path(bundle_path, 1) / bundle.CHUNKS
    if top.exists():
        for _, _, c in _scan(top):
            if c.get("summary"):
                found[c["doc_id"]] = c["summary"]
    return found


def _scan(path: Path):
    from serving.ranking.layers import ChunkTable

    return ChunkTable.scan(path)
