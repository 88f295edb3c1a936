"""One crawl run read back from its crawl log (mendel.crawl.run_health): URLs held back — gone on their last tries,
logged with their last answer and no status — are counted apart from what the run tried, never as its failures;
the run fails on too large a share of failures among what it tried, on a listing unread with nothing found, or
when every URL it found was held back."""

from __future__ import annotations

import psycopg
import pytest

from mendel.crawl import crawlstate, run_health

RUN = "run-1"


@pytest.mark.parametrize(
    "rows, tried, failed, held_back, top_reason",
    [
        ([("stored", 200, None), ("quarantined", 404, "HTTP 404")], 2, 1, {}, ("HTTP 404", 1)),
        ([("quarantined", None, "HTTP 404")] * 3, 0, 0, {"HTTP 404": 3}, None),  # held back: not requested
        ([("quarantined", None, "HTTP 410"), ("stored", 200, None)], 1, 0, {"HTTP 410": 1}, None),
        # a real request that failed without an answer is a failure, not held back
        ([("quarantined", None, "timeout: no answer in 180 s")], 1, 1, {}, ("timeout: no answer in 180 s", 1)),
        ([("quarantined", 200, "not a PDF")], 1, 1, {}, ("HTTP 200: not a PDF", 1)),
        ([("deferred", None, "deferred: asked for next time")], 0, 0, {}, None),
    ],
)
def test_held_back_urls_are_counted_apart_from_what_the_run_tried(fresh_db, rows, tried, failed, held_back, top_reason):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for number, (outcome, status, reason) in enumerate(rows):
            url = f"https://a.cz/{number}.pdf"
            if outcome == "deferred":
                crawlstate.log_deferred(conn, run_id=RUN, source="cnb", rows=[(url, reason)])
            else:
                crawlstate.log_outcome(
                    conn, run_id=RUN, source="cnb", url=url, outcome=outcome, status=status, reason=reason
                )
        summary = run_health.failure_summary(conn, RUN, "cnb")
    assert (summary["tried"], summary["failed"]) == (tried, failed)
    assert summary["held_back"] == sum(held_back.values()) and dict(summary["held_back_reasons"]) == held_back
    assert summary["top_reasons"][:1] == ([top_reason] if top_reason else [])


def summary(tried: int, failed: int, held_back: int = 0) -> dict:
    return {
        "tried": tried,
        "failed": failed,
        "failure_share": round(failed / tried, 4) if tried else 0.0,
        "held_back": held_back,
        "held_back_reasons": [("HTTP 404", held_back)] if held_back else [],
    }


@pytest.mark.parametrize(
    "found, discovered, listing_failed, why",
    [
        (summary(10, 2), 10, 0, None),
        (summary(9, 0, held_back=1), 10, 0, None),  # a URL that keeps failing: said, not failed
        (summary(9, 5, held_back=1), 10, 0, "5 of 9 URLs failed (56% > 25%)"),  # a rise is red
        (summary(0, 0, held_back=58), 58, 0, "nothing fetched: every URL found was held back — 58 URLs held back"),
        (summary(1, 1), 0, 1, "1 of 1 URLs failed"),
        (summary(0, 0), 0, 1, "1 listing(s) could not be read and nothing was found"),
        (summary(0, 0), 0, 0, None),  # nothing to crawl
    ],
)
def test_when_a_run_counts_as_failed(found, discovered, listing_failed, why):
    said = run_health.crawl_failed(found, discovered, listing_failed, 0.25)
    assert said == why if why is None else why in said
