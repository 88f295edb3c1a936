"""Every record document rendered (RÚIAN municipalities, e-Sbírka act metadata) and recorded as an ordinary
document version, so that extraction, chunking, NER, embedding and the bundle treat it like any other document;
``record_documents`` names each one's record and sources. A version is added only where the text changed, and
carries the records stage version that wrote it."""

from __future__ import annotations

import hashlib
from collections import Counter

import psycopg
from psycopg.types.json import Jsonb

from mendel.core import stage_versions
from mendel.core.rawstore import RawStore
from mendel.records.act_metadata import act_metadata_documents
from mendel.records.model import CONTENT_TYPE, RECORD_DOCUMENT_TYPES, RecordDocument
from mendel.records.municipality_records import ruian_documents


def build_record_documents(conn: psycopg.Connection, store: RawStore) -> dict:
    """Render every record document; a text that changed becomes a new version (extracted and chunked next), an
    unchanged one keeps its version (and takes the current records stage version); a record that is gone is
    withdrawn. Returns the counts."""
    current = stage_versions.register(conn, "records")
    documents = ruian_documents(conn) + act_metadata_documents(conn)
    stats = {
        "documents": len(documents),
        "new_versions": 0,
        "unchanged": 0,
        "carried_over": 0,
        "withdrawn": 0,
        "stage_version": current,
        "by_kind": dict(Counter(d.kind for d in documents)),
    }
    existing = {
        doc_id: (sha, made_by, status)
        for doc_id, sha, made_by, status in conn.execute(
            "SELECT d.doc_id, v.sha256, v.record_version, d.status FROM documents d"
            " LEFT JOIN document_versions v ON v.version_id = d.current_version_id WHERE d.doc_type = ANY(%s)",
            (list(RECORD_DOCUMENT_TYPES),),
        )
    }
    for document in documents:
        body = document.body
        digest = hashlib.sha256(body).hexdigest()
        sha, made_by, status = existing.get(document.doc_id, (None, None, None))
        with conn.transaction():
            _upsert_document(conn, document)
            if sha == digest:
                stats["unchanged"] += 1
                if made_by != current:
                    conn.execute(
                        "UPDATE document_versions SET record_version = %s WHERE doc_id = %s AND sha256 = %s",
                        (current, document.doc_id, digest),
                    )
                    stats["carried_over"] += 1
            else:
                blob = store.put(
                    body,
                    meta={
                        "url": document.url,
                        "content_type": CONTENT_TYPE,
                        "source": document.source,
                        "record": document.record,
                    },
                )
                _add_version(conn, document.doc_id, blob.sha256, len(body), current)
                stats["new_versions"] += 1
    produced = [d.doc_id for d in documents]
    with conn.transaction():
        stats["withdrawn"] = conn.execute(
            "UPDATE documents SET status = 'withdrawn' WHERE doc_type = ANY(%s) AND status = 'active'"
            " AND NOT (doc_id = ANY(%s))",
            (list(RECORD_DOCUMENT_TYPES), produced),
        ).rowcount
    return stats


def _upsert_document(conn: psycopg.Connection, document: RecordDocument) -> None:
    conn.execute(
        "INSERT INTO documents (doc_id, source, url, title, doc_type, citation, published)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (doc_id) DO UPDATE SET url = EXCLUDED.url,"
        " title = EXCLUDED.title, doc_type = EXCLUDED.doc_type, citation = EXCLUDED.citation,"
        " published = EXCLUDED.published, status = 'active', last_seen = now()",
        (
            document.doc_id,
            document.source,
            document.url,
            document.title,
            document.kind,
            document.citation,
            document.published,
        ),
    )
    conn.execute(
        "INSERT INTO record_documents (doc_id, kind, record, sources) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (doc_id) DO UPDATE SET kind = EXCLUDED.kind, record = EXCLUDED.record,"
        " sources = EXCLUDED.sources",
        (document.doc_id, document.kind, document.record, Jsonb(document.sources)),
    )


def _add_version(conn: psycopg.Connection, doc_id: str, sha256: str, size: int, made_by: str) -> None:
    row = conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, content_type, byte_size, record_version)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (doc_id, sha256) DO NOTHING RETURNING version_id",
        (doc_id, sha256, CONTENT_TYPE, size, made_by),
    ).fetchone()
    if row is None:  # the text went back to an earlier version's: that version is current again, chunked anew
        row = conn.execute(
            "UPDATE document_versions SET chunked_at = NULL, record_version = %s"
            " WHERE doc_id = %s AND sha256 = %s RETURNING version_id",
            (made_by, doc_id, sha256),
        ).fetchone()
    conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (row[0], doc_id))
