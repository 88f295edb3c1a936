"""The publication days of a day-by-day source (the lower courts' open data, rozhodnuti.justice.cz): which a crawl
has read in full, and which are closed.

A court publishes a decision some time after it is made, and the open data lists it under the day it was
published; a day can still gain records for a while after it (the source's publication lag). So a day is read
again on every run until it is older than the lag; the first complete read after that closes it, and a closed day
is never asked for again (a backfill may re-read it on purpose). A day whose read failed anywhere stays open.
"""

from __future__ import annotations

from datetime import date, timedelta

import psycopg


def closable(day: date, today: date, lag_days: int) -> bool:
    """Whether a complete read of ``day`` on ``today`` closes it: the day is older than the publication lag."""
    return day < today - timedelta(days=lag_days)


def closed_days(conn: psycopg.Connection, source: str) -> set[str]:
    """The closed days of ``source`` (ISO dates)."""
    return {
        day.isoformat()
        for (day,) in conn.execute(
            "SELECT day FROM open_data_days WHERE source = %s AND closed_at IS NOT NULL", (source,)
        )
    }


def record_read(
    conn: psycopg.Connection, *, source: str, day: str, pages: int, records: int, close: bool, run_id: str | None
) -> None:
    """A complete read of ``day``: its counts, and its closing when ``close`` (a closed day stays closed)."""
    conn.execute(
        "INSERT INTO open_data_days (source, day, pages, records, run_id, closed_at)"
        " VALUES (%s, %s, %s, %s, %s, CASE WHEN %s THEN now() END)"
        " ON CONFLICT (source, day) DO UPDATE SET pages = EXCLUDED.pages, records = EXCLUDED.records,"
        " last_read = now(), run_id = EXCLUDED.run_id,"
        " closed_at = coalesce(open_data_days.closed_at, EXCLUDED.closed_at)",
        (source, day, pages, records, run_id, close),
    )


def day_counts(conn: psycopg.Connection, source: str) -> dict[str, int]:
    """Days read in full and days closed, for a run's metadata."""
    read, closed = conn.execute(
        "SELECT count(*), count(closed_at) FROM open_data_days WHERE source = %s", (source,)
    ).fetchone()
    return {"days_read": read, "days_closed": closed}
