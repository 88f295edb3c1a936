"""The board crawl's request budget per host and run (``MENDEL_BOARD_HOST_BUDGET``): a host's robots.txt and listings
always go; attachments over the budget are deferred — listed, logged ``deferred`` with their reason, counted — and
the next run asks for them first, so every attachment arrives over successive runs."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.boards import scaled_crawl

FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}


def attachment_rows(database_url: str, run_id: str) -> list[tuple[str, str, str | None]]:
    """(url, outcome, reason) of the attachments one run logged, in order."""
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "SELECT url, outcome, reason FROM crawl_log WHERE run_id = %s"
            " AND url LIKE '%%/filemanager/files/%%' ORDER BY id",
            (run_id,),
        ).fetchall()


@pytest.mark.e2e
def test_host_budget_defers_attachments_and_the_next_run_fetches_them_first(tmp_path, fresh_db, monkeypatch):
    with MirrorThread(SAMPLE_CORPUS, scale=10) as mirror:
        run, register, by_host = scaled_crawl(mirror, monkeypatch, tmp_path, fresh_db)
        files = {
            b.host: len(mirror.server.scale.content(by_host[b.host].index)[1]) for b in register if not b.javascript
        }
        ordered = sorted(files, key=files.get)
        big, small = ordered[-1], ordered[0]
        budget = files[small] + 2  # robots.txt + the feed + every file of the small board, fewer than the big one's
        assert files[big] > files[small], files
        boards_file = str(write_boards_file([b for b in register if b.host in (big, small)], tmp_path / "b.json"))
        arrivals = mirror.server.board_hosts.arrivals

        # Run 1, a budget of one request: robots.txt and the feeds still go (a listing is never deferred), every
        # attachment is deferred.
        first = run("boards", "budget-1", MENDEL_BOARDS_FILE=boards_file, MENDEL_BOARD_HOST_BUDGET="1", **FAST)
        hits_1 = {h: [p for _, p in hits] for h, hits in arrivals.items()}
        arrivals.clear()
        deferred_1 = attachment_rows(fresh_db, "budget-1")

        # Run 2, a budget of the small board's files: what run 1 deferred goes first, within the budget of each
        # host; the rest is deferred again.
        second = run("boards", "budget-2", MENDEL_BOARDS_FILE=boards_file, MENDEL_BOARD_HOST_BUDGET=str(budget), **FAST)
        hits_2 = {h: [p for _, p in hits] for h, hits in arrivals.items()}
        rows_2 = attachment_rows(fresh_db, "budget-2")

        # Run 3, no budget: everything still missing arrives.
        third = run("boards", "budget-3", MENDEL_BOARDS_FILE=boards_file, MENDEL_BOARD_HOST_BUDGET="0", **FAST)
        rows_3 = attachment_rows(fresh_db, "budget-3")

    every_file = files[big] + files[small]
    # Run 1: the feeds read (their notices stored), nothing of the attachments requested, each deferred with why.
    assert first["boards_ofn"] == 2 and first["stored"] > 0 and first["listing_failed"] == 0
    for host in (big, small):
        assert hits_1[host].count("/robots.txt") == 1 and len(hits_1[host]) == 2, hits_1[host]
    assert {outcome for _, outcome, _ in deferred_1} == {"deferred"} and len(deferred_1) == every_file
    assert all("budget of 1 requests" in reason for _, _, reason in deferred_1)
    assert first["deferred"] == first["boards_attachments_deferred"] == every_file
    assert first["boards_hosts_over_budget"] == 2
    # Deferred URLs are not discovered in the run: it reconciles without them (crawl_runner checks).
    assert first["discovered"] == first["stored"]

    # Run 2: each host got at most its budget; the big host's first deferred files, all of the small one's.
    assert all(len(paths) <= budget for paths in hits_2.values()), hits_2
    fetched_2 = [url for url, outcome, _ in rows_2 if outcome != "deferred"]
    expected = [u for u, _, _ in deferred_1 if big in u][: budget - 2] + [u for u, _, _ in deferred_1 if small in u]
    assert sorted(fetched_2) == sorted(expected)
    assert second["boards_attachments_carried_over"] == len(expected)
    assert second["deferred"] == files[big] - (budget - 2) and second["boards_hosts_over_budget"] == 1
    assert {outcome for u, outcome, _ in rows_2 if u in fetched_2} == {"stored"}

    # Run 3: the rest, nothing deferred; over the three runs every attachment was stored once.
    assert third["deferred"] == 0 and "boards_attachments_deferred" not in third
    stored = [u for rows in (rows_2, rows_3) for u, outcome, _ in rows if outcome == "stored"]
    assert len(stored) == len(set(stored)) == every_file


def test_no_board_callback_is_a_generator_returning_a_value():
    """The spider turns off Scrapy's per-response check of this (WARN_ON_GENERATOR_RETURN_VALUE): checked here."""
    from scrapy.utils.misc import is_generator_with_return_value

    from crawlers.spiders.boards import BoardsSpider

    assert BoardsSpider.custom_settings["WARN_ON_GENERATOR_RETURN_VALUE"] is False
    callbacks = {name for name in dir(BoardsSpider) if name.startswith(("parse_", "on_"))}
    assert {"parse_feed", "parse_html_board", "parse_article_ids", "parse_attachment", "on_error"} <= callbacks
    assert not [name for name in callbacks if is_generator_with_return_value(getattr(BoardsSpider, name))]
