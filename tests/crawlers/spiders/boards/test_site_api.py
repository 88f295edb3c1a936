"""Obec Blešno's article asset lists (the pages naming an article's PDFs) keep the attachments' revalidation rule:
a list that answered within ``revalidate_days`` is not read again — logged like a not-due attachment — and the PDFs
it named stay listed (active, nothing withdrawn); once due (or with ``revalidate_days`` 0) the lists are read again
(crawlers.spiders.boards.BoardsSpider.article_not_due)."""

from __future__ import annotations

import re

import psycopg
import pytest

from mendel.core.config import HTML_BOARDS_FILE, SAMPLE_CORPUS
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, logged, only

pytestmark = pytest.mark.e2e

BLESNO_PDFS = list((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))
ARTICLES = len({p.name.split("__", 1)[0] for p in BLESNO_PDFS})
ASSET_LIST = re.compile(r"^/articles/[^/]+/assets\?type=references$")
PDF = re.compile(r"^/articles/[^/]+/assets/[^/?]+\.pdf$")
FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}


def requested(mirror: MirrorThread, since: int, pattern: re.Pattern) -> list[str]:
    return [path for _, path, _ in mirror.request_log[since:] if pattern.match(path)]


def blesno_documents(database_url: str) -> dict[str, tuple[str, str]]:
    """doc_id → (status, listing) of the Blešno PDFs."""
    with psycopg.connect(database_url) as conn:
        return {
            doc_id: (status, listing)
            for doc_id, status, listing in conn.execute(
                "SELECT doc_id, status, listing FROM documents WHERE doc_id LIKE 'blesno:%'"
            )
        }


def test_article_asset_lists_are_not_read_again_within_the_window(tmp_path, fresh_db, monkeypatch):
    blesno = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")
    env = {"MENDEL_BOARDS_FILE": str(write_boards_file([blesno], tmp_path / "boards.json")), **FAST}
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        first = run("boards", "a-1", **env)
        only(first, stored=len(BLESNO_PDFS))
        assert len(requested(mirror, 0, ASSET_LIST)) == ARTICLES
        stored = blesno_documents(fresh_db)
        assert len(stored) == len(BLESNO_PDFS) and set(stored.values()) == {("active", blesno.url)}

        # The next night, within the window: the article index is read, no asset list and no PDF is asked for.
        before = len(mirror.request_log)
        second = run("boards", "a-2", **env)
        assert requested(mirror, before, ASSET_LIST) == [] and requested(mirror, before, PDF) == []
        assert [path for _, path, _ in mirror.request_log[before:]] == ["/robots.txt", "/articles/ids?prefix="]
        only(second, unchanged=ARTICLES + len(BLESNO_PDFS))
        assert second["boards_article_lists_not_due"] == ARTICLES
        assert (second["withdrawn"], second["reactivated"]) == (0, 0)
        lists = [
            (url, status, reason)
            for url, outcome, status, reason in logged(fresh_db, "a-2")
            if outcome == "unchanged" and "?type=references" in url
        ]
        assert len(lists) == ARTICLES
        assert all(
            status is None and reason.startswith("not due: the article's asset list answered")
            for _, status, reason in lists
        )
        # The PDFs the lists named still count as listed: still active, still the board's.
        assert blesno_documents(fresh_db) == stored

        # With revalidate_days 0 every list is read again (and each PDF asked for, conditionally: 304).
        before = len(mirror.request_log)
        every_night = run("boards", "a-3", **env, MENDEL_BOARD_REVALIDATE_DAYS="0")
        assert len(requested(mirror, before, ASSET_LIST)) == ARTICLES
        assert len(requested(mirror, before, PDF)) == len(BLESNO_PDFS)
        only(every_night, unchanged=len(BLESNO_PDFS))
        assert "boards_article_lists_not_due" not in every_night

        # A week later (the documents last answered 8 days ago): due again under the default window.
        with psycopg.connect(fresh_db, autocommit=True) as conn:
            conn.execute("UPDATE documents SET last_seen = last_seen - interval '8 days'")
        before = len(mirror.request_log)
        due = run("boards", "a-4", **env)
        assert len(requested(mirror, before, ASSET_LIST)) == ARTICLES
        assert len(requested(mirror, before, PDF)) == len(BLESNO_PDFS)
        only(due, unchanged=len(BLESNO_PDFS))
        assert blesno_documents(fresh_db) == stored

        # Answered just now: not due again.
        before = len(mirror.request_log)
        only(run("boards", "a-5", **env), unchanged=ARTICLES + len(BLESNO_PDFS))
        assert requested(mirror, before, ASSET_LIST) == []


def test_an_article_whose_pdf_failed_is_read_again(tmp_path, fresh_db, monkeypatch):
    """A PDF of an article that failed on its last try is no document: its list is read the next night (and the
    PDF asked for again), though the article's other PDFs are not due."""
    blesno = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")
    env = {"MENDEL_BOARDS_FILE": str(write_boards_file([blesno], tmp_path / "boards.json")), **FAST}
    failing = "/articles/kanalizace/assets/kanalizacni-rad.pdf"
    kanalizace = sum(1 for p in BLESNO_PDFS if p.name.startswith("kanalizace__"))
    faults = [{"kind": "status", "status": 503, "path": failing}]
    with MirrorThread(SAMPLE_CORPUS, faults=faults) as mirror:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        only(run("boards", "q-1", **env), stored=len(BLESNO_PDFS) - 1, quarantined=1)
        mirror.server.faults.replace([])
        before = len(mirror.request_log)
        # Only the kanalizace list is read; its other PDFs are not due, the failed one is asked for and answers now.
        second = run("boards", "q-2", **env)
        assert requested(mirror, before, ASSET_LIST) == ["/articles/kanalizace/assets?type=references"]
        assert requested(mirror, before, PDF) == [failing]
        only(second, stored=1, unchanged=ARTICLES - 1 + len(BLESNO_PDFS) - 1)
        assert second["boards_article_lists_not_due"] == ARTICLES - 1
        assert kanalizace > 1
