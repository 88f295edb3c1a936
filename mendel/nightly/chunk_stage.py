"""The chunk stage: document (L1), section (L2) and passage (L3) chunks with summaries for every extracted current
version not yet chunked; chunks of superseded or withdrawn versions go (a document whose current version is
quarantined keeps those of its last good version: mendel.crawl.last_good)."""

from __future__ import annotations

import hashlib

import psycopg

from mendel.core import stage_versions
from mendel.passages.act_passages import index_act_versions
from mendel.passages.chunking import build_layers
from mendel.records.citation_records import CITATION_RECORD, mark_citation_records


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
            " AND (c.version_id <> coalesce(d.served_version_id, d.current_version_id) OR d.status <> 'active' OR d.doc_type = %s)",
            (CITATION_RECORD,),
        )
        stats["superseded_chunks_removed"] = removed.rowcount
    versions = conn.execute(
        "SELECT d.current_version_id, d.doc_id, coalesce(d.title, '') FROM documents d"
        " JOIN document_versions v ON v.version_id = d.current_version_id"
        " WHERE d.status = 'active' AND v.extracted_at IS NOT NULL AND v.chunked_at IS NULL"
        " AND d.doc_type IS DISTINCT FROM %s"
        " AND EXISTS (SELECT 1 FROM pages p WHERE p.version_id = d.current_version_id)"
        " AND NOT EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = d.current_version_id"
        "  AND q.resolved_at IS NULL)"
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
