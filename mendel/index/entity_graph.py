"""The entity graph: canonical entities as nodes, weighted co-occurrence and typed edges, passage -> entity links,
built incrementally from each document's contributions (``graph_contributions``) and stored in PostgreSQL and in the
bundle as ``graph/graph.json``. The model is described in docs/architecture.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import psycopg

from mendel.index.bundle import BUILD_INFO, GRAPH_FILE
from mendel.index.lexical import read_build_info

log = logging.getLogger("mendel.graph")

# Dates and amounts are attributes, not graph nodes: linking every chunk with "2024-01-01" is noise.
GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")
DOC_EDGE_TOP_ENTITIES = 30
DOCUMENT_WEIGHT = 0.5
# What logged queries add to an edge is at most this share of the heaviest data edge (chunks + documents): a flood
# of queries can strengthen a pair, never make it outweigh what the documents themselves connect.
QUERY_WEIGHT_MAX_SHARE = 0.5
TYPED_KINDS = ("REFERS_TO", "PART_OF", "AMENDS", "REPEALS")
RELATION_KINDS = ("AMENDS", "REPEALS")


def _split(entity_id: str) -> tuple[str, str]:
    label, _, norm = entity_id.partition(":")
    return label, norm


def document_entity(doc_id: str, doc_type: str | None, citation: str | None) -> str:
    """The node that stands for a document as the source of its REFERS_TO edges."""
    if citation and (doc_type or "").startswith("law"):
        return f"LAW_REF:{citation}"
    if citation and doc_type == "decision":
        return f"DECISION_REF:{citation}"
    return f"DOCUMENT:{doc_id}"


def _act_of(entity_id: str) -> tuple[str | None, str | None]:
    from mendel.ner.rules import split_law_ref_norm

    label, norm = _split(entity_id)
    if label != "LAW_REF":
        return None, None
    return split_law_ref_norm(norm)


def document_contributions(
    doc_entity: str | None, chunk_entities: Iterable[Iterable[str]], relations: Iterable[tuple[str, str, str]] = ()
) -> dict[tuple[str, str, str], float]:
    """What one document adds to the graph: ``(kind, source, target) -> count`` (see the module docstring).
    ``chunk_entities`` holds the graph entities of each of its chunks; ``relations`` (kind, subject norm,
    object norm) its AMENDS/REPEALS rows."""
    out: dict[tuple[str, str, str], float] = defaultdict(float)
    chunks_with: Counter[str] = Counter()
    for members in chunk_entities:
        ordered = sorted(set(members))
        chunks_with.update(ordered)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                out[("CO_CHUNK", a, b)] += 1
    top = sorted(sorted(chunks_with, key=lambda e: (-chunks_with[e], e))[:DOC_EDGE_TOP_ENTITIES])
    for i, a in enumerate(top):
        for b in top[i + 1 :]:
            out[("CO_DOCUMENT", a, b)] += 1
    own_act = _split(doc_entity)[1] if doc_entity and doc_entity.startswith("LAW_REF:") else None
    for entity, n in chunks_with.items():
        out[("MENTIONED", entity, "")] = n
        act, provision = _act_of(entity)
        if act and provision:
            out[("PART_OF", entity, f"LAW_REF:{act}")] += n
        if doc_entity and entity != doc_entity and not (own_act and act == own_act):
            out[("REFERS_TO", doc_entity, entity)] += n  # its own provisions are PART_OF it, not cited by it
    for kind, subject, obj in relations:
        # Only an act amends or repeals, as itself: a decision's rows (its file number read as the subject) would
        # make a LAW_REF:<file number> node.
        if kind in RELATION_KINDS and own_act and subject == own_act and obj and subject != obj:
            out[(kind, f"LAW_REF:{subject}", f"LAW_REF:{obj}")] += 1
    return dict(out)


@dataclass
class Graph:
    nodes: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)  # CO_OCCURS
    relations: list[dict] = field(default_factory=list)  # typed

    def to_json(self, chunk_entities: Mapping[str, list[str]]) -> dict:
        return {
            "nodes": self.nodes,
            "edges": self.edges,
            "relations": self.relations,
            "chunk_entities": dict(sorted(chunk_entities.items())),
        }


def _node(entity_id: str, known: Mapping[str, tuple[str, str, str | None]]) -> dict:
    from mendel.ner.rules import eli_for

    if entity_id in known:
        label, norm, eli = known[entity_id]
    else:  # an endpoint no chunk names (an act known through its provisions, an amended act, a document)
        label, norm = _split(entity_id)
        act = _act_of(entity_id)[0]
        eli = eli_for(act) if act else None
    return {"id": entity_id, "label": label, "norm": norm, "eli": eli}


def aggregate(
    contributions: Iterable[tuple[str, str, str, str, float]],
    known: Mapping[str, tuple[str, str, str | None]] | None = None,
    query_edges: Iterable[tuple[str, str, float]] = (),
) -> Graph:
    """The graph from every document's contributions ``(doc_id, kind, source, target, count)`` plus query
    co-activation ``(a, b, weight)`` (entity ids, or bare norms resolved to the nodes carrying them)."""
    known = known or {}
    mentioned: Counter[str] = Counter()
    documents: Counter[str] = Counter()
    co: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    typed: dict[tuple[str, str, str], float] = defaultdict(float)
    for _doc_id, kind, source, target, count in contributions:
        if kind == "MENTIONED":
            mentioned[source] += count
            documents[source] += 1
        elif kind == "CO_CHUNK":
            co[(source, target)][0] += count
        elif kind == "CO_DOCUMENT":
            co[(source, target)][1] += count
        elif kind in TYPED_KINDS:
            typed[(kind, source, target)] += count
    node_ids = set(mentioned)
    for _kind, source, target in typed:
        node_ids.update((source, target))
    by_norm: dict[str, list[str]] = defaultdict(list)
    for entity_id in node_ids:
        by_norm[_split(entity_id)[1]].append(entity_id)
    for a, b, weight in query_edges:
        ends_a = [a] if a in node_ids else by_norm.get(a, [])
        ends_b = [b] if b in node_ids else by_norm.get(b, [])
        for x in ends_a:
            for y in ends_b:
                if x != y:
                    co[(min(x, y), max(x, y))][2] += float(weight)
    nodes = []
    for entity_id in sorted(node_ids):
        node = _node(entity_id, known)
        nodes.append({**node, "chunks": int(mentioned[entity_id]), "documents": int(documents[entity_id])})
    query_cap = QUERY_WEIGHT_MAX_SHARE * max((c + DOCUMENT_WEIGHT * d for c, d, _ in co.values()), default=0.0)
    co = {pair: (c, d, min(q, query_cap)) for pair, (c, d, q) in co.items()}
    edges = [
        {"source": a, "target": b, "weight": c + DOCUMENT_WEIGHT * d + q, "chunks": c, "documents": d, "queries": q}
        for (a, b), (c, d, q) in sorted(co.items())
        if c or d or q
    ]
    relations = [
        {"source": s, "target": t, "type": kind, "weight": w}
        for (kind, s, t), w in sorted(typed.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0]))
    ]
    return Graph(nodes, edges, relations)


def write_graph(
    out_dir: Path, graph: Graph, chunk_entities: Mapping[str, list[str]], digest: str | None = None
) -> dict:
    out_dir = Path(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    (out_dir / GRAPH_FILE).write_text(
        json.dumps(graph.to_json(chunk_entities), ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
    info = {
        "nodes": len(graph.nodes),
        "edges": len(graph.edges),
        "relations": len(graph.relations),
        "linked_chunks": len(chunk_entities),
    }
    (out_dir / BUILD_INFO).write_text(json.dumps({**info, "fingerprint": digest}, indent=1))
    return info


# --- PostgreSQL -----------------------------------------------------------------------------------------


def _table_exists(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]


def _document_inputs(conn: psycopg.Connection) -> dict[str, tuple[int, str, str]]:
    """doc_id -> (current version, document entity, fingerprint of everything its contributions come from)."""
    rows = conn.execute(
        "SELECT d.doc_id, coalesce(d.served_version_id, d.current_version_id), d.doc_type, d.citation,"
        " md5(coalesce(string_agg(m.chunk_id || '|' || m.entity_id, ',' ORDER BY m.chunk_id, m.entity_id), ''))"
        " FROM documents d JOIN chunks c"
        " ON c.version_id = coalesce(d.served_version_id, d.current_version_id) AND c.layer = 3"
        " LEFT JOIN (mentions m JOIN entities e ON e.entity_id = m.entity_id AND e.label = ANY(%s))"
        "   ON m.chunk_id = c.chunk_id"
        " WHERE d.status = 'active' GROUP BY d.doc_id",
        (list(GRAPH_LABELS),),
    ).fetchall()
    relations: dict[int, str] = {}
    if _table_exists(conn, "relations"):
        relations = dict(
            conn.execute(
                "SELECT version_id, md5(string_agg(kind || '|' || subject_norm || '|' || object_norm, ','"
                " ORDER BY kind, subject_norm, object_norm)) FROM relations GROUP BY version_id"
            ).fetchall()
        )
    found = {}
    for doc_id, version_id, doc_type, citation, mentions_md5 in rows:
        entity = document_entity(doc_id, doc_type, citation)
        digest = hashlib.sha256(f"{version_id}|{entity}|{mentions_md5}|{relations.get(version_id, '')}".encode())
        found[doc_id] = (version_id, entity, digest.hexdigest())
    return found


def _recompute(conn: psycopg.Connection, batch: dict[str, tuple[int, str, str]]) -> int:
    """Replace the contributions of the documents in ``batch``; returns the rows written."""
    doc_ids = list(batch)
    per_chunk: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for doc_id, chunk_id, entity_id in conn.execute(
        "SELECT c.doc_id, m.chunk_id, m.entity_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
        " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
        " JOIN mentions m ON m.chunk_id = c.chunk_id"
        " JOIN entities e ON e.entity_id = m.entity_id"
        " WHERE c.doc_id = ANY(%s) AND c.layer = 3 AND e.label = ANY(%s)",
        (doc_ids, list(GRAPH_LABELS)),
    ):
        per_chunk[doc_id][chunk_id].add(entity_id)
    relations: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    if _table_exists(conn, "relations"):
        for version_id, kind, subject, obj in conn.execute(
            "SELECT version_id, kind, subject_norm, object_norm FROM relations WHERE version_id = ANY(%s)",
            ([version for version, _, _ in batch.values()],),
        ):
            relations[version_id].append((kind, subject, obj))
    rows = []
    for doc_id, (version_id, entity, _digest) in batch.items():
        found = document_contributions(entity, per_chunk[doc_id].values(), relations[version_id])
        rows += [(doc_id, version_id, kind, source, target, count) for (kind, source, target), count in found.items()]
    with conn.transaction():
        conn.execute("DELETE FROM graph_contributions WHERE doc_id = ANY(%s)", (doc_ids,))
        with (
            conn.cursor() as cur,
            cur.copy("COPY graph_contributions (doc_id, version_id, kind, source, target, count) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO graph_documents (doc_id, version_id, fingerprint, built_at) VALUES (%s, %s, %s, now())"
                " ON CONFLICT (doc_id) DO UPDATE SET version_id = EXCLUDED.version_id,"
                " fingerprint = EXCLUDED.fingerprint, built_at = now()",
                [(doc_id, version, digest) for doc_id, (version, _, digest) in batch.items()],
            )
    return len(rows)


def sync_contributions(conn: psycopg.Connection, batch_size: int = 500) -> dict:
    """Bring ``graph_contributions`` in line with the live documents: changed ones recomputed, gone ones
    (withdrawn, superseded without chunks, deleted) removed, unchanged ones untouched."""
    inputs = _document_inputs(conn)
    built = dict(conn.execute("SELECT doc_id, fingerprint FROM graph_documents").fetchall())
    gone = [doc_id for doc_id in built if doc_id not in inputs]
    changed = {doc_id: value for doc_id, value in inputs.items() if built.get(doc_id) != value[2]}
    if gone:
        with conn.transaction():
            conn.execute("DELETE FROM graph_contributions WHERE doc_id = ANY(%s)", (gone,))
            conn.execute("DELETE FROM graph_documents WHERE doc_id = ANY(%s)", (gone,))
    written = 0
    items = sorted(changed.items())
    for start in range(0, len(items), batch_size):
        written += _recompute(conn, dict(items[start : start + batch_size]))
    digest = hashlib.sha256("\n".join(f"{d}:{v[2]}" for d, v in sorted(inputs.items())).encode())
    return {
        "documents": len(inputs),
        "documents_updated": len(changed),
        "documents_removed": len(gone),
        "contribution_rows_written": written,
        "fingerprint": digest.hexdigest(),
    }


def _query_edges(conn: psycopg.Connection) -> tuple[list[tuple[str, str, float]], str]:
    if not _table_exists(conn, "query_entity_edges"):
        return [], ""
    rows = [
        (a, b, float(w))
        for a, b, w in conn.execute(
            "SELECT a, b, weight FROM query_entity_edges WHERE weight IS NOT NULL AND weight > 0 ORDER BY a, b"
        )
    ]
    return rows, hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def _store(conn: psycopg.Connection, graph: Graph) -> None:
    with conn.transaction():
        conn.execute("DELETE FROM graph_edges")
        conn.execute("DELETE FROM graph_nodes")
        with (
            conn.cursor() as cur,
            cur.copy("COPY graph_nodes (entity_id, label, norm, eli, chunks, documents) FROM STDIN") as copy,
        ):
            for n in graph.nodes:
                copy.write_row((n["id"], n["label"], n["norm"], n["eli"], n["chunks"], n["documents"]))
        with (
            conn.cursor() as cur,
            cur.copy("COPY graph_edges (source, target, type, weight, chunks, documents, queries) FROM STDIN") as copy,
        ):
            for e in graph.edges:
                copy.write_row(
                    (e["source"], e["target"], "CO_OCCURS", e["weight"], e["chunks"], e["documents"], e["queries"])
                )
            for r in graph.relations:
                copy.write_row((r["source"], r["target"], r["type"], r["weight"], None, None, None))


def build_graph(conn: psycopg.Connection, out_dir: Path) -> dict:
    """Sync the contributions, then (when anything changed) aggregate them into ``graph_nodes`` /
    ``graph_edges`` and ``out_dir/graph.json``."""
    stats = sync_contributions(conn)
    query_edges, query_digest = _query_edges(conn)
    digest = hashlib.sha256(f"{stats.pop('fingerprint')}|{query_digest}".encode()).hexdigest()
    if read_build_info(out_dir).get("fingerprint") == digest and (Path(out_dir) / GRAPH_FILE).exists():
        info = {k: v for k, v in read_build_info(out_dir).items() if k != "fingerprint"}
        return {**stats, **info, "rebuilt": False}
    known = {
        eid: (label, norm, eli)
        for eid, label, norm, eli in conn.execute(
            "SELECT entity_id, label, norm, eli FROM entities WHERE label = ANY(%s)", (list(GRAPH_LABELS),)
        )
    }
    with conn.transaction(), conn.cursor(name="graph_contributions_scan") as cur:
        cur.itersize = 20_000
        cur.execute("SELECT doc_id, kind, source, target, count FROM graph_contributions")
        graph = aggregate(cur, known, query_edges)
    _store(conn, graph)
    chunk_entities: dict[str, list[str]] = {}
    for chunk_id, entity_ids in conn.execute(
        "SELECT m.chunk_id, array_agg(DISTINCT m.entity_id ORDER BY m.entity_id) FROM mentions m"
        " JOIN chunks c ON c.chunk_id = m.chunk_id AND c.layer = 3"
        " JOIN documents d ON d.doc_id = c.doc_id"
        " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
        " JOIN entities e ON e.entity_id = m.entity_id"
        " WHERE d.status = 'active' AND e.label = ANY(%s) GROUP BY m.chunk_id",
        (list(GRAPH_LABELS),),
    ):
        chunk_entities[chunk_id] = list(entity_ids)
    info = write_graph(out_dir, graph, chunk_entities, digest)
    log.info("graph: %d nodes, %d co-occurrence edges, %d typed edges", info["nodes"], info["edges"], info["relations"])
    return {**stats, **info, "query_edges": len(query_edges), "rebuilt": True}
