"""Across runs, a notice's versions come from the listing that owns it, never from every board that shows it.

Kadaň's notices are in its OFN feed and on HTML boards. The rule (``crawlers/spiders/boards/base.py``): a notice
document belongs to the listing that stored it (``documents.listing`` while the document is active); an OFN feed
takes a notice over from an HTML board; an HTML row of a notice that another listing owns only confirms it —
whether or not that listing is read in the same run. Only when the owner, read in full, no longer lists the notice
(withdrawn) does a board that still shows it own it, and what the board shows is then stored (a change on the
board is a new version).

The board readings differ between runs here because the board's rules are revised (its ``file_mark`` rule is
added to the maintained list's entry later): every row then reads with new bytes, as it does when a board's page
changes its layout.
"""

from __future__ import annotations

import dataclasses
import json

import psycopg
import pytest

from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, only

pytestmark = pytest.mark.e2e

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
NOTICES = KADAN["informace"]
ATTACHMENTS = {d["url"] for n in NOTICES for d in n.get("dokument", [])}
FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}
FEED = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
STATIC = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "html:kadan-html")
# The same board as first configured, before its file-mark rule was added.
STATIC_FIRST_RULES = dataclasses.replace(STATIC, rules={k: v for k, v in STATIC.rules.items() if k != "file_mark"})


def board_crawler(run, tmp_path):
    """Run the board crawl over just these boards."""

    def crawl(run_id: str, *boards: Board) -> dict:
        boards_file = write_boards_file(list(boards), tmp_path / f"{run_id}.json")
        return run("boards", run_id, MENDEL_BOARDS_FILE=str(boards_file), **FAST)

    return crawl


def notices_by_url(database_url: str) -> dict[str, list[dict]]:
    """Notice page URL → its documents: id, owning listing, status, current sha256 and number of versions."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT d.url, d.doc_id, d.listing, d.status, v.sha256,"
            " (SELECT count(*) FROM document_versions x WHERE x.doc_id = d.doc_id)"
            " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
            " WHERE d.doc_type = 'notice'"
        ).fetchall()
    out: dict[str, list[dict]] = {}
    for url, doc_id, listing, status, sha, versions in rows:
        out.setdefault(url, []).append(
            {"doc_id": doc_id, "listing": listing, "status": status, "sha256": sha, "versions": versions}
        )
    return out


def attachment_links(database_url: str) -> dict[str, list[tuple[str, str, str]]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT notice_doc_id, attachment_doc_id, name, board FROM notice_attachments"
            " ORDER BY notice_doc_id, position"
        ).fetchall()
    out: dict[str, list[tuple[str, str, str]]] = {}
    for notice, attachment, name, board in rows:
        out.setdefault(notice, []).append((attachment, name, board))
    return out


def is_feed_reading(body: bytes, notice: dict) -> bool:
    """The feed's notice object, as published (plus the feed's @context)."""
    stored = json.loads(body)
    return {k: v for k, v in stored.items() if k != "@context"} == notice


def test_a_notice_the_feed_took_over_keeps_the_feeds_version_in_runs_without_the_feed(tmp_path, fresh_db, monkeypatch):
    store = RawStore(tmp_path / "raw")
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        crawl = board_crawler(crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url), tmp_path)

        # Night 1: the HTML board alone; its rows are the notices (ids = the notice pages).
        only(crawl("h-1", STATIC_FIRST_RULES), stored=len(NOTICES), quarantined=len(ATTACHMENTS))
        # Night 2: the feed takes them over (its body their second version); the board's rows only confirm.
        only(crawl("h-2", FEED, STATIC), stored=len(NOTICES), unchanged=len(NOTICES), quarantined=len(ATTACHMENTS))
        taken_over = notices_by_url(fresh_db)
        feed_links = attachment_links(fresh_db)

        # Night 3: the board alone (the feed is down, or not in this run), its rules revised meanwhile: its rows
        # still only confirm the feed's notices — no version, no attachment fetched, owner and links kept.
        html_only = crawl("h-3", STATIC)
        only(html_only, unchanged=len(NOTICES))
        assert html_only["boards_notices_confirmed"] == len(NOTICES)
        assert notices_by_url(fresh_db) == taken_over
        assert attachment_links(fresh_db) == feed_links

        # Night 4: the feed alone again finds everything unchanged, and its reading is still the current one.
        only(crawl("h-4", FEED), unchanged=len(NOTICES), quarantined=len(ATTACHMENTS))
        after = notices_by_url(fresh_db)

    assert after == taken_over and attachment_links(fresh_db) == feed_links
    for notice in NOTICES:
        [doc] = after[notice["url"]]
        assert (doc["doc_id"], doc["versions"], doc["listing"], doc["status"]) == (
            notice["url"],
            2,
            KADAN_FEED_URL,
            "active",
        )
        assert is_feed_reading(store.get(doc["sha256"]), notice)
        assert [(a, n) for a, n, _ in feed_links.get(notice["url"], [])] == [
            (d["url"], d["název"]["cs"]) for d in notice.get("dokument", [])
        ]


def test_a_board_owns_a_notice_only_once_the_feed_no_longer_lists_it(tmp_path, fresh_db, monkeypatch):
    store = RawStore(tmp_path / "raw")
    dropped = NOTICES[:5]  # notices the feed stops listing
    dropped_attachments = {d["url"] for n in dropped for d in n.get("dokument", [])}
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        crawl = board_crawler(crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url), tmp_path)

        # The feed first (ids = the notices' IRIs).
        only(crawl("f-1", FEED), stored=len(NOTICES), quarantined=len(ATTACHMENTS))
        # Then the feed, read in full, no longer names five notices (what its next read records, done directly
        # here: the mirror serves the real feed unchanged).
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            withdrawn, _ = crawlstate.sync_listing(
                conn, source="boards", listing=KADAN_FEED_URL, doc_ids=[n["iri"] for n in NOTICES[len(dropped) :]]
            )
        assert withdrawn == sorted(n["iri"] for n in dropped)

        # The board alone: it still shows the five, owns them now, and what it shows is their new version; its
        # other rows only confirm the feed's notices, though the feed is not read in this run.
        board_owns = crawl("f-2", STATIC)
        only(
            board_owns, stored=len(dropped), unchanged=len(NOTICES) - len(dropped), quarantined=len(dropped_attachments)
        )
        assert board_owns["reactivated"] == len(dropped)
        # The next night with nothing changed stores nothing.
        only(crawl("f-3", STATIC), unchanged=len(NOTICES), quarantined=len(dropped_attachments))
        after = notices_by_url(fresh_db)

    for notice in NOTICES:
        [doc] = after[notice["url"]]
        body = json.loads(store.get(doc["sha256"]))
        assert doc["doc_id"] == notice["iri"] and doc["status"] == "active"
        if notice in dropped:
            assert (doc["versions"], doc["listing"]) == (2, STATIC.url)
            assert "iri" not in body and body["url"] == notice["url"]
            assert body["spisová_značka"] == notice["spisová_značka"]
        else:
            assert (doc["versions"], doc["listing"]) == (1, KADAN_FEED_URL)
            assert is_feed_reading(store.get(doc["sha256"]), notice)
