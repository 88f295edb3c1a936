"""The nightly stages as plain functions over PostgreSQL and the raw store; Dagster assets only call these.

Each stage picks up only what the previous one left pending, so a re-run does no repeated work.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import psycopg
from psycopg import sql

from mendel.core import stage_versions
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.boards import register as boards
from mendel.index import bundle, dense, entity_graph, lexical
from mendel.index.corpus import LAYERS, ChunkRecord, dense_texts, load_layer  # noqa: F401 (ChunkRecord: re-exported)
from mendel.index.dense import HNSW_THRESHOLD  # noqa: F401 (re-exported)
from mendel.index.embed import Embedder, embed_with_cache, text_hash, to_pgvector
from mendel.index.entity_graph import DOC_EDGE_TOP_ENTITIES, GRAPH_LABELS  # noqa: F401 (re-exported)
from mendel.passages.act_passages import index_act_versions
from mendel.passages.chunking import build_layers
from mendel.records.citation_records import CITATION_RECORD, is_citation_record, mark_citation_records
from mendel.records.record_documents import (
    RECORD_DOCUMENT_TYPES,
    build_record_documents,
    notice_links,
    record_grounding,
)

log = logging.getLogger("mendel.nightly.pipeline")
RECORD_SOURCES = ("ruian",)  # sources whose files are register records, not pages


# --- extract -------------------------------------------------------------------------------------


def extract_pending(conn: psycopg.Connection, store: RawStore) -> dict:
    """Pages and sections for every current document version not yet extracted; bad input is quarantined."""
    from mendel.extract.document import extract_files

    reprocessed = stage_versions.reprocess_extract(conn)  # versions another extract version made go back
    extract_version = stage_versions.version("extract")
    rows = conn.execute(
        "SELECT v.version_id, v.doc_id, v.sha256, v.content_type, d.source, d.url, d.title FROM document_versions v"
        " JOIN documents d ON d.current_version_id = v.version_id"
        " WHERE v.extracted_at IS NULL AND d.status = 'active' AND (d.source <> ALL(%s) OR d.doc_type = ANY(%s))"
        " ORDER BY v.version_id",
        (list(RECORD_SOURCES), list(RECORD_DOCUMENT_TYPES)),
    ).fetchall()
    stats = {
        "versions": 0,
        "pages": 0,
        "ocr_pages": 0,
        "sections": 0,
        "quarantined": 0,
        "empty_pages": 0,
        "warnings": 0,
        "citation_records": 0,
        "stage_version": extract_version,
        "reprocessed_by_version": reprocessed,
    }
    if rows:
        log.info("extracting %d new document versions", len(rows))
    jobs = [(str(store.path_for(sha256)), content_type, url) for _, _, sha256, content_type, _, url, _ in rows]
    for (version_id, doc_id, sha256, _content_type, source, url, title), (document, failure) in zip(
        rows, extract_files(jobs)
    ):
        if document is None:
            with conn.transaction():
                crawlstate.quarantine(
                    conn, stage="extract", reason=failure, source=source, doc_id=doc_id, url=url, sha256=sha256
                )
                conn.execute(
                    "UPDATE document_versions SET extracted_at = now(), extract_version = %s WHERE version_id = %s",
                    (extract_version, version_id),
                )
            log.warning("quarantined %s: %s", doc_id, failure)
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
                # pages a re-extraction no longer yields go
                cur.execute(
                    "DELETE FROM pages WHERE version_id = %s AND page_no > %s",
                    (version_id, max((p.page_no for p in document.pages), default=0)),
                )
                cur.execute("DELETE FROM sections WHERE version_id = %s", (version_id,))
                section_ids: list[int] = []
                for section in document.sections:
                    parent_id = section_ids[section.parent] if section.parent is not None else None
                    cur.execute(
                        "INSERT INTO sections (version_id, parent_id, depth, kind, label, path, page_start, page_end,"
                        " char_start, char_end) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING section_id",
                        (
                            version_id,
                            parent_id,
                            section.depth,
                            section.kind,
                            section.label,
                            section.path,
                            section.page_start,
                            section.page_end,
                            section.char_start,
                            section.char_end,
                        ),
                    )
                    section_ids.append(cur.fetchone()[0])
            if document.title and not title:
                conn.execute("UPDATE documents SET title = %s WHERE doc_id = %s", (document.title, doc_id))
            if is_citation_record(document.text):  # stored for the citator, never chunked as document text
                conn.execute("UPDATE documents SET doc_type = %s WHERE doc_id = %s", (CITATION_RECORD, doc_id))
                stats["citation_records"] += 1
            conn.execute(
                "UPDATE document_versions SET extracted_at = now(), extract_version = %s WHERE version_id = %s",
                (extract_version, version_id),
            )
        stats["versions"] += 1
        stats["pages"] += len(document.pages)
        stats["ocr_pages"] += sum(1 for p in document.pages if p.is_ocr)
        stats["sections"] += len(document.sections)
        stats["warnings"] += len(document.warnings)
        stats["empty_pages"] += sum(1 for p in document.pages if len(p.text.strip()) < 50)
    return stats


def extract_with_records(conn: psycopg.Connection, store: RawStore) -> dict:
    """:func:`extract_pending`, then the record documents (mendel.records.record_documents: RÚIAN municipalities, act metadata;
    an act's record reads its extracted first page), then the new record versions' pages."""
    stats = extract_pending(conn, store)
    rendered = build_record_documents(conn, store)
    for key, value in extract_pending(conn, store).items():
        if type(value) is int and key != "reprocessed_by_version":
            stats[key] = stats.get(key, 0) + value
    by_kind = rendered.pop("by_kind")
    stats.update({f"records_{key}": value for key, value in rendered.items()})
    stats.update({f"records_{kind}": count for kind, count in sorted(by_kind.items())})
    return stats


# --- chunk ---------------------------------------------------------------------------------------


def chunk_id(version_id: int, layer: int, start: int, end: int) -> str:
    return hashlib.sha256(f"{version_id}:{layer}:{start}:{end}".encode()).hexdigest()[:32]


CHUNK_BATCH_VERSIONS = 200  # document versions chunked and written in one transaction


def chunk_pending(conn: psycopg.Connection, summarizer=None) -> dict:
    """L1 (document), L2 (section) and L3 (passage) chunks with summaries for extracted current versions not
    yet chunked; chunks of superseded versions and of withdrawn documents go (their mentions with them).

    A version chunked before layers existed keeps its L3 rows (with their mentions and vectors) where the
    offsets are unchanged and gains its L1/L2 rows. L1/L2 rows are marked recognised: the NER stage reads
    passages only."""
    from mendel.passages.summaries import get_summarizer, summarize_document

    summarizer = summarizer or get_summarizer()
    chunk_version = stage_versions.version("chunk")
    stats = {
        "versions": 0,
        "chunks": 0,
        "sections": 0,
        "documents": 0,
        "superseded_chunks_removed": 0,
        "summarizer": summarizer.name,
        "stage_version": chunk_version,
        "reprocessed_by_version": stage_versions.reprocess_chunks(conn),
    }
    with conn.transaction():
        # records without decision text are not document text: their chunks (from before this rule) go too
        stats["citation_records_marked"] = mark_citation_records(conn)
        removed = conn.execute(
            "DELETE FROM chunks c USING documents d WHERE c.doc_id = d.doc_id"
            " AND (c.version_id <> d.current_version_id OR d.status <> 'active' OR d.doc_type = %s)",
            (CITATION_RECORD,),
        )
        stats["superseded_chunks_removed"] = removed.rowcount
    versions = conn.execute(
        "SELECT d.current_version_id, d.doc_id, coalesce(d.title, '') FROM documents d"
        " JOIN document_versions v ON v.version_id = d.current_version_id"
        " WHERE d.status = 'active' AND v.extracted_at IS NOT NULL AND v.chunked_at IS NULL"
        " AND d.doc_type IS DISTINCT FROM %s"
        " AND EXISTS (SELECT 1 FROM pages p WHERE p.version_id = d.current_version_id)"
        " AND NOT EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = d.current_version_id)"
        " ORDER BY d.doc_id",
        (CITATION_RECORD,),
    ).fetchall()
    insert = (
        "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path,"
        " char_start, char_end, text, content_hash, parent_id, summary, ner_done_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, CASE WHEN %s THEN now() END)"
        " ON CONFLICT (chunk_id) DO UPDATE SET seq = EXCLUDED.seq, section_path = EXCLUDED.section_path,"
        " parent_id = EXCLUDED.parent_id, summary = EXCLUDED.summary, text = EXCLUDED.text,"
        " content_hash = EXCLUDED.content_hash,"
        # a passage whose text changed (re-extracted pages) is recognised again; an unchanged one keeps its mentions
        " ner_done_at = CASE WHEN chunks.content_hash IS DISTINCT FROM EXCLUDED.content_hash"
        "  THEN EXCLUDED.ner_done_at ELSE chunks.ner_done_at END"
        # an unchanged row is not rewritten (a new tuple would update every index, the vector index too)
        " WHERE (chunks.seq, chunks.section_path, chunks.parent_id, chunks.summary, chunks.text, chunks.content_hash)"
        "  IS DISTINCT FROM (EXCLUDED.seq, EXCLUDED.section_path, EXCLUDED.parent_id, EXCLUDED.summary, EXCLUDED.text,"
        "  EXCLUDED.content_hash)"
    )
    for first in range(0, len(versions), CHUNK_BATCH_VERSIONS):
        batch = versions[first : first + CHUNK_BATCH_VERSIONS]
        ids = [version_id for version_id, _, _ in batch]
        pages_of: dict[int, list[str]] = {}
        for version_id, text in conn.execute(
            "SELECT version_id, text FROM pages WHERE version_id = ANY(%s) ORDER BY version_id, page_no", (ids,)
        ):
            pages_of.setdefault(version_id, []).append(text)
        sections_of: dict[int, list[tuple[int, str]]] = {}
        for version_id, start, path in conn.execute(
            "SELECT version_id, char_start, path FROM sections WHERE version_id = ANY(%s)"
            " ORDER BY version_id, char_start, depth",
            (ids,),
        ):
            sections_of.setdefault(version_id, []).append((start, path))
        rows = []
        for version_id, doc_id, title in batch:
            layers = build_layers(pages_of.get(version_id, []), sections=sections_of.get(version_id) or None)
            summaries = summarize_document([c.text for c in layers.sections], summarizer, title=title)
            if layers.document is not None:
                d = layers.document
                document_id = chunk_id(version_id, 1, d.char_start, d.char_end)
                rows.append((version_id, doc_id, document_id, 1, d, None, summaries.document))
                section_ids = [chunk_id(version_id, 2, c.char_start, c.char_end) for c in layers.sections]
                rows += [
                    (version_id, doc_id, cid, 2, c, document_id, summary)
                    for cid, c, summary in zip(section_ids, layers.sections, summaries.sections)
                ]
                rows += [
                    (
                        version_id,
                        doc_id,
                        chunk_id(version_id, 3, c.char_start, c.char_end),
                        3,
                        c,
                        section_ids[c.parent],
                        None,
                    )
                    for c in layers.passages
                ]
            stats["versions"] += 1
            stats["chunks"] += len(layers.passages)
            stats["sections"] += len(layers.sections)
            stats["documents"] += layers.document is not None
        chunk_ids = [cid for _, _, cid, _, _, _, _ in rows]
        # a batch of versions in one transaction (a version a transaction cost ~6 round trips each)
        with conn.transaction(), conn.cursor() as cur:
            # Rows of these versions the chunker no longer produces (an older chunker's offsets) go.
            cur.execute("DELETE FROM chunks WHERE version_id = ANY(%s) AND NOT (chunk_id = ANY(%s))", (ids, chunk_ids))
            # a passage whose text changed loses its mentions (it is recognised again)
            cur.execute(
                "DELETE FROM mentions m USING chunks c, unnest(%s::text[], %s::text[]) AS n(id, hash)"
                " WHERE m.chunk_id = c.chunk_id AND c.chunk_id = n.id"
                " AND c.content_hash IS DISTINCT FROM n.hash",
                (chunk_ids, [c.content_hash for _, _, _, _, c, _, _ in rows]),
            )
            cur.executemany(
                insert,
                [
                    (
                        cid,
                        version_id,
                        doc_id,
                        layer,
                        c.seq,
                        c.page_start,
                        c.page_end,
                        c.section_path,
                        c.char_start,
                        c.char_end,
                        c.text,
                        c.content_hash,
                        parent,
                        summary,
                        layer != 3,
                    )
                    for version_id, doc_id, cid, layer, c, parent, summary in rows
                ],
            )
            cur.execute(
                "UPDATE document_versions SET chunked_at = now(), chunk_version = %s WHERE version_id = ANY(%s)",
                (chunk_version, ids),
            )
    # the act versions other than the stored document's text, as passages of the act (search in force)
    stats.update({f"act_passages_{k}": v for k, v in index_act_versions(conn).items()})
    return stats


# --- recognise -----------------------------------------------------------------------------------


def recognise_pending(conn: psycopg.Connection, batch_size: int = 512) -> dict:
    """Entities (``mendel.ner.recognise``, ``batch_size`` chunks at a time) for chunks not yet processed; a bare §
    in a law resolves to that law."""
    from mendel.ner.rules import eli_for, split_law_ref_norm

    def recognised(batch: list) -> list:
        from mendel.ner import recognise  # spaCy (~2 s to import): only when there is something to recognise

        texts = [text for _, text, _, _, _ in batch]
        acts = [citation if source == "esbirka" else None for _, _, source, citation, _ in batch]
        try:
            return recognise(texts, default_act=acts)
        except Exception:  # a recogniser bug must cost one chunk, not the night's run: find it
            found = []
            for text, act in zip(texts, acts):
                try:
                    found.append(recognise([text], default_act=act)[0])
                except Exception as exc:
                    found.append(exc)
            return found

    # Called once the gate passed: passages another ner version recognised lose their mentions and come back here.
    reprocessed = stage_versions.reprocess_ner(conn)
    ner_version = stage_versions.version("ner")
    rows = conn.execute(
        "SELECT c.chunk_id, c.text, d.source, d.citation, c.version_id FROM chunks c JOIN documents d USING (doc_id)"
        " WHERE c.ner_done_at IS NULL ORDER BY c.doc_id, c.seq"
    ).fetchall()
    stats = {
        "chunks": 0,
        "mentions": 0,
        "quarantined": 0,
        "by_label": {},
        "relations": 0,
        "stage_version": ner_version,
        **reprocessed,
    }
    # amending-act relations need the whole text (a point's act is named pages before it): read per version
    relation_versions = {(version_id, source, citation) for _, _, source, citation, version_id in rows if citation}
    stale_relations = set(stage_versions.reprocess_relations(conn)) - relation_versions
    stats["relations_reprocessed_versions"] = len(stale_relations)
    stats["relations"] = _relations_for_versions(conn, relation_versions | stale_relations, stats)
    for first in range(0, len(rows), batch_size):
        batch = rows[first : first + batch_size]
        entity_rows: dict[str, tuple] = {}
        mention_rows, done, failed = [], [], []
        for (chunk_id_, _, source, _, _), entities in zip(batch, recognised(batch)):
            if isinstance(entities, Exception):
                failed.append((chunk_id_, source, entities))
                continue
            for e in entities:
                if not e.norm:
                    continue
                entity_id = f"{e.label}:{e.norm}"
                if entity_id not in entity_rows:
                    act = split_law_ref_norm(e.norm)[0] if e.label == "LAW_REF" else None
                    entity_rows[entity_id] = (entity_id, e.label, e.norm, eli_for(act) if act else None)
                mention_rows.append((chunk_id_, entity_id, e.start, e.end, e.text))
                stats["mentions"] += 1
                stats["by_label"][e.label] = stats["by_label"].get(e.label, 0) + 1
            done.append(chunk_id_)
        # one transaction a batch (a statement a row cost ~100k round trips on the demo corpus); a batch that
        # does not commit is recognised again by the next run, its mentions inserted at most once
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO entities (entity_id, label, norm, eli) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (entity_id) DO NOTHING",
                sorted(entity_rows.values()),
            )
            cur.executemany(
                "INSERT INTO mentions (chunk_id, entity_id, start_char, end_char, surface)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                mention_rows,
            )
            for chunk_id_, source, error in failed:
                crawlstate.quarantine(
                    conn,
                    stage="ner",
                    source=source,
                    detail=f"chunk {chunk_id_}",
                    reason=f"recogniser failed: {error.__class__.__name__}: {error}",
                )
            cur.execute(
                "UPDATE chunks SET ner_done_at = now(), ner_version = %s WHERE chunk_id = ANY(%s)",
                (ner_version, done + [chunk_id_ for chunk_id_, _, _ in failed]),
            )
        stats["chunks"] += len(done)
        stats["quarantined"] += len(failed)
    return stats


def _relations_for_versions(conn: psycopg.Connection, versions: set, stats: dict) -> int:
    """AMENDS/REPEALS of each version whose chunks are being recognised (subject: the document's citation),
    replacing what an earlier run stored for it; offsets are mapped from the joined text to pages."""
    from mendel.ner.relations import extract_relations

    written = 0
    relations_version = stage_versions.version("relations")
    for version_id, source, citation in sorted(versions, key=lambda v: v[0]):
        pages = conn.execute(
            "SELECT page_no, text FROM pages WHERE version_id = %s ORDER BY page_no", (version_id,)
        ).fetchall()
        offsets, pos = [], 0
        for _, page_text in pages:
            offsets.append(pos)
            pos += len(page_text) + 2  # pages joined with a blank line, as ExtractedDocument.text does
        try:
            relations = extract_relations("\n\n".join(t for _, t in pages), citation)
        except Exception as exc:  # a bad document costs its relations, not the night's run
            with conn.transaction():
                crawlstate.quarantine(
                    conn,
                    stage="ner",
                    reason=f"relations failed: {exc.__class__.__name__}: {exc}",
                    source=source,
                    detail=f"version {version_id}",
                )
            stats["quarantined"] += 1
            continue
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("DELETE FROM relations WHERE version_id = %s", (version_id,))
            cur.execute(
                "UPDATE document_versions SET relations_version = %s WHERE version_id = %s",
                (relations_version, version_id),
            )
            for r in relations:
                index = max(i for i, start in enumerate(offsets) if start <= r.start)
                cur.execute(
                    "INSERT INTO relations (version_id, kind, subject_norm, object_norm, page_no, char_start,"
                    " char_end, evidence) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        version_id,
                        r.kind,
                        r.subject_norm,
                        r.object_norm,
                        pages[index][0],
                        r.start - offsets[index],
                        r.end - offsets[index],
                        r.evidence,
                    ),
                )
        written += len(relations)
    return written


# --- index ---------------------------------------------------------------------------------------


def load_corpus(conn: psycopg.Connection, layer: int = 3) -> list[ChunkRecord]:
    return load_layer(conn, layer)


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
        " FROM chunks p JOIN documents d ON d.doc_id = p.doc_id AND d.current_version_id = p.version_id"
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
            " AND d.current_version_id = c.version_id WHERE d.status = 'active' AND c.embedding IS NOT NULL"
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
                    " AND d.current_version_id = c.version_id WHERE d.status = 'active' AND c.embedding IS NOT NULL"
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


def _complete(part_dir: Path) -> Path:
    # Every index build writes build_info.json last: a part without it is what a killed build left.
    if not (part_dir / bundle.BUILD_INFO).exists():
        raise bundle.BundleError(f"{part_dir} is not completely built (an interrupted build?); rebuild it first")
    return part_dir


def _live_stages(bundles_dir: Path, live: str | None) -> dict | None:
    try:
        return bundle.read_manifest(Path(bundles_dir) / live).get("stages") if live else None
    except bundle.BundleError:
        return None


def publish_bundle(conn: psycopg.Connection, build_dir: Path, bundles_dir: Path, model: str, keep: int = 3) -> dict:
    """Copy the built indexes and every layer's chunk table into a new bundle, then publish it atomically
    (layout: mendel.index.bundle)."""
    records = {layer: load_layer(conn, layer) for layer in LAYERS}
    staging = bundle.staging_dir(bundles_dir)
    try:
        for part in (*bundle.LAYER_PARTS, bundle.GRAPH_PART):
            shutil.copytree(_complete(bundle.part_path(build_dir, part)), bundle.part_path(staging, part))
        for layer in (1, 2):
            for part in bundle.LAYER_PARTS:
                shutil.copytree(
                    _complete(bundle.part_path(build_dir, part, layer)), bundle.part_path(staging, part, layer)
                )
        for layer, rows in records.items():
            bundle.write_chunks(bundle.layer_path(staging, layer), (r.bundle_row() for r in rows))
        summaries = {r.doc_id: r.summary for r in records[1]}
        # sha256 + content_type: the current version's original in the raw store (served by the API).
        places = boards.document_places(conn)  # a notice board's documents carry its kraj / okres / obec
        # a record document names its record and sources; a notice attachment its notice and board
        grounding = {**record_grounding(conn), **notice_links(conn)}
        documents = [
            {
                "doc_id": d,
                "title": t,
                "source": s,
                "url": u,
                "citation": c,
                "doc_type": k,
                "published": p.isoformat() if p else None,
                "summary": summaries.get(d, ""),
                "sha256": h,
                "content_type": m,
                **places.get(d, {}),
                **grounding.get(d, {}),
            }
            for d, t, s, u, c, k, p, h, m in conn.execute(
                "SELECT d.doc_id, d.title, d.source, d.url, d.citation, d.doc_type, d.published, v.sha256,"
                " v.content_type FROM documents d LEFT JOIN document_versions v"
                " ON v.version_id = d.current_version_id WHERE d.status = 'active' ORDER BY d.doc_id"
            )
        ]
        bundle.documents_path(staging).write_text(json.dumps(documents, ensure_ascii=False, indent=1))
        layers = bundle.check_layers(staging)  # every index part names the same chunks as its chunk table
        manifest = {
            "model": model,
            "counts": {
                "documents": len(documents),
                "chunks": len(records[3]),
                "sections": len(records[2]),
                "document_chunks": len(records[1]),
            },
            "layers": layers,
            "stages": stage_versions.bundle_versions(conn, model),
        }
        previous = bundle.current_version(bundles_dir)
        # the same files made by other stage versions are a new bundle too: the manifest says what made it
        path = bundle.publish(
            staging,
            bundles_dir,
            manifest,
            keep=keep,
            skip_unchanged=_live_stages(bundles_dir, previous) == manifest["stages"],
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {
        "version": path.name,
        "path": str(path),
        "documents": len(documents),
        "chunks": len(records[3]),
        "sections": len(records[2]),
        "published": path.name != previous,
    }


# --- registers -----------------------------------------------------------------------------------


def load_registry_pending(conn: psycopg.Connection, store: RawStore, batch_size: int = 2000) -> dict:
    """Stream RÚIAN files not yet loaded into registry_records (upsert by kind + code, newest file wins)."""
    from mendel.registers.ruian import iter_records

    rows = conn.execute(
        "SELECT v.version_id, v.doc_id, v.sha256, d.source, d.url FROM document_versions v"
        " JOIN documents d ON d.doc_id = v.doc_id WHERE d.source = ANY(%s) AND v.records_loaded_at IS NULL"
        " AND coalesce(d.doc_type, '') <> ALL(%s) ORDER BY v.version_id",
        (list(RECORD_SOURCES), list(RECORD_DOCUMENT_TYPES)),
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
                        parent = (
                            record.get("obec_kod") or record.get("cast_obce_kod") or record.get("stavebni_objekt_kod")
                        )
                        batch.append(
                            (
                                source,
                                record["kind"],
                                record["kod"],
                                record.get("nazev"),
                                parent,
                                record.get("plati_od"),
                                json.dumps(record, ensure_ascii=False),
                                version_id,
                            )
                        )
                        stats["by_kind"][record["kind"]] = stats["by_kind"].get(record["kind"], 0) + 1
                        if len(batch) >= batch_size:
                            cur.executemany(upsert, batch)
                            stats["records"] += len(batch)
                            batch.clear()
                    cur.executemany(upsert, batch)
                    stats["records"] += len(batch)
                conn.execute(
                    "UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s", (version_id,)
                )
            stats["files"] += 1
        # ValueError covers VfrError and values the reader can't convert; the database refuses a record without
        # its code (IntegrityError) or with text it can't store (DataError): the file is quarantined, not the run.
        except (ValueError, OSError, psycopg.DataError, psycopg.IntegrityError) as exc:
            with conn.transaction():
                crawlstate.quarantine(
                    conn,
                    stage="extract",
                    reason=f"unreadable RÚIAN file: {exc}",
                    source=source,
                    doc_id=doc_id,
                    url=url,
                    sha256=sha256,
                )
                conn.execute(
                    "UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s", (version_id,)
                )
            stats["quarantined"] += 1
    return stats
