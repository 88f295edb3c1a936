"""Outcomes written many in one transaction (mendel.crawl.crawlstate.log_outcomes) leave what writing them one at a
time in the same order leaves: the crawl log rows, one open quarantine entry per problem, entries resolved by a later
answer and not by an earlier one, a 304's document seen."""

from __future__ import annotations

import psycopg
import pytest

from mendel.crawl import crawlstate

URL = "https://a.mirror.test/soubor/priloha.pdf"
GONE = {"source": "boards", "url": URL, "outcome": "quarantined", "status": 404, "reason": "HTTP 404"}
ANSWERED = {"source": "boards", "url": URL, "outcome": "unchanged", "status": 304, "seen": True}
HELD_BACK = {"source": "boards", "url": URL, "outcome": "quarantined", "reason": "HTTP 404"}


def state(conn) -> tuple:
    logged = conn.execute("SELECT outcome, status FROM crawl_log WHERE url = %s ORDER BY id", (URL,)).fetchall()
    entries = conn.execute(
        "SELECT reason, resolved_at IS NOT NULL, resolved_by FROM quarantine WHERE url = %s ORDER BY id", (URL,)
    ).fetchall()
    return logged, entries


@pytest.mark.parametrize(
    "rows, still_open",
    [
        ([GONE], ["HTTP 404"]),
        ([GONE, ANSWERED], []),  # answered after: resolved
        ([ANSWERED, GONE], ["HTTP 404"]),  # gone after: open
        ([GONE, HELD_BACK, GONE], ["HTTP 404"]),  # one entry for one problem
        ([GONE, ANSWERED, GONE, {**GONE, "status": 410, "reason": "HTTP 410"}], ["HTTP 404", "HTTP 410"]),
    ],
)
def test_a_batch_leaves_what_one_outcome_at_a_time_leaves(fresh_db, rows, still_open):
    results = []
    for batched in (False, True):
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            conn.execute("DELETE FROM crawl_log")
            conn.execute("DELETE FROM quarantine")
            if batched:
                crawlstate.log_outcomes(conn, run_id="r", rows=rows)
            else:
                for row in rows:
                    crawlstate.log_outcome(conn, run_id="r", **row)
            results.append(state(conn))
    assert results[0] == results[1]
    logged, entries = results[1]
    assert logged == [(row["outcome"], row.get("status")) for row in rows]
    assert [reason for reason, resolved, _ in entries if not resolved] == still_open
    assert all(by == "r" for _, resolved, by in entries if resolved)


def test_a_304_in_a_batch_marks_its_document_seen_in_the_same_transaction(fresh_db):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        crawlstate.record_document(
            conn,
            run_id="r0",
            source="boards",
            doc_id="a#1",
            url=URL,
            sha256="0" * 64,
            byte_size=1,
            content_type="application/pdf",
        )
        before = conn.execute("SELECT last_seen FROM documents WHERE doc_id = 'a#1'").fetchone()[0]
        crawlstate.log_outcomes(conn, run_id="r1", rows=[HELD_BACK, ANSWERED])
        logged = {x for (x,) in conn.execute("SELECT xmin::text FROM crawl_log WHERE run_id = 'r1'")}
        seen, xmin = conn.execute("SELECT last_seen, xmin::text FROM documents WHERE doc_id = 'a#1'").fetchone()
    assert seen > before and logged == {xmin}


def test_a_batch_with_an_outcome_the_log_does_not_take_writes_nothing(fresh_db):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        with pytest.raises(ValueError, match="needs a reason"):
            crawlstate.log_outcomes(conn, run_id="r", rows=[GONE, {**GONE, "reason": None}])
        assert state(conn) == ([], [])
