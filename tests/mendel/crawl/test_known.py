"""A URL that answered gone (404/410) is not requested every night: mendel.crawl.known.known_gone counts its run of
gone answers over real requests (held-back nights neither count nor break it), and its backoff (1, 2, 4 … 32 days)
says when it is asked for again."""

from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from mendel.crawl import crawlstate, known

NOW = datetime(2026, 12, 2, 2, 0, tzinfo=timezone.utc)


def log(conn, run, url, outcome, status=None, reason=None, at=NOW):
    crawlstate.log_outcome(conn, run_id=run, source="boards", url=url, outcome=outcome, status=status, reason=reason)
    conn.execute("UPDATE crawl_log SET fetched_at = %s WHERE id = (SELECT max(id) FROM crawl_log)", (at,))


@pytest.mark.parametrize(
    "history, tries, wait_days",
    [
        ([(404, 0)], 1, 1),  # gone once: try again tomorrow
        ([(404, 0), (404, -2), (404, -3)], 3, 4),  # gone on three real tries: four days
        ([(404, 0), (None, -1), (404, -2)], 2, 2),  # a held-back night neither counts nor breaks the run
        ([(410, 0), ("stored", -1), (404, -2)], 1, 1),  # answered once in between: the run starts again
        ([(404, -i) for i in range(9)], 9, 32),  # capped
        ([(410, 0), (404, -2)], 2, 2),  # the newest answer says how it is gone
    ],
)
def test_gone_urls_back_off_by_their_run_of_gone_answers(fresh_db, history, tries, wait_days):
    url = "https://www.mvcr.cz/soubor/priloha.pdf"
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for number, (status, days) in enumerate(reversed(history)):
            at = NOW + timedelta(days=days)
            if status == "stored":
                log(conn, f"r{number}", url, "unchanged", status=200, at=at)
            else:
                gone_status = status or 404
                log(conn, f"r{number}", url, "quarantined", status=status, reason=f"HTTP {gone_status}", at=at)
        log(conn, "other", "https://www.mvcr.cz/clanek/ok.aspx", "stored", status=200)
        gone = known.known_gone(conn, "boards")
    assert list(gone) == [url]
    assert gone[url].tries == tries and gone[url].last_try == NOW
    assert gone[url].status == history[0][0] and gone[url].reason == f"HTTP {history[0][0]}"
    assert gone[url].retry_after == NOW + timedelta(days=wait_days) - known.GONE_BACKOFF_SLACK


def test_a_resolved_quarantine_or_another_failure_is_retried_at_once(fresh_db):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        log(conn, "r1", "https://a.cz/x.pdf", "quarantined", status=404, reason="HTTP 404")
        log(conn, "r2", "https://a.cz/x.pdf", "stored", status=200)  # resolves its quarantine entry
        log(conn, "r1", "https://a.cz/y.pdf", "quarantined", status=503, reason="HTTP 503 after 2 retries")
        assert known.known_gone(conn, "boards") == {}


def test_the_decision_texts_held_under_each_file_number_and_when_they_last_answered(fresh_db):
    """A file number is held by an active decision text with a current version: a citation record, a withdrawn
    decision or another source's does not hold it; several texts under one number give the oldest confirmation."""
    rows = [  # doc_id, source, citation, doc_type, status, last seen (days before NOW)
        ("us/a", "nalus", "I. ÚS 2/95", "decision", "active", 1),
        ("us/b", "nalus", "I. ÚS 2/95", "decision", "active", 20),
        ("us/c", "nalus", "II. ÚS 287/96", "citation_record", "active", 1),
        ("us/d", "nalus", "IV. ÚS 899/15", "decision", "withdrawn", 1),
        ("us/e", "nalus", "III. ÚS 1773/19", "decision", "active", 3),
        ("ns/f", "nsoud", "II. ÚS 287/96", "decision", "active", 1),
    ]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for number, (doc_id, source, citation, doc_type, status, days) in enumerate(rows):
            crawlstate.record_document(
                conn,
                run_id="r",
                source=source,
                doc_id=doc_id,
                url=f"https://example.invalid/{number}",
                sha256=f"{number:064x}",
                byte_size=1,
                content_type="text/html",
                doc_type=doc_type,
                citation=citation,
            )
            conn.execute(
                "UPDATE documents SET status = %s, last_seen = %s WHERE doc_id = %s",
                (status, NOW - timedelta(days=days), doc_id),
            )
        assert known.decisions_confirmed_by_file_number(conn, "nalus") == {
            "I. ÚS 2/95": NOW - timedelta(days=20),
            "III. ÚS 1773/19": NOW - timedelta(days=3),
        }
