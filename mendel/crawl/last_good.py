"""A document's last good version: while its current (newest) version is quarantined by a hard quality check, the
version it was served from before stays live, and says so.

``documents.served_version_id`` names that version; NULL means the current version is served. Every reader of a
document's live chunks (the chunk stage's clean-up, embeddings, the indexes, the graph, the bundle, the PostgreSQL
backend) joins on ``coalesce(d.served_version_id, d.current_version_id)``, written out in each statement. The
quality review (:mod:`mendel.checks.quality.review`) holds a failing document on its last good version and lets it go when the document passes again; the bundle's ``documents.json``
carries the mark (:func:`last_good_marks`) that the hits repeat."""

from __future__ import annotations

from typing import Sequence

import psycopg


def hold_last_good(conn: psycopg.Connection, doc_ids: Sequence[str]) -> int:
    """The documents in ``doc_ids`` (their current version quarantined) are served from their last good version:
    the one kept held, else the newest other version that has chunks and no open quarantine; none when they have
    none (a document bad from its first version is not served). Returns the documents served from an older
    version."""
    conn.execute(
        "UPDATE documents d SET served_version_id = ("
        " SELECT c.version_id FROM chunks c JOIN document_versions v ON v.version_id = c.version_id"
        " WHERE c.doc_id = d.doc_id AND c.version_id <> d.current_version_id"
        " AND NOT EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = c.version_id AND q.resolved_at IS NULL)"
        " ORDER BY (c.version_id = d.served_version_id) IS TRUE DESC, v.chunked_at DESC NULLS LAST, c.version_id DESC"
        " LIMIT 1)"
        " WHERE d.doc_id = ANY(%s)",
        (list(doc_ids),),
    )
    return conn.execute(
        "SELECT count(*) FROM documents WHERE doc_id = ANY(%s) AND served_version_id IS NOT NULL", (list(doc_ids),)
    ).fetchone()[0]


def release(conn: psycopg.Connection, doc_ids: Sequence[str]) -> int:
    """The documents in ``doc_ids`` passed: their current version is served again. Returns how many were held."""
    return conn.execute(
        "UPDATE documents SET served_version_id = NULL WHERE doc_id = ANY(%s) AND served_version_id IS NOT NULL",
        (list(doc_ids),),
    ).rowcount


def last_good_marks(conn: psycopg.Connection) -> dict[str, dict]:
    """doc_id → {"last_good_version": {...}} for every active document served from its last good version: the
    served version's sha256, and the quarantined current version's sha256, since when and why."""
    return {
        doc_id: {
            "last_good_version": {
                "sha256": served_sha,
                "quarantined_sha256": current_sha,
                "quarantined_since": since.isoformat(),
                "reason": f"its newest version failed hard quality checks: {', '.join(expectations)}",
            }
        }
        for doc_id, served_sha, current_sha, since, expectations in conn.execute(
            "SELECT d.doc_id, s.sha256, v.sha256, q.quarantined_at, q.expectations FROM documents d"
            " JOIN document_versions s ON s.version_id = d.served_version_id"
            " JOIN document_versions v ON v.version_id = d.current_version_id"
            " JOIN quality_quarantine q ON q.version_id = d.current_version_id AND q.resolved_at IS NULL"
            " WHERE d.status = 'active' AND d.served_version_id <> d.current_version_id"
        )
    }
