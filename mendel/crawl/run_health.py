"""How a crawl run went, read from its crawl log: the share of tried URLs that failed and why, and whether the run
counts as failed (the crawl assets' checks).
"""

from __future__ import annotations

import psycopg

from mendel.crawl.crawlstate import DEFERRED

FAILED_OUTCOMES = ("quarantined", "failed")


def failure_summary(conn: psycopg.Connection, run_id: str, source: str, top: int = 5) -> dict:
    """How one run of one source failed: URLs tried, URLs quarantined or failed, their share, and the commonest
    reasons (HTTP status and the logged reason) with their counts."""
    tried, failed = conn.execute(
        "SELECT count(*), count(*) FILTER (WHERE outcome = ANY(%s)) FROM crawl_log WHERE run_id = %s AND source = %s"
        " AND outcome <> %s",
        (list(FAILED_OUTCOMES), run_id, source, DEFERRED),
    ).fetchone()
    reasons = conn.execute(
        "SELECT CASE WHEN reason LIKE 'HTTP %%' THEN reason"  # the reason names its status already
        " ELSE coalesce('HTTP ' || status::text || ': ', '') || coalesce(reason, outcome) END AS why, count(*)"
        " FROM crawl_log WHERE run_id = %s AND source = %s AND outcome = ANY(%s)"
        " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT %s",
        (run_id, source, list(FAILED_OUTCOMES), top),
    ).fetchall()
    return {
        "tried": int(tried),
        "failed": int(failed),
        "failure_share": round(failed / tried, 4) if tried else 0.0,
        "top_reasons": [(why, int(n)) for why, n in reasons],
    }


def run_listing_counts(conn: psycopg.Connection, run_id: str, source: str) -> tuple[int, int]:
    """(URLs discovered, listings not read in full) of one run of one source, as its spider recorded on closing;
    (0, 1) when the run recorded nothing (the spider never closed: nothing could be listed)."""
    row = conn.execute(
        "SELECT discovered, cardinality(incomplete_listings) FROM crawl_runs WHERE run_id = %s AND source = %s",
        (run_id, source),
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 1)


def crawl_failed(summary: dict, discovered: int, listing_failed: int, max_share: float) -> str | None:
    """Why a crawl run counts as failed, or None: too large a share of tried URLs failed, or a listing could not
    be read and nothing was found (a source that fetched nothing is not a success)."""
    if summary["tried"] and summary["failure_share"] > max_share:
        return (
            f"{summary['failed']} of {summary['tried']} URLs failed ({summary['failure_share']:.0%} > {max_share:.0%})"
        )
    if listing_failed and not discovered:
        return f"{listing_failed} listing(s) could not be read and nothing was found"
    return None


def failed_with_status(conn: psycopg.Connection, run_id: str, source: str, status: int) -> int:
    """URLs of one run of one source that failed with this HTTP status."""
    return conn.execute(
        "SELECT count(*) FROM crawl_log WHERE run_id = %s AND source = %s AND outcome = ANY(%s) AND status = %s",
        (run_id, source, list(FAILED_OUTCOMES), status),
    ).fetchone()[0]
