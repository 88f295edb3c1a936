"""The nightly stages as plain functions over PostgreSQL and the raw store; Dagster assets only call these.

Each stage picks up only what the previous one left pending, so a re-run does no repeated work.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psycopg

from mendel import crawlstate
from mendel.chunking import chunk_pages
from mendel.index import bundle
from mendel.index.analyzer import analyze
from mendel.index.embed import Embedder, embed_with_cache, to_pgvector
from mendel.rawstore import RawStore

log = logging.getLogger("mendel.pipeline")
HNSW_THRESHOLD = 50_000
RECORD_SOURCES = ("ruian",)  # sources whose files are register records, not pages
# Dates and amounts are attributes, not graph nodes: linking every chunk with "2024-01-01" is noise.
GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")
DOC_EDGE_TOP_ENTITIES = 30


# --- extract -------------------------------------------------------------------------------------

def extract_pending(conn: psycopg.Connection, store: RawStore) -> dict:
    """Pages and sections for every current document version not yet extracted; bad input is quarantined."""
    from mendel.extract.document import extract_document
    from mendel.extract.model import ExtractionError

    rows = conn.execute(
        "SELECT v.version_id, v.doc_id, v.sha256, v.content_type, d.source, d.url, d.title FROM document_versions v"
        " JOIN documents d ON d.current_version_id = v.version_id"
        " WHERE v.extracted_at IS NULL AND d.status = 'active' AND d.source <> ALL(%s) ORDER BY v.version_id",
        (list(RECORD_SOURCES),),
    ).fetchall()
    stats = {"versions": 0, "pages": 0, "ocr_pages": 0, "sections": 0, "quarantined": 0, "empty_pages": 0,
             "warnings": 0}
    if rows:
        log.info("extracting %d new document versions", len(rows))
    for version_id, doc_id, sha256, content_type, source, url, title in rows:
        try:
            document = extract_document(store.get(sha256), content_type, url)
        except (ExtractionError, FileNotFoundError) as exc:
            with conn.transaction():
                crawlstate.quarantine(conn, stage="extract", reason=str(exc), source=source, doc_id=doc_id,
                                      url=url, sha256=sha256)
                conn.execute("UPDATE document_versions SET extracted_at = now() WHERE version_id = %s", (version_id,))
            log.warning("quarantined %s: %s", doc_id, exc)
            stats["quarantined"] += 1
            continue
        with conn.transaction():
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO pages (version_id, page_no, text, is_ocr, ocr_confidence) VALUES (%s, %s, %s, %s, %s)"
                    " ON CONFLICT (version_id, page_no) DO UPDATE SET text = EXCLUDED.text, is_ocr = EXCLUDED.is_ocr,"
                    " ocr_confidence = EXCLUDED.ocr_confidence",
                    [(version_id, p.page_no, p.text, p.is_ocr, p.ocr_confidence) for p in document.pages],
                )
                cur.execute("DELETE FROM sections WHERE version_id = %s", (version_id,))
                section_ids: list[int] = []
                for section in document.sections:
                    parent_id = section_ids[section.parent] if section.parent is not None else None
                    cur.execute(
                        "INSERT INTO sections (version_id, parent_id, depth, kind, label, path, page_start, page_end,"
                        " char_start, char_end) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING section_id",
                        (version_id, parent_id, section.depth, section.kind, section.label, section.path,
                         section.page_start, section.page_end, section.char_start, section.char_end),
                    )
                    section_ids.append(cur.fetchone()[0])
            if document.title and not title:
                conn.execute("UPDATE documents SET title = %s WHERE doc_id = %s", (document.title, doc_id))
            conn.execute("UPDATE document_versions SET extracted_at = now() WHERE version_id = %s", (version_id,))
        stats["versions"] += 1
        stats["pages"] += len(document.pages)
        stats["ocr_pages"] += sum(1 for p in document.pages if p.is_ocr)
        stats["sections"] += len(document.sections)
        stats["warnings"] += len(document.warnings)
        stats["empty_pages"] += sum(1 for p in document.pages if len(p.text.strip()) < 50)
    return stats


# --- chunk ---------------------------------------------------------------------------------------

def chunk_id(version_id: int, layer: int, start: int, end: int) -> str:
    return hashlib.sha256(f"{version_id}:{layer}:{start}:{end}".encode()).hexdigest()[:32]


def chunk_pending(conn: psycopg.Connection) -> dict:
    """L3 chunks for extracted current versions without chunks; chunks of superseded versions go."""
    stats = {"versions": 0, "chunks": 0, "superseded_chunks_removed": 0}
    with conn.transaction():
        removed = conn.execute(
            "DELETE FROM chunks c USING documents d WHERE c.doc_id = d.doc_id"
            " AND (c.version_id <> d.current_version_id OR d.status <> 'active')"
        )
        stats["superseded_chunks_removed"] = removed.rowcount
    versions = conn.execute(
        "SELECT d.current_version_id, d.doc_id FROM documents d"
        " JOIN document_versions v ON v.version_id = d.current_version_id"
        " WHERE d.status = 'active' AND v.extracted_at IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.version_id = d.current_version_id)"
        " AND EXISTS (SELECT 1 FROM pages p WHERE p.version_id = d.current_version_id)"
    ).fetchall()
    for version_id, doc_id in versions:
        pages = [t for (t,) in conn.execute(
            "SELECT text FROM pages WHERE version_id = %s ORDER BY page_no", (version_id,))]
        sections = conn.execute(
            "SELECT char_start, path FROM sections WHERE version_id = %s ORDER BY char_start, depth", (version_id,)
        ).fetchall()
        chunks = chunk_pages(pages, sections=[(start, path) for start, path in sections] or None)
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path,"
                " char_start, char_end, text, content_hash) VALUES (%s, %s, %s, 3, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (chunk_id) DO NOTHING",
                [(chunk_id(version_id, 3, c.char_start, c.char_end), version_id, doc_id, c.seq, c.page_start,
                  c.page_end, c.section_path, c.char_start, c.char_end, c.text, c.content_hash) for c in chunks],
            )
        stats["versions"] += 1
        stats["chunks"] += len(chunks)
    return stats


# --- recognise -----------------------------------------------------------------------------------

def recognise_pending(conn: psycopg.Connection) -> dict:
    """Rule-based entities for chunks not yet processed; a bare § in a law resolves to that law."""
    from mendel.ner.rules import eli_for, extract_entities, split_law_ref_norm

    rows = conn.execute(
        "SELECT c.chunk_id, c.text, d.source, d.citation FROM chunks c JOIN documents d USING (doc_id)"
        " WHERE c.ner_done_at IS NULL ORDER BY c.doc_id, c.seq"
    ).fetchall()
    stats = {"chunks": 0, "mentions": 0, "quarantined": 0, "by_label": {}}
    for chunk_id_, text, source, citation in rows:
        try:
            entities = extract_entities(text, default_act=citation if source == "esbirka" else None)
        except Exception as exc:  # a recogniser bug must cost one chunk, not the night's run
            with conn.transaction():
                crawlstate.quarantine(conn, stage="ner", reason=f"recogniser failed: {exc.__class__.__name__}: {exc}",
                                      source=source, detail=f"chunk {chunk_id_}")
                conn.execute("UPDATE chunks SET ner_done_at = now() WHERE chunk_id = %s", (chunk_id_,))
            stats["quarantined"] += 1
            continue
        with conn.transaction(), conn.cursor() as cur:
            for e in entities:
                if not e.norm:
                    continue
                entity_id = f"{e.label}:{e.norm}"
                act = split_law_ref_norm(e.norm)[0] if e.label == "LAW_REF" else None
                cur.execute(
                    "INSERT INTO entities (entity_id, label, norm, eli) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (entity_id) DO NOTHING",
                    (entity_id, e.label, e.norm, eli_for(act) if act else None),
                )
                cur.execute(
                    "INSERT INTO mentions (chunk_id, entity_id, start_char, end_char, surface)"
                    " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (chunk_id_, entity_id, e.start, e.end, e.text),
                )
                stats["mentions"] += 1
                stats["by_label"][e.label] = stats["by_label"].get(e.label, 0) + 1
            cur.execute("UPDATE chunks SET ner_done_at = now() WHERE chunk_id = %s", (chunk_id_,))
        stats["chunks"] += 1
    return stats


# --- index ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChunkRecord:
    chunk_id: str
    doc_id: str
    title: str
    source: str
    url: str
    citation: str | None
    page_start: int
    page_end: int
    section: str
    text: str

    @property
    def context_text(self) -> str:
        """What is embedded and indexed: title and section path give a bare chunk its context."""
        head = " — ".join(x for x in (self.citation, self.title, self.section) if x)
        return f"{head}\n{self.text}" if head else self.text


def load_corpus(conn: psycopg.Connection) -> list[ChunkRecord]:
    rows = conn.execute(
        "SELECT c.chunk_id, c.doc_id, coalesce(d.title, ''), d.source, d.url, d.citation, c.page_start, c.page_end,"
        " c.section_path, c.text FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
        " AND d.current_version_id = c.version_id WHERE d.status = 'active' ORDER BY c.doc_id, c.seq"
    ).fetchall()
    return [ChunkRecord(*row) for row in rows]


def embed_pending(conn: psycopg.Connection, embedder: Embedder) -> dict:
    """Vectors for chunks that have none yet, through the content-hash cache."""
    records = {r.chunk_id: r for r in load_corpus(conn)}
    pending = [cid for (cid,) in conn.execute("SELECT chunk_id FROM chunks WHERE embedding IS NULL")
               if cid in records]
    started = time.monotonic()
    vectors, newly = embed_with_cache(conn, embedder, [records[c].context_text for c in pending])
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany("UPDATE chunks SET embedding = %s::vector WHERE chunk_id = %s",
                        [(to_pgvector(v), cid) for cid, v in zip(pending, vectors)])
    return {"chunks": len(pending), "embedded": newly, "cache_hits": len(pending) - newly,
            "seconds": round(time.monotonic() - started, 2), "model": embedder.name}


def _reset(out_dir: Path) -> Path:
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    return out_dir


def build_bm25(conn: psycopg.Connection, out_dir: Path) -> dict:
    import bm25s

    records = load_corpus(conn)
    out_dir = _reset(out_dir)
    retriever = bm25s.BM25()
    tokens = [analyze(r.context_text) for r in records]
    retriever.index(tokens, show_progress=False)
    retriever.save(str(out_dir / "bm25"))
    (out_dir / "ids.json").write_text(json.dumps([r.chunk_id for r in records]))
    return {"chunks": len(records), "vocabulary": len(retriever.vocab_dict)}


def build_faiss(conn: psycopg.Connection, out_dir: Path, dim: int = 384) -> dict:
    import faiss

    rows = conn.execute(
        "SELECT c.chunk_id, c.embedding::text FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
        " AND d.current_version_id = c.version_id WHERE d.status = 'active' AND c.embedding IS NOT NULL"
        " ORDER BY c.doc_id, c.seq"
    ).fetchall()
    out_dir = _reset(out_dir)
    matrix = np.asarray([json.loads(v) for _, v in rows], dtype=np.float32).reshape(len(rows), dim)
    faiss.normalize_L2(matrix)
    if len(rows) >= HNSW_THRESHOLD:
        index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = 128
        kind = "hnsw"
    else:
        index = faiss.IndexFlatIP(dim)
        kind = "flat"
    index.add(matrix)
    faiss.write_index(index, str(out_dir / "dense.faiss"))
    (out_dir / "ids.json").write_text(json.dumps([cid for cid, _ in rows]))
    return {"vectors": len(rows), "index_type": kind, "dim": dim}


def build_graph(conn: psycopg.Connection, out_dir: Path) -> dict:
    """Entity co-occurrence graph: an edge's weight counts the chunks it shares, plus half a point for each
    document where both are among the most cited entities."""
    rows = conn.execute(
        "SELECT m.chunk_id, c.doc_id, m.entity_id FROM mentions m JOIN chunks c USING (chunk_id)"
        " JOIN documents d ON d.doc_id = c.doc_id AND d.current_version_id = c.version_id"
        " JOIN entities e ON e.entity_id = m.entity_id"
        " WHERE d.status = 'active' AND e.label = ANY(%s) ORDER BY m.chunk_id", (list(GRAPH_LABELS),)
    ).fetchall()
    entities = {eid: (label, norm, eli) for eid, label, norm, eli in conn.execute(
        "SELECT entity_id, label, norm, eli FROM entities")}
    by_chunk: dict[str, set[str]] = {}
    for cid, doc_id, eid in rows:
        by_chunk.setdefault(cid, set()).add(eid)
    chunk_counts: dict[str, int] = {}
    for members in by_chunk.values():
        for eid in members:
            chunk_counts[eid] = chunk_counts.get(eid, 0) + 1
    doc_counts: dict[str, dict[str, int]] = {}
    for cid, doc_id, eid in rows:
        per_doc = doc_counts.setdefault(doc_id, {})
        per_doc[eid] = per_doc.get(eid, 0) + 1
    # Document-level edges only among each document's most cited entities: all pairs would be quadratic.
    doc_groups = [set(sorted(counts, key=lambda e: (-counts[e], e))[:DOC_EDGE_TOP_ENTITIES])
                  for counts in doc_counts.values()]
    weights: dict[tuple[str, str], float] = {}
    for groups, weight in ((by_chunk.values(), 1.0), (doc_groups, 0.5)):
        for members in groups:
            ordered = sorted(members)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    weights[(a, b)] = weights.get((a, b), 0.0) + weight
    out_dir = _reset(out_dir)
    graph = {
        "nodes": [{"id": eid, "label": entities[eid][0], "norm": entities[eid][1], "eli": entities[eid][2],
                   "chunks": n} for eid, n in sorted(chunk_counts.items()) if eid in entities],
        "edges": [{"source": a, "target": b, "weight": w} for (a, b), w in sorted(weights.items())],
        "chunk_entities": {cid: sorted(members) for cid, members in sorted(by_chunk.items())},
    }
    (out_dir / "graph.json").write_text(json.dumps(graph, ensure_ascii=False))
    return {"nodes": len(graph["nodes"]), "edges": len(graph["edges"]), "linked_chunks": len(by_chunk)}


def publish_bundle(conn: psycopg.Connection, build_dir: Path, bundles_dir: Path, model: str, keep: int = 3) -> dict:
    """Copy the built indexes and the chunk table into a new bundle, then publish it atomically."""
    records = load_corpus(conn)
    staging = bundle.staging_dir(bundles_dir)
    try:
        for part in ("bm25", "dense", "graph"):
            shutil.copytree(build_dir / part, staging / part)
        with (staging / "chunks.jsonl").open("w", encoding="utf-8") as handle:
            for r in records:
                handle.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")
        documents = [
            {"doc_id": d, "title": t, "source": s, "url": u, "citation": c, "doc_type": k,
             "published": p.isoformat() if p else None}
            for d, t, s, u, c, k, p in conn.execute(
                "SELECT doc_id, title, source, url, citation, doc_type, published FROM documents"
                " WHERE status = 'active' ORDER BY doc_id")
        ]
        (staging / "documents.json").write_text(json.dumps(documents, ensure_ascii=False, indent=1))
        bm25_ids = json.loads((staging / "bm25" / "ids.json").read_text())
        dense_ids = json.loads((staging / "dense" / "ids.json").read_text())
        chunk_ids = [r.chunk_id for r in records]
        if bm25_ids != chunk_ids or dense_ids != chunk_ids:
            raise bundle.BundleError("indexes were built from different chunk sets; rebuild before publishing")
        manifest = {"model": model, "counts": {"documents": len(documents), "chunks": len(records)}}
        previous = bundle.current_version(bundles_dir)
        path = bundle.publish(staging, bundles_dir, manifest, keep=keep, skip_unchanged=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {"version": path.name, "path": str(path), "documents": len(documents), "chunks": len(records),
            "published": path.name != previous}


# --- registers -----------------------------------------------------------------------------------


def load_registry_pending(conn: psycopg.Connection, store: RawStore, batch_size: int = 2000) -> dict:
    """Stream RÚIAN files not yet loaded into registry_records (upsert by kind + code, newest file wins)."""
    from mendel.ruian import VfrError, iter_records

    rows = conn.execute(
        "SELECT v.version_id, v.doc_id, v.sha256, d.source, d.url FROM document_versions v"
        " JOIN documents d ON d.doc_id = v.doc_id WHERE d.source = ANY(%s) AND v.records_loaded_at IS NULL"
        " ORDER BY v.version_id", (list(RECORD_SOURCES),)
    ).fetchall()
    stats: dict = {"files": 0, "records": 0, "quarantined": 0, "by_kind": {}}
    upsert = (
        "INSERT INTO registry_records (source, kind, code, name, parent_code, valid_from, data, version_id)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (source, kind, code) DO UPDATE SET"
        " name = EXCLUDED.name, parent_code = EXCLUDED.parent_code, valid_from = EXCLUDED.valid_from,"
        " data = EXCLUDED.data, version_id = EXCLUDED.version_id, updated_at = now()"
    )
    for version_id, doc_id, sha256, source, url in rows:
        batch: list[tuple] = []
        try:
            with conn.transaction():
                with conn.cursor() as cur:
                    for record in iter_records(store.path_for(sha256)):
                        parent = record.get("obec_kod") or record.get("cast_obce_kod") or record.get("stavebni_objekt_kod")
                        batch.append((source, record["kind"], record["kod"], record.get("nazev"), parent,
                                      record.get("plati_od"), json.dumps(record, ensure_ascii=False), version_id))
                        stats["by_kind"][record["kind"]] = stats["by_kind"].get(record["kind"], 0) + 1
                        if len(batch) >= batch_size:
                            cur.executemany(upsert, batch)
                            stats["records"] += len(batch)
                            batch.clear()
                    cur.executemany(upsert, batch)
                    stats["records"] += len(batch)
                conn.execute("UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s",
                             (version_id,))
            stats["files"] += 1
        except (VfrError, FileNotFoundError, OSError) as exc:
            with conn.transaction():
                crawlstate.quarantine(conn, stage="extract", reason=f"unreadable RÚIAN file: {exc}", source=source,
                                      doc_id=doc_id, url=url, sha256=sha256)
                conn.execute("UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s",
                             (version_id,))
            stats["quarantined"] += 1
    return stats
