"""An incremental search-by-date listing (mendel.crawl.listing_windows): a complete open-ended read that leaves no gap
moves the coverage on; a closed window, a read that starts after the coverage, or an older read leave it."""

from datetime import date

import psycopg

from mendel.crawl import listing_windows

DAY = date(2026, 12, 1)


def test_a_complete_read_moves_the_coverage_only_when_it_leaves_no_gap(fresh_db):
    def record(date_from: str, read_on: date, date_to: str = "") -> bool:
        return listing_windows.record_complete_read(
            conn, source="nsoud", date_from=date_from, date_to=date_to, read_on=read_on, run_id="r"
        )

    with psycopg.connect(fresh_db, autocommit=True) as conn:
        assert listing_windows.covered_to(conn, "nsoud") is None
        assert record("2026-06-01", DAY, date_to="2026-06-30") is False  # a backfill window: never the coverage
        assert listing_windows.covered_to(conn, "nsoud") is None
        assert record("1993-01-01", DAY) is True  # a first night's whole read
        assert listing_windows.covered_to(conn, "nsoud") == DAY
        assert record("2026-12-03", date(2026, 12, 4)) is False  # starts after the coverage: a gap
        assert record("2026-11-17", DAY) is False  # the same day again: nothing new
        assert record("2026-11-17", date(2026, 12, 2)) is True  # the next night, from the coverage minus 14 days
        assert listing_windows.covered_to(conn, "nsoud") == date(2026, 12, 2)
        assert record("1993-01-01", DAY) is False  # an older read never moves it back
        assert listing_windows.covered_to(conn, "nsoud") == date(2026, 12, 2)
        assert listing_windows.covered_to(conn, "nalus") is None


def test_a_night_starts_at_the_coverage_minus_the_overlap_or_the_configured_start_before_any():
    assert listing_windows.incremental_start("1993-01-01", None, 14) == "1993-01-01"
    assert listing_windows.incremental_start("1993-01-01", DAY, 14) == "2026-11-17"
    # Nights missed in production: the configured look-back (today - 14) would skip them; the coverage does not.
    assert listing_windows.incremental_start("2026-11-30", date(2026, 11, 1), 14) == "2026-10-18"
