"""The index stage: BM25 (with the chunk table) and FAISS of every layer, grown by segments (mendel.index.segments:
a night writes what changed, tombstones what it replaces and merges segments of like size), and the entity graph."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import psycopg

from mendel.core import stage_versions
from mendel.index import (
    bundle,
    change_marks,
    dense,
    entity_graph,
    lexical,
    segment_bm25,
    segment_dense,
    segment_updates,
    segments,
)
from mendel.index.corpus import layer_digests_of, load_layer


def _layer_dir(out_dir: Path, layer: int) -> Path:
    """Build directory of one index part for a layer: L3 in ``out_dir`` itself (``build/bm25``), L1/L2 in
    ``build/layers/L<n>/<part>``, as in the bundle."""
    return bundle.part_path(Path(out_dir).parent, Path(out_dir).name, layer)


# Merges the nightly runs itself: none writing more rows than this (a merge of the HNSW kind costs ~1 s per 250 rows
# on a busy core); larger ones are left to :func:`merge_large` outside the night.
NIGHTLY_MERGE_ROWS = 40_000
BACKGROUND_MERGE_ROWS = 2_000_000


def analyzer_version() -> str:
    # the analyser's stage version (a digest of its code) is part of what the index is built from
    return f"{lexical.ANALYZER_VERSION}:{stage_versions.version('analyser')}"


def build_bm25(conn: psycopg.Connection, out_dir: Path, max_merge_rows: int = NIGHTLY_MERGE_ROWS) -> dict:
    """BM25 and the chunk table of every layer, in segments (mendel.index.segment_bm25): the documents whose
    chunks or indexed texts changed go into one new segment, the rows they replace are tombstoned."""
    stats: dict = {}
    changed = []
    analyzer = analyzer_version()
    for layer in (3, 2, 1):
        target = _layer_dir(out_dir, layer)

        def digests_of(doc_ids, layer=layer):
            found, examined = layer_digests_of(conn, layer, doc_ids)
            return {d: hashlib.sha256(f"{analyzer}:{h}".encode()).hexdigest() for d, h in found.items()}, examined

        # what the documents' rows are made of, digested in the database for the documents marked changed since the
        # part's last night (mendel.index.change_marks): only changed documents are loaded
        current, mark, read = change_marks.current_digests(conn, target, analyzer, digests_of)

        def write_new(doc_ids: list[str], layer=layer, current=current, target=target) -> segments.Segment:
            records = segments.group_by_document(load_layer(conn, layer, doc_ids), lambda r: r.doc_id, lambda _: "")
            rows = [
                segments.DocumentRows(
                    d, current[d], [(r.chunk_id, r.bundle_row(), r.context_text) for r in records[d].rows]
                )
                for d in doc_ids
            ]
            return segment_bm25.write_segment(target, layer, rows, analyzer)

        def merge(state, group, layer=layer, target=target) -> segments.Segment:
            return segment_bm25.merge_segments(target, layer, state, group, analyzer)

        info = segment_updates.update_part(target, current, write_new, merge, max_merge_rows)
        change_marks.write_mark(target, mark, analyzer)
        if info["changed"]:
            changed.append(f"L{layer}")
        prefix = "" if layer == 3 else f"l{layer}_"
        stats.update({f"{prefix}{k}": info[k] for k in _REPORTED})
        stats.update({f"{prefix}chunks": info["rows"], f"{prefix}documents_digested": read["documents_digested"]})
    return {**stats, "rebuilt": ",".join(changed) or "none"}


_REPORTED = ("segments", "written_rows", "deleted_rows", "merges", "bytes_written")
# Per document with vectors (its served version: mendel.crawl.last_good), a digest of its chunks in order and what
# each vector was made from (as dense.fingerprint).
_VECTOR_DIGESTS = (
    "SELECT c.doc_id, md5(string_agg(c.chunk_id || ':' || coalesce(c.embedded_hash, 'None'), chr(10)"
    " ORDER BY c.seq, c.chunk_id)), count(*)"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE d.status = 'active' AND c.embedding IS NOT NULL AND c.layer = %s GROUP BY c.doc_id"
)
_VECTOR_DIGESTS_OF_DOCUMENTS = (
    "SELECT c.doc_id, md5(string_agg(c.chunk_id || ':' || coalesce(c.embedded_hash, 'None'), chr(10)"
    " ORDER BY c.seq, c.chunk_id)), count(*)"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE d.status = 'active' AND c.embedding IS NOT NULL AND c.layer = %s AND c.doc_id = ANY(%s)"
    " GROUP BY c.doc_id"
)
VECTORS_BASIS = "vectors-1"  # what _VECTOR_DIGESTS digests: a new basis when it changes
_VECTORS_OF_DOCUMENTS = (
    "SELECT c.doc_id, c.chunk_id, c.embedding::text"
    " FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE d.status = 'active' AND c.embedding IS NOT NULL AND c.layer = %s AND c.doc_id = ANY(%s)"
    " ORDER BY c.doc_id, c.seq, c.chunk_id"
)


def build_faiss(
    conn: psycopg.Connection, out_dir: Path, dim: int = 384, max_merge_rows: int = NIGHTLY_MERGE_ROWS
) -> dict:
    """FAISS of every layer, in segments (mendel.index.segment_dense): the documents whose vectors changed go into
    one new segment of the kind the layer's size asks for, the rows they replace are tombstoned."""
    stats: dict = {}
    changed = []
    ivfpq_min = dense.ivfpq_threshold()
    for layer in (3, 2, 1):
        target = _layer_dir(out_dir, layer)
        counts: dict[str, int] = {}

        def digests_of(doc_ids, layer=layer, counts=counts):
            if doc_ids is None:
                found = conn.execute(_VECTOR_DIGESTS, (layer,)).fetchall()
            else:
                found = conn.execute(_VECTOR_DIGESTS_OF_DOCUMENTS, (layer, list(doc_ids))).fetchall()
            counts.update({d: n for d, _, n in found})
            return {d: digest for d, digest, _ in found}, None if doc_ids is None else set(doc_ids)

        current, mark, read = change_marks.current_digests(conn, target, VECTORS_BASIS, digests_of)
        # the layer's vectors: those digested now, and the live rows of every other document the part holds
        held = segments.PartState.read(target).live_documents() if segments.is_segmented(target) else {}
        total = sum(counts.values()) + sum(n for d, (_, _, _, n) in held.items() if d in current and d not in counts)

        def write_new(doc_ids: list[str], layer=layer, current=current, total=total, target=target) -> segments.Segment:
            rows = conn.execute(_VECTORS_OF_DOCUMENTS, (layer, doc_ids)).fetchall()
            chunks = segments.group_by_document(rows, lambda r: r[0], lambda _: "")
            documents = [segments.DocumentRows(d, current[d], [r[1] for r in chunks[d].rows]) for d in doc_ids]
            vectors = [dense.parse_vector(r[2]) for d in doc_ids for r in chunks[d].rows]
            matrix = np.stack(vectors) if vectors else np.zeros((0, dim), np.float32)
            kind = segment_dense.segment_kind(len(vectors), total, ivfpq_min)
            return segment_dense.write_segment(target, layer, documents, matrix, kind, dim)

        def merge(state, group, layer=layer, total=total, target=target) -> segments.Segment:
            rows = sum(state.live_rows(s) for s in group)
            kind = segment_dense.segment_kind(rows, total, ivfpq_min)
            return segment_dense.merge_segments(target, layer, state, group, kind)

        def kinds(state) -> dict:
            return {"index_type": ",".join(sorted({s.meta["index_type"] for s in state.segments})) or "flat"}

        info = segment_updates.update_part(
            target, current, write_new, merge, max_merge_rows, kinds, outdated=segment_dense.outdated
        )
        change_marks.write_mark(target, mark, VECTORS_BASIS)
        if info["changed"]:
            changed.append(f"L{layer}")
        prefix = "" if layer == 3 else f"l{layer}_"
        stats.update({f"{prefix}{k}": info[k] for k in _REPORTED})
        stats[f"{prefix}documents_digested"] = read["documents_digested"]
        stats.update({f"{prefix}vectors": info["rows"], f"{prefix}index_type": info.get("index_type", "flat")})
    return {**stats, "dim": dim, "rebuilt": ",".join(changed) or "none"}


def merge_large(build_dir: Path, max_merge_rows: int = BACKGROUND_MERGE_ROWS) -> dict:
    """The merges the nightly leaves (those writing more than NIGHTLY_MERGE_ROWS rows), for every part and layer of
    the build directory; run outside the night, then published like a night's build. Returns merges per part."""
    done = {}
    ivfpq_min = dense.ivfpq_threshold()
    analyzer = analyzer_version()
    for layer in (3, 2, 1):
        for part in bundle.LAYER_PARTS:
            target = bundle.part_path(Path(build_dir), part, layer)
            if not segments.is_segmented(target):
                continue

            def merge(state, group, layer=layer, part=part, target=target) -> segments.Segment:
                if part == bundle.BM25_PART:
                    return segment_bm25.merge_segments(target, layer, state, group, analyzer)
                total = sum(state.live_rows(s) for s in state.segments)
                kind = segment_dense.segment_kind(sum(state.live_rows(s) for s in group), total, ivfpq_min)
                return segment_dense.merge_segments(target, layer, state, group, kind)

            outdated = segment_dense.outdated if part == bundle.DENSE_PART else None
            done[f"L{layer}.{part}"] = segment_updates.merge_part(target, merge, max_merge_rows, outdated)
    return done


def build_graph(conn: psycopg.Connection, out_dir: Path) -> dict:
    """The entity graph (mendel.index.entity_graph): per-document contributions kept in step with the live documents,
    aggregated into PostgreSQL and ``out_dir/graph.json``."""
    return entity_graph.build_graph(conn, out_dir)
