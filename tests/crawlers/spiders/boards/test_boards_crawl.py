"""The board crawl for real: ``python -m crawlers.run boards`` (its own process, as Dagster runs it) against a
scale-mode mirror into a fresh PostgreSQL — the real Kadaň OFN feed, the HTML boards of the maintained list (one
rendered by Debian's Chromium through scrapy-playwright), and generated boards whose attachments are the real
sample PDFs; then a re-run that finds everything unchanged while fetching a bounded number of attachments."""

from __future__ import annotations

import json
from datetime import date

import psycopg
import pytest

from assets.boards.register_read import read_register
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from mendel.core.rawstore import RawStore
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, documents, only

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
KADAN_ATTACHMENTS = {d["url"] for n in KADAN["informace"] for d in n.get("dokument", [])}
BLESNO_PDFS = {p.read_bytes() for p in (SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf")}
FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}  # politeness delays are the benchmark's business, not the tests'


def collapsed(text: str) -> str:
    """What a page shows of a text: its whitespace collapsed."""
    return " ".join(text.split())


def links(database_url: str) -> dict[str, list[tuple[str, str]]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT notice_doc_id, attachment_doc_id, name FROM notice_attachments ORDER BY notice_doc_id, position"
        ).fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for notice, attachment, name in rows:
        out.setdefault(notice, []).append((attachment, name))
    return out


@pytest.mark.e2e
@pytest.mark.browser
def test_boards_crawled_ofn_html_and_javascript_then_unchanged(tmp_path, fresh_db, monkeypatch):
    # The first JavaScript board page to be asked for answers too late: Chromium's request times out (the crawl's
    # download timeout bounds rendered requests too) and is retried like any other timeout.
    stall = [{"kind": "slow", "path": "/uredni-deska/", "times": 1, "seconds": 12}]
    with MirrorThread(SAMPLE_CORPUS, scale=20, faults=stall) as scaled:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, scaled.base_url)
        generated = read_register(
            Settings(
                profile="demo",
                mirror_url=scaled.base_url,
                html_boards=f"{scaled.base_url}/mirror/scale/html-boards.json",
            )
        )
        assert len(generated) == 20 and sum(b.javascript for b in generated) == 2
        chosen = [b for b in generated if b.javascript] + [b for b in generated if not b.javascript][:2]
        kadan = [
            Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912"),
            *(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.kind == "html"),
        ]
        boards_file = write_boards_file(kadan + chosen, tmp_path / "boards.json")
        first = run(
            "boards",
            "b-1",
            MENDEL_BOARDS_FILE=str(boards_file),
            MENDEL_DOWNLOAD_TIMEOUT="8",
            MENDEL_RETRY_BACKOFF="0.5",
            **FAST,
        )
        stalled = list(scaled.server.faults.hits)
        api_requests = [p for _, p, _ in scaled.request_log if p.endswith("/api/informace.json")]

        without_js = [b for b in kadan + chosen if not b.javascript]
        again = run(
            "boards",
            "b-2",
            MENDEL_BOARDS_FILE=str(write_boards_file(without_js, tmp_path / "again.json")),
            MENDEL_BOARD_MAX_ATTACHMENTS="1",
            **FAST,
        )
        scale = scaled.server.scale

    by_host = {b.host: b for b in scale.boards}
    generated_notices = {
        n["url"] if by_host[b.host].javascript else n["iri"]: n
        for b in chosen
        for n in scale.content(by_host[b.host].index)[0]
    }
    generated_files = {
        d["url"]: scale.attachment(by_host[b.host], d["url"].rsplit("/", 1)[-1][:-4])
        for b in chosen
        for n in scale.content(by_host[b.host].index)[0]
        for d in n["dokument"]
    }
    kadan_notices = len(KADAN["informace"])
    # Kadaň: the feed's notices (ids = their IRIs); the same notices on the two HTML pages (read after the feed of
    # their publisher) are those documents, not new ones; the feed's attachments (not in the corpus: 404 →
    # quarantined, each asked for once); the generated boards: every notice and every attachment.
    only(
        first,
        stored=kadan_notices + len(generated_notices) + len(generated_files),
        unchanged=2 * kadan_notices,
        quarantined=len(KADAN_ATTACHMENTS),
    )
    assert first["boards_notices_from_feed"] == 2 * kadan_notices
    assert (first["boards_ofn"], first["boards_html"], first["boards_javascript"]) == (3, 1, 3)
    # Chromium rendered the three JavaScript boards and the stalled one again (more when a cold Chromium times out
    # once more and retries; each board's script still ran once, below).
    assert stalled == [1] and first["playwright_pages"] >= 4
    assert len(api_requests) == 3  # each JavaScript board's notices were fetched by its own script

    docs = documents(fresh_db, "boards")
    store = RawStore(tmp_path / "raw")
    for notice in KADAN["informace"]:  # one document per notice, the feed's
        assert docs[notice["iri"]]["title"] == notice["název"]["cs"]
        assert json.loads(store.get(docs[notice["iri"]]["sha256"]))["iri"] == notice["iri"]
        assert [d for d in docs.values() if d["url"] == notice["url"]] == [docs[notice["iri"]]]
    for doc_id, notice in generated_notices.items():
        assert collapsed(docs[doc_id]["title"]) == collapsed(notice["název"]["cs"])
        assert docs[doc_id]["published"] == date.fromisoformat(notice["vyvěšení"]["datum"])
    for url, pdf in generated_files.items():
        doc = docs[url]  # an attachment's id is its published URL, whatever port the mirror ran on
        assert doc["doc_type"] == "notice_attachment" and doc["content_type"] == "application/pdf"
        assert store.get(doc["sha256"]) == pdf.read_bytes() and pdf.read_bytes() in BLESNO_PDFS

    linked = links(fresh_db)
    for notice in KADAN["informace"]:
        expected = [(d["url"], d["název"]["cs"]) for d in notice.get("dokument", [])]
        assert linked.get(notice["iri"], []) == expected
        assert notice["url"] not in linked
    for doc_id, notice in generated_notices.items():
        assert [a for a, _ in linked.get(doc_id, [])] == [d["url"] for d in notice["dokument"]]

    # Re-run without the JavaScript boards, at most one attachment fetched per board: nothing new is stored,
    # the attachments over the limit are counted, stay linked and are not withdrawn.
    boards_again = [b for b in chosen if not b.javascript]
    fetched_again = sum(1 for b in boards_again if scale.content(by_host[b.host].index)[1])
    # Kadaň's feed fetches one attachment; its static page only confirms the feed's notices.
    only(
        again,
        unchanged=2 * kadan_notices
        + sum(len(scale.content(by_host[b.host].index)[0]) for b in boards_again)
        + fetched_again,
        quarantined=1,
    )
    assert (
        again["attachments_over_limit"]
        == sum(len(scale.content(by_host[b.host].index)[1]) for b in boards_again)
        - fetched_again
        + len(KADAN_ATTACHMENTS)
        - 1
    )
    assert links(fresh_db) == linked and again["withdrawn"] == 0
