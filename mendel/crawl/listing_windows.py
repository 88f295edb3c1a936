"""A search-by-date listing read incrementally: from the last complete read minus an overlap, not from the start.

A source whose listing is a search by publication date (the Nejvyšší soud's) records in ``listing_windows`` the day up
to which its listing is known to be read in full (``covered_to``). A nightly read without an explicit window starts
at ``covered_to`` minus the overlap (the production look-back, so a decision put on the web late, or a night's
document fetch that failed, is asked for again on the following nights); with no coverage yet (a first night) or when
asked for the whole listing it reads the configured window. Only a complete, open-ended read that started no later
than the coverage before it moves the coverage on: a failed night, a night cut short or a closed backfill window
leaves it, so nothing published in between is skipped.
"""

from __future__ import annotations

from datetime import date, timedelta

import psycopg


def covered_to(conn: psycopg.Connection, source: str) -> date | None:
    """The day up to which ``source``'s listing is known to be read in full; None before a first complete read."""
    row = conn.execute("SELECT covered_to FROM listing_windows WHERE source = %s", (source,)).fetchone()
    return row[0] if row else None


def incremental_start(configured_from: str, covered: date | None, overlap_days: int) -> str:
    """The ISO day a nightly read starts at: the configured window's start before any complete read, else the
    coverage minus the overlap (earlier than the configured start where nights were missed: they are caught up)."""
    if covered is None:
        return configured_from
    return (covered - timedelta(days=overlap_days)).isoformat()


def record_complete_read(
    conn: psycopg.Connection, *, source: str, date_from: str, date_to: str, read_on: date, run_id: str | None
) -> bool:
    """A read of [date_from, date_to] finished with every listing page read, on ``read_on``. It moves the coverage
    to ``read_on`` when it was open-ended (``date_to`` empty) and started no later than the coverage before it (or
    there was none): the two reads then leave no gap. Returns whether the coverage moved."""
    if date_to:
        return False
    start = date.fromisoformat(date_from)
    return (
        conn.execute(
            "INSERT INTO listing_windows AS w (source, covered_to, run_id) VALUES (%s, %s, %s)"
            " ON CONFLICT (source) DO UPDATE SET covered_to = EXCLUDED.covered_to, run_id = EXCLUDED.run_id,"
            " updated_at = now() WHERE w.covered_to >= %s AND w.covered_to < EXCLUDED.covered_to",
            (source, read_on, run_id, start),
        ).rowcount
        == 1
    )
