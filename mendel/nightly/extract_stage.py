"""The extract stage: pages and sections of every current document version not yet extracted, then the record
documents; bad input is quarantined."""

from __future__ import annotations

import logging

import psycopg

from mendel.core import stage_versions
from mendel.core.rawstore import RawStore
from mendel.core.stale_pages import sweep_stale_pages
from mendel.crawl import crawlstate
from mendel.nightly.registry_stage import RECORD_SOURCES
from mendel.records.citation_records import CITATION_RECORD, is_citation_record
from mendel.records.court_decisions import update_court_decisions
from mendel.records.model import RECORD_DOCUMENT_TYPES
from mendel.records.record_documents import build_record_documents

log = logging.getLogger("mendel.nightly.extract_stage")


def extract_pending(conn: psycopg.Connection, store: RawStore) -> dict:
    """Pages and sections for every current document version not yet extracted; bad input is quarantined."""
    from mendel.extract.document import extract_files

    swept = sweep_stale_pages()  # what a killed night's OCR left in the temporary directory
    if swept:
        log.info("removed %d page directories a killed OCR process left: %s", len(swept), swept[:5])
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
    an act's record reads its extracted first page), then the new record versions' pages, then the court decisions'
    metadata (mendel.records.court_decisions)."""
    stats = extract_pending(conn, store)
    rendered = build_record_documents(conn, store)
    for key, value in extract_pending(conn, store).items():
        if type(value) is int and key != "reprocessed_by_version":
            stats[key] = stats.get(key, 0) + value
    stats.update(update_court_decisions(conn, store))  # each decision as its court describes it
    by_kind = rendered.pop("by_kind")
    stats.update({f"records_{key}": value for key, value in rendered.items()})
    stats.update({f"records_{kind}": count for kind, count in sorted(by_kind.items())})
    return stats
