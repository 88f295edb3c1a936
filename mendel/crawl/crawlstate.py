"""Crawl bookkeeping in PostgreSQL: documents, versions, the crawl log, quarantine and crawl runs.

Every URL a crawl discovers ends in exactly one logged outcome, so a run reconciles from the database alone
(:func:`run_counts`): ``crawl_runs.discovered = stored + unchanged + quarantined + disallowed``.

- ``stored``: new bytes, a new document version; ``unchanged``: a 304 or the same sha256 as before — or a
  document not due for another look (the board crawl's ``revalidate_days``: no status, the reason says so);
- ``quarantined``: a permanent failure (HTTP error after retries, timeout, reset, truncated or oversized body,
  redirect loop, not the expected kind of document, unparseable listing), always with its reason, also in
  ``quarantine`` (stage ``crawl``);
- ``disallowed``: robots.txt or the production host guard said no.

Documents found through a complete listing (an OFN feed, a site's article index) carry that listing; when the
listing is read in full and no longer names a document, the document is marked ``withdrawn`` (never deleted) and
comes back to ``active`` when a listing names it again (:func:`sync_listing`).

A URL a crawl chose not to request in this run — the board crawl's per-host request budget was spent — is logged
``deferred`` with its reason: not an outcome of a fetch and not discovered in the run (the reconciliation leaves it
out), but the next run reads it back (:func:`mendel.crawl.known.known_deferred`) and requests it first.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from mendel.records.citation_records import CITATION_RECORD

OUTCOMES = ("stored", "unchanged", "quarantined", "disallowed")
DEFERRED = "deferred"  # put off to the next run (a crawl_log row with its reason; not an outcome of this run)


@dataclass(frozen=True)
class FetchRecord:
    outcome: str
    version_id: int


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
    listing: str | None = None,
) -> FetchRecord:
    """Upsert the document and, when its bytes are new, add a version that becomes current; bytes of an earlier
    version make that version current again ("stored": the document changed). (Its status is the listing's
    business: :func:`sync_listing`.)"""
    # PostgreSQL text can't hold NUL: a site's NUL is dropped, not allowed to lose the document.
    doc_id, url, title, doc_type, citation, published = (
        without_nul(v) for v in (doc_id, url, title, doc_type, citation, published)
    )
    with conn.transaction():
        conn.execute(
            "INSERT INTO documents (doc_id, source, url, title, doc_type, citation, published, listing)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (doc_id) DO UPDATE SET url = EXCLUDED.url,"
            "  title = COALESCE(EXCLUDED.title, documents.title),"
            # A page the extraction found to be a citation record stays one while its bytes are the same:
            # resetting it to the listing's kind each night marked the document changed twice a night.
            "  doc_type = CASE WHEN documents.doc_type = %s THEN documents.doc_type"
            "   ELSE COALESCE(EXCLUDED.doc_type, documents.doc_type) END,"
            "  citation = COALESCE(EXCLUDED.citation, documents.citation),"
            "  published = COALESCE(EXCLUDED.published, documents.published),"
            "  listing = COALESCE(EXCLUDED.listing, documents.listing),"
            "  last_seen = now()",
            (doc_id, source, url, title, doc_type, citation, published, listing, CITATION_RECORD),
        )
        row = conn.execute(
            "INSERT INTO document_versions (doc_id, sha256, content_type, byte_size) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (doc_id, sha256) DO NOTHING RETURNING version_id",
            (doc_id, sha256, content_type, byte_size),
        ).fetchone()
        if row is not None:
            version_id, outcome = row[0], "stored"
            # New bytes are judged anew: the listing's kind until the extraction says it is a record.
            conn.execute(
                "UPDATE documents SET current_version_id = %s, doc_type = COALESCE(%s, doc_type) WHERE doc_id = %s",
                (version_id, doc_type, doc_id),
            )
        else:
            version_id = conn.execute(
                "SELECT version_id FROM document_versions WHERE doc_id = %s AND sha256 = %s", (doc_id, sha256)
            ).fetchone()[0]
            outcome = "unchanged"
            reverted = conn.execute(
                "UPDATE documents SET current_version_id = %s WHERE doc_id = %s"
                " AND current_version_id IS DISTINCT FROM %s RETURNING doc_id",
                (version_id, doc_id, version_id),
            ).fetchone()
            if reverted is not None:
                # The bytes went back to an earlier version (A -> B -> A): that version is the document again.
                # Its chunks went when B became current, so it is chunked (and recognised, embedded) anew.
                conn.execute("UPDATE document_versions SET chunked_at = NULL WHERE version_id = %s", (version_id,))
                if doc_type is not None:
                    conn.execute("UPDATE documents SET doc_type = %s WHERE doc_id = %s", (doc_type, doc_id))
                outcome = "stored"
        log_outcome(
            conn,
            run_id=run_id,
            source=source,
            url=url,
            outcome=outcome,
            status=http_status,
            sha256=sha256,
            etag=etag,
            last_modified=last_modified,
            byte_size=byte_size,
        )
    return FetchRecord(outcome, version_id)


# One outcome row of a URL in a run (log_outcome, and the batched record steps).
_LOG_INSERT = (
    "INSERT INTO crawl_log (run_id, source, url, status, outcome, sha256, etag, last_modified, byte_size,"
    " reason) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def record_new_documents(
    conn: psycopg.Connection, *, run_id: str | None, source: str, rows: list[dict]
) -> list[FetchRecord]:
    """:func:`record_document` for many documents, in one transaction: what it writes for each — the document, its
    first version made current, a ``stored`` crawl_log row, its open crawl quarantine entries resolved — set-based
    for the documents not stored yet (most of a first crawl: one transaction a notice cost ~7 ms each), and
    :func:`record_document` itself for a document stored meanwhile (another writer). ``rows``: what
    :func:`record_document` takes, doc ids distinct. Returns their records in order; a failure rolls back them
    all (the caller records each alone to find the one that failed)."""
    if not rows:
        return []
    clean = [
        {**r, **{k: without_nul(r.get(k)) for k in ("doc_id", "url", "title", "doc_type", "citation", "published")}}
        for r in rows
    ]
    if len({r["doc_id"] for r in clean}) != len(rows):
        raise ValueError("record_new_documents: a doc id twice in one batch")

    def column(name: str) -> list:  # text[]: a date given as a date object is its ISO text
        return [None if r.get(name) is None else str(r[name]) for r in clean]

    records: dict[str, FetchRecord] = {}
    with conn.transaction(), conn.cursor() as cur:
        inserted = {
            doc_id
            for (doc_id,) in cur.execute(
                "INSERT INTO documents (doc_id, source, url, title, doc_type, citation, published, listing)"
                " SELECT t.doc_id, %s, t.url, t.title, t.doc_type, t.citation, t.published::date, t.listing"
                " FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[])"
                "  WITH ORDINALITY AS t(doc_id, url, title, doc_type, citation, published, listing, n) ORDER BY t.n"
                " ON CONFLICT (doc_id) DO NOTHING RETURNING doc_id",
                (
                    source,
                    column("doc_id"),
                    column("url"),
                    column("title"),
                    column("doc_type"),
                    column("citation"),
                    column("published"),
                    column("listing"),
                ),
            ).fetchall()
        }
        new = [r for r in clean if r["doc_id"] in inserted]
        if new:
            versions = dict(
                cur.execute(
                    "INSERT INTO document_versions (doc_id, sha256, content_type, byte_size)"
                    " SELECT t.doc_id, t.sha256, t.content_type, t.byte_size"
                    " FROM unnest(%s::text[], %s::text[], %s::text[], %s::bigint[]) WITH ORDINALITY"
                    "  AS t(doc_id, sha256, content_type, byte_size, n) ORDER BY t.n"
                    " RETURNING doc_id, version_id",
                    (
                        [r["doc_id"] for r in new],
                        [r["sha256"] for r in new],
                        [r.get("content_type") for r in new],
                        [r["byte_size"] for r in new],
                    ),
                ).fetchall()
            )
            cur.execute(
                "UPDATE documents d SET current_version_id = t.version_id"
                " FROM unnest(%s::text[], %s::bigint[]) AS t(doc_id, version_id) WHERE d.doc_id = t.doc_id",
                (list(versions), list(versions.values())),
            )
            cur.executemany(
                _LOG_INSERT,
                [
                    (
                        run_id,
                        source,
                        r["url"],
                        r.get("http_status", 200),
                        "stored",
                        r["sha256"],
                        r.get("etag"),
                        r.get("last_modified"),
                        r["byte_size"],
                        None,
                    )
                    for r in new
                ],
            )
            resolve_crawl_quarantine(cur, run_id=run_id, source=source, urls=[r["url"] for r in new])
            records.update((r["doc_id"], FetchRecord("stored", versions[r["doc_id"]])) for r in new)
        for row, cleaned in zip(rows, clean):  # stored meanwhile by another writer: the one-document way decides
            if cleaned["doc_id"] not in records:
                records[cleaned["doc_id"]] = record_document(conn, run_id=run_id, source=source, **row)
    return [records[r["doc_id"]] for r in clean]


def confirm_unchanged(conn: psycopg.Connection, *, run_id: str | None, source: str, rows: list[dict]) -> None:
    """What :func:`record_document` does for documents :func:`mendel.crawl.known.is_unchanged` says it would leave as they are, many
    in one transaction: an ``unchanged`` crawl_log row each, ``last_seen``, their open crawl quarantine entries
    resolved. ``rows``: dicts with doc_id, url, sha256, byte_size and optionally http_status, etag, last_modified
    (a crawl of many unchanged notices wrote these one transaction a notice)."""
    if not rows:
        return
    log = [
        (
            run_id,
            source,
            without_nul(r["url"]),
            r.get("http_status", 200),
            "unchanged",
            r["sha256"],
            r.get("etag"),
            r.get("last_modified"),
            r["byte_size"],
            None,
        )
        for r in rows
    ]
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(_LOG_INSERT, log)
        cur.execute(
            "UPDATE documents SET last_seen = now() WHERE doc_id = ANY(%s)",
            ([without_nul(r["doc_id"]) for r in rows],),
        )
        resolve_crawl_quarantine(cur, run_id=run_id, source=source, urls=[entry[2] for entry in log])


def without_nul(value):
    return value.replace("\x00", "") if isinstance(value, str) else value


# One outcome as one statement, so that many are written in one transaction and round trip (executemany pipelines
# them) in the order they came: the crawl_log row; for a quarantined one, its quarantine record unless the same
# problem is open already (a link that stays broken is logged every run in crawl_log, but is one quarantine entry);
# for a stored or unchanged one, its open crawl quarantine entries resolved; for a 304, its document seen.
_OUTCOME_WRITE = (
    "WITH logged AS (INSERT INTO crawl_log (run_id, source, url, status, outcome, sha256, etag, last_modified,"
    "  byte_size, reason) VALUES (%(run_id)s, %(source)s, %(url)s, %(status)s, %(outcome)s, %(sha256)s, %(etag)s,"
    "  %(last_modified)s, %(byte_size)s, %(reason)s)),"
    " quarantined AS (INSERT INTO quarantine (stage, source, url, sha256, reason, detail)"
    "  SELECT 'crawl', %(source)s, %(url)s, %(sha256)s, %(reason)s, %(detail)s WHERE %(outcome)s = 'quarantined'"
    "  AND NOT EXISTS (SELECT 1 FROM quarantine WHERE stage = 'crawl' AND source = %(source)s AND url = %(url)s"
    "  AND reason = %(reason)s AND sha256 IS NOT DISTINCT FROM %(sha256)s AND resolved_at IS NULL)),"
    " resolved AS (UPDATE quarantine SET resolved_at = now(), resolved_by = %(run_id)s"
    "  WHERE %(outcome)s IN ('stored', 'unchanged') AND stage = 'crawl' AND source = %(source)s AND url = %(url)s"
    "  AND resolved_at IS NULL)"
    " UPDATE documents SET last_seen = now() WHERE %(seen)s AND source = %(source)s AND url = %(url)s"
)
_OUTCOME_FIELDS = ("status", "sha256", "etag", "last_modified", "byte_size", "reason")


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
    seen: bool = False,
) -> None:
    """One outcome for one discovered URL; a quarantined one also gets a quarantine record (stage ``crawl``), a
    stored or unchanged one has its open crawl quarantine entries resolved.
    ``deferred`` (:data:`DEFERRED`, with its reason): the URL was not requested in this run, the next one asks first.
    ``seen``: the document behind ``url`` is marked seen (``last_seen``, a 304) in the same transaction — one
    commit an outcome, not two: an unchanged night's crawl is mostly these."""
    log_outcomes(
        conn,
        run_id=run_id,
        rows=[
            {
                "source": source,
                "url": url,
                "outcome": outcome,
                "status": status,
                "sha256": sha256,
                "etag": etag,
                "last_modified": last_modified,
                "byte_size": byte_size,
                "reason": reason,
                "seen": seen,
            }
        ],
    )


def check_outcome(outcome: str, reason: str | None, url: str) -> None:
    """A ValueError for an outcome the crawl log does not take: an unknown one, or one that needs a reason without."""
    if outcome not in OUTCOMES and outcome != DEFERRED:
        raise ValueError(f"unknown crawl outcome {outcome!r} (one of {', '.join(OUTCOMES)}, or {DEFERRED})")
    if outcome in ("quarantined", "disallowed", DEFERRED) and not reason:
        raise ValueError(f"a {outcome} URL needs a reason: {url}")


def log_outcomes(conn: psycopg.Connection, *, run_id: str | None, rows: list[dict]) -> None:
    """:func:`log_outcome` of many outcomes, in their order, in one transaction and one round trip (a crawl's
    held-back URLs were a transaction each: ~4 ms a URL on the crawl's reactor thread). ``rows``: dicts with
    source, url and outcome, and optionally log_outcome's other keywords; all are refused when one is invalid."""
    params = []
    for row in rows:
        url, reason, outcome = without_nul(row["url"]), without_nul(row.get("reason")), row["outcome"]
        check_outcome(outcome, reason, url)
        status = row.get("status")
        params.append(
            {
                **{name: row.get(name) for name in _OUTCOME_FIELDS},
                "run_id": run_id,
                "source": row["source"],
                "url": url,
                "outcome": outcome,
                "reason": reason,
                "detail": f"run {run_id}" + (f", HTTP {status}" if status else ""),
                "seen": bool(row.get("seen", False)),
            }
        )
    if not params:
        return
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(_OUTCOME_WRITE, params)


def resolve_crawl_quarantine(conn, *, run_id: str | None, source: str, urls: list[str]) -> None:
    """The URLs answer with a real document again: their open crawl quarantine entries are resolved by the run."""
    conn.execute(
        "UPDATE quarantine SET resolved_at = now(), resolved_by = %s"
        " WHERE stage = 'crawl' AND source = %s AND url = ANY(%s) AND resolved_at IS NULL",
        (run_id, source, urls),
    )


def log_deferred(conn: psycopg.Connection, *, run_id: str | None, source: str, rows) -> None:
    """URLs put off to the next run, (url, reason) each: one crawl_log row each, in one transaction."""
    rows = [(run_id, source, without_nul(url), DEFERRED, without_nul(reason)) for url, reason in rows]
    if not all(reason for *_, reason in rows):
        raise ValueError("a deferred URL needs a reason")
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO crawl_log (run_id, source, url, outcome, reason) VALUES (%s, %s, %s, %s, %s)", rows
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


def record_run(
    conn: psycopg.Connection,
    *,
    run_id: str,
    source: str,
    discovered: int,
    withdrawn: int = 0,
    reactivated: int = 0,
    incomplete_listings: list[str] | tuple[str, ...] = (),
    finish_reason: str | None = None,
) -> None:
    """What one spider discovered in a run (written when it closes; a re-run under the same id replaces it)."""
    conn.execute(
        "INSERT INTO crawl_runs (run_id, source, discovered, withdrawn, reactivated, incomplete_listings,"
        " finish_reason) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (run_id, source) DO UPDATE SET"
        " discovered = EXCLUDED.discovered, withdrawn = EXCLUDED.withdrawn, reactivated = EXCLUDED.reactivated,"
        " incomplete_listings = EXCLUDED.incomplete_listings, finish_reason = EXCLUDED.finish_reason,"
        " finished_at = now()",
        (run_id, source, discovered, withdrawn, reactivated, sorted(incomplete_listings), finish_reason),
    )


def sync_listing(
    conn: psycopg.Connection, *, source: str, listing: str, doc_ids, complete: bool = True
) -> tuple[list[str], list[str]]:
    """A listing names ``doc_ids`` in this run: withdrawn documents among them become active again, and when the
    listing was read in full (``complete``) its other documents become withdrawn. Returns (withdrawn,
    reactivated) doc ids."""
    present = sorted(set(doc_ids))
    with conn.transaction():
        withdrawn = (
            []
            if not complete
            else [
                d
                for (d,) in conn.execute(
                    "UPDATE documents SET status = 'withdrawn' WHERE source = %s AND listing = %s AND status = 'active'"
                    " AND NOT (doc_id = ANY(%s)) RETURNING doc_id",
                    (source, listing, present),
                )
            ]
        )
        reactivated = [
            d
            for (d,) in conn.execute(
                "UPDATE documents SET status = 'active', listing = %s, last_seen = now() WHERE source = %s"
                " AND status = 'withdrawn' AND doc_id = ANY(%s) RETURNING doc_id",
                (listing, source, present),
            )
        ]
    return sorted(withdrawn), sorted(reactivated)


def run_counts(conn: psycopg.Connection, run_id: str, source: str) -> dict:
    """One spider run reconciled from the database: ``discovered`` (``crawl_runs``; None when the spider never
    closed), the outcomes logged, ``withdrawn`` / ``reactivated``, and ``reconciled``: discovered equals
    stored + unchanged + quarantined + disallowed, and nothing else was logged."""
    row = conn.execute(
        "SELECT discovered, withdrawn, reactivated FROM crawl_runs WHERE run_id = %s AND source = %s", (run_id, source)
    ).fetchone()
    outcomes = outcome_counts(conn, run_id, source)
    discovered, withdrawn, reactivated = row if row else (None, 0, 0)
    reconciled = discovered is not None and set(outcomes) == set(OUTCOMES) and discovered == sum(outcomes.values())
    return {
        "discovered": discovered,
        **outcomes,
        "withdrawn": withdrawn,
        "reactivated": reactivated,
        "reconciled": reconciled,
    }


def outcome_counts(conn: psycopg.Connection, run_id: str, source: str | None = None) -> dict[str, int]:
    """Outcomes logged in one run (one Dagster run crawls several sources: pass ``source`` to split them);
    deferred URLs are not among them (:func:`deferred_count`)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for outcome, n in conn.execute(
        "SELECT outcome, count(*) FROM crawl_log WHERE run_id = %s AND (%s::text IS NULL OR source = %s)"
        " AND outcome <> %s GROUP BY outcome",
        (run_id, source, source, DEFERRED),
    ):
        counts[outcome] = n
    return counts


def deferred_count(conn: psycopg.Connection, run_id: str, source: str) -> int:
    """URLs one run of one source deferred to the next run."""
    return conn.execute(
        "SELECT count(*) FROM crawl_log WHERE run_id = %s AND source = %s AND outcome = %s", (run_id, source, DEFERRED)
    ).fetchone()[0]
