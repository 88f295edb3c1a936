"""Crawl bookkeeping in PostgreSQL: documents, versions, the crawl log and quarantine.

Every URL a crawl discovers ends in exactly one logged outcome, so a run reconciles:
discovered = stored + unchanged + quarantined + disallowed + failed.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

OUTCOMES = ("stored", "unchanged", "quarantined", "disallowed", "failed")


@dataclass(frozen=True)
class FetchRecord:
    outcome: str
    version_id: int


def known_validators(conn: psycopg.Connection, source: str) -> dict[str, tuple[str | None, str | None]]:
    """Latest ETag / Last-Modified per URL of a source, for conditional requests."""
    rows = conn.execute(
        "SELECT DISTINCT ON (url) url, etag, last_modified FROM crawl_log"
        " WHERE source = %s AND outcome IN ('stored', 'unchanged') AND (etag IS NOT NULL OR last_modified IS NOT NULL)"
        " ORDER BY url, fetched_at DESC, id DESC",
        (source,),
    ).fetchall()
    return {url: (etag, last_modified) for url, etag, last_modified in rows}


def record_document(
    conn: psycopg.Connection,
    *,
    run_id: str | None,
    source: str,
    doc_id: str,
    url: str,
    sha256: str,
    byte_size: int,
    content_type: str | None,
    title: str | None = None,
    doc_type: str | None = None,
    citation: str | None = None,
    published: str | None = None,
    http_status: int = 200,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchRecord:
    """Upsert the document and, when its bytes are new, add a version that becomes current."""
    with conn.transaction():
        conn.execute(
            "INSERT INTO documents (doc_id, source, url, title, doc_type, citation, published)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (doc_id) DO UPDATE SET url = EXCLUDED.url,"
            "  title = COALESCE(EXCLUDED.title, documents.title),"
            "  doc_type = COALESCE(EXCLUDED.doc_type, documents.doc_type),"
            "  citation = COALESCE(EXCLUDED.citation, documents.citation),"
            "  published = COALESCE(EXCLUDED.published, documents.published),"
            "  status = 'active', last_seen = now()",
            (doc_id, source, url, title, doc_type, citation, published),
        )
        row = conn.execute(
            "INSERT INTO document_versions (doc_id, sha256, content_type, byte_size) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (doc_id, sha256) DO NOTHING RETURNING version_id",
            (doc_id, sha256, content_type, byte_size),
        ).fetchone()
        if row is not None:
            version_id, outcome = row[0], "stored"
            conn.execute("UPDATE documents SET current_version_id = %s WHERE doc_id = %s", (version_id, doc_id))
        else:
            version_id = conn.execute(
                "SELECT version_id FROM document_versions WHERE doc_id = %s AND sha256 = %s", (doc_id, sha256)
            ).fetchone()[0]
            outcome = "unchanged"
        log_outcome(
            conn, run_id=run_id, source=source, url=url, outcome=outcome, status=http_status,
            sha256=sha256, etag=etag, last_modified=last_modified, byte_size=byte_size,
        )
    return FetchRecord(outcome, version_id)


def log_outcome(
    conn: psycopg.Connection,
    *,
    run_id: str | None,
    source: str,
    url: str,
    outcome: str,
    status: int | None = None,
    sha256: str | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
    byte_size: int | None = None,
    reason: str | None = None,
) -> None:
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown crawl outcome {outcome!r}")
    conn.execute(
        "INSERT INTO crawl_log (run_id, source, url, status, outcome, sha256, etag, last_modified, byte_size, reason)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (run_id, source, url, status, outcome, sha256, etag, last_modified, byte_size, reason),
    )


def quarantine(
    conn: psycopg.Connection,
    *,
    stage: str,
    reason: str,
    source: str | None = None,
    doc_id: str | None = None,
    url: str | None = None,
    sha256: str | None = None,
    detail: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO quarantine (stage, source, doc_id, url, sha256, reason, detail) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (stage, source, doc_id, url, sha256, reason, detail),
    )


def outcome_counts(conn: psycopg.Connection, run_id: str, source: str | None = None) -> dict[str, int]:
    """Outcomes logged in one run (one Dagster run crawls several sources: pass ``source`` to split them)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for outcome, n in conn.execute(
        "SELECT outcome, count(*) FROM crawl_log WHERE run_id = %s AND (%s::text IS NULL OR source = %s)"
        " GROUP BY outcome", (run_id, source, source)
    ):
        counts[outcome] = n
    return counts
