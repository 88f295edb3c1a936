"""One notice, one document: the Kadaň notices are published both in the town's OFN feed and on HTML boards (the
mirror's static Kadaň board shows the same notice pages). Whichever listing is read first, each notice is stored
once; the feed's body is the notice's content, an HTML row of a feed's notice only confirms it."""

from __future__ import annotations

import json

import psycopg
import pytest

from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, only

pytestmark = pytest.mark.e2e

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
NOTICES = KADAN["informace"]
ATTACHMENTS = {d["url"] for n in NOTICES for d in n.get("dokument", [])}
BLESNO_PDFS = list((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))
FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}


def notice_documents(database_url: str) -> dict[str, list[tuple[str, str, str]]]:
    """Notice page URL → [(doc_id, source, current sha256)] over every source."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT d.url, d.doc_id, d.source, v.sha256 FROM documents d"
            " JOIN document_versions v ON v.version_id = d.current_version_id"
            " WHERE d.doc_type = 'notice'"
        ).fetchall()
    out: dict[str, list[tuple[str, str, str]]] = {}
    for url, doc_id, source, sha in rows:
        out.setdefault(url, []).append((doc_id, source, sha))
    return out


def test_a_notice_on_a_feed_and_an_html_board_is_one_document(tmp_path, fresh_db, monkeypatch):
    feed = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
    static = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "html:kadan-html")
    store = RawStore(tmp_path / "raw")
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        # The HTML board alone first: its rows are the notices (ids = the notice pages).
        html_only = run(
            "boards", "d-1", MENDEL_BOARDS_FILE=str(write_boards_file([static], tmp_path / "1.json")), **FAST
        )
        only(html_only, stored=len(NOTICES), quarantined=len(ATTACHMENTS))
        before = notice_documents(fresh_db)
        assert {url: [d for d, _, _ in docs] for url, docs in before.items()} == {n["url"]: [n["url"]] for n in NOTICES}

        # Then the feed with the board: the feed's notices are those documents (its body their new version);
        # the board's rows, read after the feed of their publisher, only confirm them.
        both = run(
            "boards", "d-2", MENDEL_BOARDS_FILE=str(write_boards_file([feed, static], tmp_path / "2.json")), **FAST
        )
        only(both, stored=len(NOTICES), unchanged=len(NOTICES), quarantined=len(ATTACHMENTS))
        assert both["boards_notices_from_feed"] == len(NOTICES)
        after = notice_documents(fresh_db)
        assert set(after) == {n["url"] for n in NOTICES}
        for notice in NOTICES:
            [(doc_id, _, sha)] = after[notice["url"]]
            assert doc_id == notice["url"] and json.loads(store.get(sha))["iri"] == notice["iri"]

        # The feed again with obec Blešno's site: nothing new of the feed, still one document per notice.
        blesno = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")
        again = run(
            "boards", "d-3", MENDEL_BOARDS_FILE=str(write_boards_file([feed, blesno], tmp_path / "3.json")), **FAST
        )
        only(again, stored=len(BLESNO_PDFS), unchanged=len(NOTICES), quarantined=len(ATTACHMENTS))
        assert notice_documents(fresh_db) == after


def test_an_html_board_waiting_for_its_publishers_feed_is_crawled_when_the_feed_fails(tmp_path, fresh_db, monkeypatch):
    broken = Board(
        key="http://www.mesto-kadan.cz/neni-feed.json",
        kind="ofn",
        url="http://www.mesto-kadan.cz/neni-feed.json",
        publisher_ico="00261912",
    )
    static = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "html:kadan-html")
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        counts = run(
            "boards", "w-1", MENDEL_BOARDS_FILE=str(write_boards_file([broken, static], tmp_path / "w.json")), **FAST
        )
    # The feed answers 404 (quarantined); the board waited for it, then was read all the same.
    only(counts, stored=len(NOTICES), quarantined=1 + len(ATTACHMENTS))
    assert counts["listing_failed"] == 1 and counts["boards_html"] == 1
