"""Crawl nights written straight to the crawl log, as a crawl writes them — for the tests of what the crawl checks make
of a sequence of nights (a first night's 404s, the next night's held-back URLs) without running a spider."""

from __future__ import annotations

import psycopg

from crawlers.known_state import KnownState
from mendel.crawl import crawlstate
from mendel.crawl.crawlstate import DEFERRED
from mendel.crawl.known import known_gone

NOT_FOUND = ("quarantined", 404, "HTTP 404")
STORED = ("stored", 200, None)


def log_night(
    conn: psycopg.Connection,
    run_id: str,
    source: str,
    answers: dict[str, tuple[str, int | None, str | None]],
    incomplete_listings: tuple[str, ...] = (),
) -> set[str]:
    """One night of ``source``: each URL of ``answers`` (url → the outcome, status and reason a request for it gets)
    logged as the crawl logs it — held back when it was gone on its last tries and its backoff has not ended
    (quarantined with its last answer and no status, as crawlers.middlewares.document_due logs it), deferred with
    its reason, else with its answer — and the run recorded as its spider records it on closing. Returns the URLs
    held back."""
    known = KnownState(gone=known_gone(conn, source))
    held_back = set()
    for url, (outcome, status, reason) in answers.items():
        if known.held_back(url):
            held_back.add(url)
            crawlstate.log_outcome(
                conn, run_id=run_id, source=source, url=url, outcome="quarantined", reason=known.gone[url].reason
            )
        elif outcome == DEFERRED:
            crawlstate.log_deferred(conn, run_id=run_id, source=source, rows=[(url, reason)])
        else:
            crawlstate.log_outcome(
                conn, run_id=run_id, source=source, url=url, outcome=outcome, status=status, reason=reason
            )
    discovered = sum(outcome != DEFERRED for outcome, *_ in answers.values())
    crawlstate.record_run(
        conn, run_id=run_id, source=source, discovered=discovered, incomplete_listings=list(incomplete_listings)
    )
    return held_back
