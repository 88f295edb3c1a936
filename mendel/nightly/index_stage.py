"""The index stage: BM25 and FAISS of every layer and the entity graph, each rebuilt only where what it is built
from changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import psycopg

from mendel.core import stage_versions
from mendel.index import bundle, dense, entity_graph, lexical
from mendel.index.corpus import load_layer


def _layer_dir(out_dir: Path, layer: int) -> Path:
    """Build directory of one index part for a layer: L3 in ``out_dir`` itself (``build/bm25``), L1/L2 in
    ``build/layers/L<n>/<part>``, as in the bundle."""
    return bundle.part_path(Path(out_dir).parent, Path(out_dir).name, layer)


def build_bm25(conn: psycopg.Connection, out_dir: Path) -> dict:
    """BM25 of every layer over the contextual texts; a layer whose chunks and texts are unchanged is kept."""
    stats: dict = {}
    rebuilt = []
    for layer in (3, 2, 1):
        records = load_layer(conn, layer)
        ids, texts = [r.chunk_id for r in records], [r.context_text for r in records]
        # the analyser's stage version (a digest of its code) is part of what the index is built from
        digest = hashlib.sha256(
            f"{lexical.fingerprint(ids, texts)}:{stage_versions.version('analyser')}".encode()
        ).hexdigest()
        target = _layer_dir(out_dir, layer)
        if lexical.is_current(target, digest):
            info = lexical.read_build_info(target)
        else:
            info = lexical.write_bm25(target, ids, texts, digest)
            rebuilt.append(f"L{layer}")
        prefix = "" if layer == 3 else f"l{layer}_"
        stats.update({f"{prefix}chunks": info["chunks"], f"{prefix}vocabulary": info["vocabulary"]})
    return {**stats, "rebuilt": ",".join(rebuilt) or "none"}


def build_faiss(conn: psycopg.Connection, out_dir: Path, dim: int = 384) -> dict:
    """FAISS of every layer (kind by size, see mendel.index.dense); a layer whose vectors are unchanged is kept."""
    stats: dict = {}
    rebuilt = []
    ivfpq_min = dense.ivfpq_threshold()
    for layer in (3, 2, 1):
        rows = conn.execute(
            "SELECT c.chunk_id, c.embedded_hash FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
            " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
            " WHERE d.status = 'active' AND c.embedding IS NOT NULL"
            " AND c.layer = %s ORDER BY c.doc_id, c.seq",
            (layer,),
        ).fetchall()
        ids = [cid for cid, _ in rows]
        digest = dense.fingerprint(ids, [h for _, h in rows])
        kind = dense.choose_kind(len(ids), ivfpq_min)
        target = _layer_dir(out_dir, layer)
        if dense.is_current(target, digest, kind):
            info = lexical.read_build_info(target)
        else:
            vectors = {
                cid: dense.parse_vector(v)
                for cid, v in conn.execute(
                    "SELECT c.chunk_id, c.embedding::text FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
                    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
                    " WHERE d.status = 'active' AND c.embedding IS NOT NULL"
                    " AND c.layer = %s",
                    (layer,),
                )
            }
            matrix = np.stack([vectors[cid] for cid in ids]) if ids else np.zeros((0, dim), np.float32)
            info = dense.write_faiss(target, ids, matrix, kind=kind, digest=digest, dim=dim)
            rebuilt.append(f"L{layer}")
        prefix = "" if layer == 3 else f"l{layer}_"
        stats.update({f"{prefix}vectors": info["vectors"], f"{prefix}index_type": info["index_type"]})
    return {**stats, "dim": dim, "rebuilt": ",".join(rebuilt) or "none"}


def build_graph(conn: psycopg.Connection, out_dir: Path) -> dict:
    """The entity graph (mendel.index.entity_graph): per-document contributions kept in step with the live documents,
    aggregated into PostgreSQL and ``out_dir/graph.json``."""
    return entity_graph.build_graph(conn, out_dir)
