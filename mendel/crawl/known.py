"""What a crawl knows before it starts: the crawl state it reads from PostgreSQL to decide what to ask for.

Conditional requests (:func:`known_validators`), documents not due for another look (:func:`last_confirmed`), URLs
gone on their last tries and their backoff (:func:`known_gone`), attachments an earlier run deferred
(:func:`known_deferred`), what each listing held when last read (:func:`source_listing_documents`), URLs whose last try failed
(:func:`open_crawl_quarantine`), when the decision texts held under each file number last answered
(:func:`decisions_confirmed_by_file_number`), and the stored documents a record step compares with
(:func:`current_documents`, :func:`known_doc_ids`). Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import psycopg

from mendel.crawl.crawlstate import DEFERRED, without_nul


def known_validators(conn: psycopg.Connection, source: str) -> dict[str, tuple[str | None, str | None]]:
    """Latest ETag / Last-Modified per URL of a source, for conditional requests."""
    rows = conn.execute(
        "SELECT DISTINCT ON (url) url, etag, last_modified FROM crawl_log"
        " WHERE source = %s AND outcome IN ('stored', 'unchanged') AND (etag IS NOT NULL OR last_modified IS NOT NULL)"
        " ORDER BY url, fetched_at DESC, id DESC",
        (source,),
    ).fetchall()
    return {url: (etag, last_modified) for url, etag, last_modified in rows}


def last_confirmed(conn: psycopg.Connection, source: str) -> dict[str, datetime]:
    """URL → when it last answered with its document (stored, the same bytes, or a 304: ``documents.last_seen``),
    for the source's active documents."""
    rows = conn.execute(
        "SELECT url, last_seen FROM documents WHERE source = %s AND status = 'active'"
        " AND current_version_id IS NOT NULL AND url IS NOT NULL",
        (source,),
    )
    return dict(rows.fetchall())


def decisions_confirmed_by_file_number(conn: psycopg.Connection, source: str) -> dict[str, datetime]:
    """File number (``citation``) → when the least recently confirmed of the source's decision texts held under it
    last answered (``documents.last_seen``): active documents with a current version of kind ``decision`` (a
    citation record is not the decision's text), for a crawl that searches a held file number again only once due."""
    rows = conn.execute(
        "SELECT citation, min(last_seen) FROM documents WHERE source = %s AND status = 'active'"
        " AND doc_type = 'decision' AND current_version_id IS NOT NULL AND citation IS NOT NULL GROUP BY citation",
        (source,),
    )
    return dict(rows.fetchall())


def source_listing_documents(conn: psycopg.Connection, source: str) -> dict[str, list[tuple[str, str]]]:
    """Listing → (doc_id, url) of the active documents with a current version it holds (the documents it named when
    it was last read), for a crawl that does not read a part of a listing again in this run."""
    held: dict[str, list[tuple[str, str]]] = {}
    for listing, doc_id, url in conn.execute(
        "SELECT listing, doc_id, url FROM documents WHERE source = %s AND listing IS NOT NULL AND status = 'active'"
        " AND current_version_id IS NOT NULL AND url IS NOT NULL ORDER BY listing, doc_id",
        (source,),
    ):
        held.setdefault(listing, []).append((doc_id, url))
    return held


def open_crawl_quarantine(conn: psycopg.Connection, source: str) -> set[str]:
    """URLs of a source with an open crawl quarantine entry (the last try failed)."""
    return {
        url
        for (url,) in conn.execute(
            "SELECT DISTINCT url FROM quarantine WHERE stage = 'crawl' AND source = %s"
            " AND resolved_at IS NULL AND url IS NOT NULL",
            (source,),
        )
    }


# A URL that answered "gone" (404/410) on its last real tries is not requested again until its backoff ends:
# 1 day after the first such answer, then 2, 4 … up to 32 days (less a slack for a schedule that runs a little
# early). Each run still logs it — quarantined with its last answer as the reason and no status (held back) — so
# every discovered URL stays accounted for; the crawl checks report it as held back, not as a failure of the run.
GONE_STATUSES = (404, 410)
GONE_REASONS = tuple(f"HTTP {status}" for status in GONE_STATUSES)
GONE_BACKOFF_MAX_DAYS = 32
GONE_BACKOFF_SLACK = timedelta(hours=3)


def held_back_row(outcome: str, status: int | None, reason: str | None) -> bool:
    """Whether a crawl-log row stands for a URL held back in its backoff (no request made): quarantined with no
    status and its last gone answer (``HTTP 404``/``HTTP 410``) as the reason. A real request that failed has a
    status, or a reason of its own (a timeout, a refused file)."""
    return outcome == "quarantined" and status is None and reason in GONE_REASONS


@dataclass(frozen=True)
class Gone:
    status: int
    reason: str
    tries: int  # consecutive real requests that answered gone
    last_try: datetime

    @property
    def retry_after(self) -> datetime:
        days = min(2 ** (self.tries - 1), GONE_BACKOFF_MAX_DAYS)
        return self.last_try + timedelta(days=days) - GONE_BACKOFF_SLACK


def known_gone(conn: psycopg.Connection, source: str) -> dict[str, Gone]:
    """URLs of a source whose open crawl quarantine says gone, with their run of gone answers: counted over real
    requests (held-back rows have no status and neither count nor break it), back to the last other outcome."""
    rows = conn.execute(
        "SELECT l.url, l.status, l.outcome, l.reason, l.fetched_at FROM crawl_log l WHERE l.source = %s"
        " AND l.url IN (SELECT q.url FROM quarantine q WHERE q.stage = 'crawl' AND q.source = %s"
        " AND q.resolved_at IS NULL AND q.reason = ANY(%s))"
        " ORDER BY l.url, l.fetched_at DESC, l.id DESC",
        (source, source, list(GONE_REASONS)),
    ).fetchall()
    gone: dict[str, Gone] = {}
    streak_over: set[str] = set()
    for url, status, outcome, reason, fetched_at in rows:
        if url in streak_over:
            continue
        if outcome == DEFERRED or held_back_row(outcome, status, reason):
            continue  # held back or deferred: no request was made
        if outcome == "quarantined" and status in GONE_STATUSES:
            seen = gone.get(url)  # rows come newest first: the newest answer gives status, reason and time
            gone[url] = replace(seen, tries=seen.tries + 1) if seen else Gone(status, reason, 1, fetched_at)
            continue
        streak_over.add(url)
    return gone


@dataclass(frozen=True)
class CurrentDocument:
    """What :func:`record_document` would find stored for a document: its current version's bytes and the fields
    the upsert writes."""

    sha256: str
    url: str
    title: str | None
    doc_type: str | None
    citation: str | None
    published: str | None  # ISO date
    listing: str | None


def current_documents(conn: psycopg.Connection, source: str) -> dict[str, CurrentDocument]:
    """doc_id → :class:`CurrentDocument` of the source's active documents (read once when a crawl starts)."""
    rows = conn.execute(
        "SELECT d.doc_id, v.sha256, d.url, d.title, d.doc_type, d.citation, d.published::text, d.listing"
        " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
        " WHERE d.source = %s AND d.status = 'active'",
        (source,),
    )
    return {doc_id: CurrentDocument(*row) for doc_id, *row in rows}


def known_doc_ids(conn: psycopg.Connection) -> set[str]:
    """Every stored document id (any source, any status): a crawl tells a new document by it."""
    return {doc_id for (doc_id,) in conn.execute("SELECT doc_id FROM documents")}


def known_deferred(conn: psycopg.Connection, source: str) -> list[str]:
    """URLs of a source whose newest crawl_log row says deferred — put off by an earlier run and not requested
    since —, the longest waiting first."""
    rows = conn.execute(
        "SELECT url, first_deferred FROM (SELECT DISTINCT ON (url) url, outcome,"
        "  min(id) FILTER (WHERE outcome = %s) OVER (PARTITION BY url) AS first_deferred"
        "  FROM crawl_log WHERE source = %s AND url IN (SELECT url FROM crawl_log WHERE source = %s AND outcome = %s)"
        "  ORDER BY url, fetched_at DESC, id DESC) newest WHERE outcome = %s ORDER BY first_deferred",
        (DEFERRED, source, source, DEFERRED, DEFERRED),
    ).fetchall()
    return [url for url, _ in rows]


def is_unchanged(
    known: CurrentDocument | None,
    *,
    sha256: str,
    url: str,
    title: str | None = None,
    doc_type: str | None = None,
    citation: str | None = None,
    published: str | None = None,
    listing: str | None = None,
) -> bool:
    """Whether :func:`record_document` of these bytes and fields would change nothing but ``last_seen``: the
    current version has the bytes and every field is the stored one (a field given as None keeps it)."""
    if known is None or known.sha256 != sha256 or known.url != without_nul(url):
        return False
    given = {"title": title, "doc_type": doc_type, "citation": citation, "published": published, "listing": listing}
    return all(value is None or without_nul(value) == getattr(known, name) for name, value in given.items())
