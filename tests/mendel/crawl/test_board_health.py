"""A board crawl's run read back from its crawl log: every row that is not a stored or unchanged document counted
under its kind of reason, the boards whose listings were not read, and the verdict the failure check gives."""

from __future__ import annotations

import hashlib

import psycopg
import pytest

from mendel.crawl import board_health, crawlstate

RUN = "run-1"
BUDGET = "deferred: www.mvcr.cz had its budget of 200 requests in this run; the next run asks for it first"


@pytest.mark.parametrize(
    "outcome, status, reason, board_url, kind",
    [
        ("stored", 200, None, False, None),
        ("unchanged", 304, None, False, None),
        ("quarantined", 404, "HTTP 404", False, "attachments_404"),
        ("quarantined", 410, "HTTP 410 (after 2 retries)", False, "attachments_http_error"),
        ("quarantined", None, "timeout: no answer in 60 s", False, "attachments_failed"),
        ("quarantined", None, "HTTP 404", False, "held_back"),  # not requested: its last answer, no status
        ("quarantined", None, "HTTP 410", False, "held_back"),
        ("quarantined", 200, "not a PDF: an HTML page", False, "attachments_refused"),
        ("quarantined", 404, "listing: HTTP 404", False, "listings_unread"),
        ("failed", None, "listing: connection refused", False, "listings_unread"),
        ("quarantined", None, "HTML board not read: it has no extraction rules", True, "boards_without_rules"),
        ("quarantined", 200, "notice 3 of the ofn listing: no title", False, "notices_quarantined"),
        ("disallowed", None, "robots.txt", False, "robots_disallowed"),
        ("deferred", None, BUDGET, False, "deferred_over_budget"),
        ("deferred", None, "deferred: asked for next time", False, "deferred_other"),
    ],
)
def test_each_row_has_its_kind(outcome, status, reason, board_url, kind):
    assert board_health.reason_kind(outcome, status, reason, board_url) == kind


def summary(held_back_reasons: dict | None = None, **counts) -> dict:
    return {
        "counts": {kind: counts.get(kind, 0) for kind in board_health.KINDS},
        "held_back_reasons": held_back_reasons or {},
    }


@pytest.mark.parametrize(
    "counts, boards, unread, demo, verdict, says",
    [
        ({}, 10, 0, False, "passed", None),
        ({"attachments_404": 517}, 189, 0, False, "warning", "517 attachments 404"),  # production: a 404 is a 404
        # the demo's attachments the sample corpus lacks
        ({"attachments_404": 542}, 189, 0, True, "passed", "542 attachments are not in the sample corpus"),
        (
            {"attachments_404": 199, "held_back": 542, "held_back_reasons": {"HTTP 404": 542}},
            189,
            0,
            True,
            "passed",
            "741 attachments are not in the sample corpus (the mirror answers 404: 199 in this run and 542 held back",
        ),
        (
            {"held_back": 823, "held_back_reasons": {"HTTP 404": 820, "HTTP 410": 3}},
            189,
            0,
            False,
            "passed",
            "823 URLs held back after failing on their last tries (last answer HTTP 404: 820, HTTP 410: 3)",
        ),
        ({"deferred_over_budget": 281}, 189, 0, False, "passed", "281 attachments deferred to the next run"),
        # the demo: anything but a 404 is a failure of the run
        ({"attachments_404": 3, "attachments_http_error": 1}, 189, 0, True, "warning", "1 attachments http error;"),
        ({"attachments_failed": 1, "held_back": 3}, 189, 0, True, "warning", "1 attachments failed; besides"),
        ({"listings_unread": 2}, 10, 2, True, "warning", "2 listings unread"),  # within the share
        ({"listings_unread": 3}, 10, 3, True, "failed", "3 of 10 boards"),  # more than a quarter unread
        ({"listings_unread": 1}, 1, 1, False, "failed", "1 of 1 boards"),  # nothing read at all
        ({}, 0, 0, False, "passed", None),  # no board to crawl
    ],
)
def test_red_only_when_the_crawl_did_not_work(counts, boards, unread, demo, verdict, says):
    found, why = board_health.crawl_verdict(summary(**counts), boards, unread, 0.25, demo)
    assert found == verdict
    assert why == says if says is None else says in why


def test_a_run_read_back_from_its_crawl_log(fresh_db):
    feed, page, other = "https://deska.example/feed.jsonld", "https://obec.example/deska", "https://b.example/feed"
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for key, url, kind in ((feed, feed, "ofn"), ("html:obec", page, "html"), (other, other, "ofn")):
            conn.execute("INSERT INTO boards (key, kind, url, spec) VALUES (%s, %s, %s, '{}')", (key, kind, url))
        rows = [
            ("https://deska.example/a.pdf", "stored", 200, None),
            ("https://deska.example/b.pdf", "quarantined", 404, "HTTP 404"),
            ("https://deska.example/c.pdf", "quarantined", 404, "HTTP 404"),
            (page, "quarantined", None, "HTML board not read: its CMS has no rule set"),
            ("https://deska.example/e.pdf", "quarantined", None, "HTTP 404"),  # held back: not requested
        ]
        for url, outcome, status, reason in rows:
            crawlstate.log_outcome(
                conn, run_id=RUN, source="boards", url=url, outcome=outcome, status=status, reason=reason
            )
        crawlstate.log_outcome(  # another run's row counts nowhere
            conn,
            run_id="run-0",
            source="boards",
            url="https://deska.example/d.pdf",
            outcome="quarantined",
            status=404,
            reason="HTTP 404",
        )
        crawlstate.log_deferred(conn, run_id=RUN, source="boards", rows=[("https://www.mvcr.cz/x.pdf", BUDGET)])
        crawlstate.record_run(conn, run_id=RUN, source="boards", discovered=4, incomplete_listings=[other])

        found = board_health.failure_summary(conn, RUN)
        unread = board_health.unread_boards(conn, RUN, [feed, page, other])
        never_closed = board_health.unread_boards(conn, "run-without-a-record", [feed])

    assert found["tried"] == 4  # neither the deferred URL nor the held-back one was requested
    assert {k: n for k, n in found["counts"].items() if n} == {
        "attachments_404": 2,
        "boards_without_rules": 1,
        "held_back": 1,
        "deferred_over_budget": 1,
    }
    assert found["held_back_reasons"] == {"HTTP 404": 1}
    assert found["hosts_over_budget"] == {"www.mvcr.cz": 1}
    assert found["reasons"][0] == ("attachments_404", "HTTP 404", 2)
    assert unread == {page, other} and never_closed == {feed}


def record_notice(conn, run_id: str, board: str, name: str, body: str = "v1") -> str:
    doc_id = f"{board}#{name}"
    crawlstate.record_document(
        conn,
        run_id=run_id,
        source="boards",
        doc_id=doc_id,
        url=f"{board}/{name}",
        sha256=hashlib.sha256(f"{doc_id} {body}".encode()).hexdigest(),
        byte_size=1,
        content_type="text/html",
        title=name,
        doc_type="notice",
        listing=board,
    )
    return doc_id


# board → what the run does to the notices its listing owns, and how many the changed boards count
@pytest.mark.parametrize(
    "happens, changed",
    [
        ("unchanged", 0),  # the same bytes again (or a 304): nothing changed
        ("new notice", 1),
        ("new bytes", 1),
        ("withdrawn", 1),  # the listing read in full no longer names one
        ("listed again", 1),  # a withdrawn notice named again
        ("retitled", 1),  # the same bytes under another title
        ("stored before the mark", 1),  # an earlier attempt of the run's retried step stored it
        ("stored by another run", 0),
    ],
)
def test_the_boards_whose_documents_a_run_changed(fresh_db, happens, changed):
    board, other = "https://a.mirror.test/deska", "https://b.mirror.test/deska"
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        kept = record_notice(conn, "night-1", board, "kept")
        old = record_notice(conn, "night-1", board, "old")
        record_notice(conn, "night-1", other, "other")
        if happens == "listed again":
            crawlstate.sync_listing(conn, source="boards", listing=board, doc_ids=[kept])
        if happens == "stored before the mark":
            record_notice(conn, RUN, board, "early")
        if happens == "stored by another run":
            record_notice(conn, "night-0", board, "late")
        mark = board_health.change_mark(conn)
        record_notice(conn, RUN, board, "kept")
        record_notice(conn, RUN, other, "other")
        if happens == "new notice":
            record_notice(conn, RUN, board, "new")
        elif happens == "new bytes":
            record_notice(conn, RUN, board, "old", body="v2")
        elif happens == "withdrawn":
            crawlstate.sync_listing(conn, source="boards", listing=board, doc_ids=[kept])
        elif happens == "listed again":
            crawlstate.sync_listing(conn, source="boards", listing=board, doc_ids=[kept, old])
        elif happens == "retitled":
            conn.execute("UPDATE documents SET title = 'renamed' WHERE doc_id = %s", (old,))
        found = board_health.changed_documents(conn, RUN, [board, other], mark)
    assert found == ({board: changed} if changed else {})
