"""How a crawl run went, read from its crawl log: the share of tried URLs that failed and why, the URLs held back
(gone on their last tries, not requested in this run) with their last answer, and whether the run counts as failed
(the crawl assets' checks).

A held-back URL is no failure of the run that held it back: it failed on the night it was requested (and counted
then), it stays visible here by count and reason every night it is held back, and it counts again only when its
backoff ends and a real request fails. Only a run that fetched nothing — every URL it found held back — fails
because of them: a source none of whose documents can be fetched is not working.
"""

from __future__ import annotations

from collections import Counter

import psycopg

from mendel.crawl.crawlstate import DEFERRED
from mendel.crawl.known import held_back_row

FAILED_OUTCOMES = ("quarantined", "failed")


def reason_label(outcome: str, status: int | None, reason: str | None) -> str:
    """A failure's reason as the checks list it: its HTTP status and the logged reason."""
    if reason and reason.startswith("HTTP "):  # the reason names its status already
        return reason
    return (f"HTTP {status}: " if status is not None else "") + (reason or outcome)


def failure_summary(conn: psycopg.Connection, run_id: str, source: str, top: int = 5) -> dict:
    """How one run of one source failed: ``tried`` (URLs logged with an outcome of this run; deferred and held back
    apart), ``failed`` (quarantined or failed among them), ``failure_share``, ``top_reasons`` (the commonest, with
    counts), ``failed_by_status`` (HTTP status → URLs), and ``held_back`` with ``held_back_reasons`` (their last
    answer → URLs)."""
    rows = conn.execute(
        "SELECT outcome, status, reason, count(*) FROM crawl_log WHERE run_id = %s AND source = %s AND outcome <> %s"
        " GROUP BY 1, 2, 3",
        (run_id, source, DEFERRED),
    ).fetchall()
    tried = failed = held_back = 0
    reasons: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    held_back_reasons: Counter[str] = Counter()
    for outcome, status, reason, n in rows:
        if held_back_row(outcome, status, reason):
            held_back += n
            held_back_reasons[reason] += n
            continue
        tried += n
        if outcome in FAILED_OUTCOMES:
            failed += n
            reasons[reason_label(outcome, status, reason)] += n
            if status is not None:
                statuses[status] += n
    return {
        "tried": tried,
        "failed": failed,
        "failure_share": round(failed / tried, 4) if tried else 0.0,
        "top_reasons": sorted(reasons.items(), key=lambda r: (-r[1], r[0]))[:top],
        "failed_by_status": dict(statuses),
        "held_back": held_back,
        "held_back_reasons": sorted(held_back_reasons.items(), key=lambda r: (-r[1], r[0])),
    }


def run_listing_counts(conn: psycopg.Connection, run_id: str, source: str) -> tuple[int, int]:
    """(URLs discovered, listings not read in full) of one run of one source, as its spider recorded on closing;
    (0, 1) when the run recorded nothing (the spider never closed: nothing could be listed)."""
    row = conn.execute(
        "SELECT discovered, cardinality(incomplete_listings) FROM crawl_runs WHERE run_id = %s AND source = %s",
        (run_id, source),
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 1)


def held_back_note(summary: dict) -> str:
    """The held-back URLs in words, with their last answers: "58 URLs held back after failing on their last tries
    (last answer HTTP 404: 58), not requested in this run"."""
    reasons = ", ".join(f"{reason}: {n}" for reason, n in summary["held_back_reasons"])
    return (
        f"{summary['held_back']} URLs held back after failing on their last tries (last answer {reasons}), "
        "not requested in this run"
    )


def crawl_failed(summary: dict, discovered: int, listing_failed: int, max_share: float) -> str | None:
    """Why a crawl run counts as failed, or None: too large a share of the URLs it tried failed (held-back URLs are
    not tried: they are no failure of this run), a listing could not be read and nothing was found, or every URL it
    found was held back (a source that fetched nothing is not a success)."""
    if summary["tried"] and summary["failure_share"] > max_share:
        return (
            f"{summary['failed']} of {summary['tried']} URLs failed ({summary['failure_share']:.0%} > {max_share:.0%})"
        )
    if listing_failed and not discovered:
        return f"{listing_failed} listing(s) could not be read and nothing was found"
    if summary["held_back"] and not summary["tried"]:
        return f"nothing fetched: every URL found was held back — {held_back_note(summary)}"
    return None
