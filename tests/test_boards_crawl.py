"""The board crawl for real: the register read from the mirror's NKOD and HTML-board list, then ``python -m
crawlers.run boards`` (its own process, as Dagster runs it) into a fresh PostgreSQL — OFN feeds through Scrapy,
JavaScript boards through Debian's Chromium (scrapy-playwright)."""

from __future__ import annotations

import json
from datetime import date

import psycopg
import pytest

from mendel.boards import load_registry, write_boards_file
from mendel.config import KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from mendel.mirror.server import MirrorThread
from mendel.rawstore import RawStore
from tests.crawl_support import crawl_runner, documents, only

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
KADAN_ATTACHMENTS = {d["url"] for n in KADAN["informace"] for d in n.get("dokument", [])}
BLESNO_PDFS = {p.read_bytes() for p in (SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf")}
FAST = {"MENDEL_BOARD_DOWNLOAD_DELAY": "0"}  # politeness delays are the benchmark's business, not the tests'


def links(database_url: str) -> dict[str, list[tuple[str, str]]]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT notice_doc_id, attachment_doc_id, name FROM notice_attachments"
                            " ORDER BY notice_doc_id, position").fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for notice, attachment, name in rows:
        out.setdefault(notice, []).append((attachment, name))
    return out


def test_registry_boards_crawled_ofn_static_and_javascript(tmp_path, fresh_db, mirror, monkeypatch):
    run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
    boards = load_registry(Settings(profile="demo", mirror_url=mirror.base_url))
    assert {b.key: b.kind for b in boards} == {KADAN_FEED_URL: "ofn", "html:kadan-js": "html",
                                               "html:kadan-html": "html"}
    boards_file = write_boards_file(boards, tmp_path / "boards.json")

    first = run("boards", "b-1", MENDEL_BOARDS_FILE=str(boards_file), **FAST)
    notices = len(KADAN["informace"])
    # The Kadaň feed's notices (ids = notice IRIs), the same notices read off both HTML pages (ids = their pages,
    # shared by the two pages), and the feed's attachments: not in the corpus, 404 → quarantined, asked for once.
    only(first, stored=2 * notices, unchanged=notices, quarantined=len(KADAN_ATTACHMENTS))
    assert (first["boards_ofn"], first["boards_javascript"], first["boards_html"]) == (1, 1, 1)
    assert first["playwright_pages"] == 1  # Chromium rendered the JavaScript board and nothing else

    docs = documents(fresh_db, "boards")
    store = RawStore(tmp_path / "raw")
    for notice in KADAN["informace"]:
        assert docs[notice["iri"]]["title"] == notice["název"]["cs"]
        from_page = docs[notice["url"]]  # what the HTML boards showed, as an OFN notice
        body = json.loads(store.get(from_page["sha256"]))
        # A page shows text with its whitespace collapsed: that is what the board said.
        assert body["název"] == {"cs": " ".join(notice["název"]["cs"].split())} and from_page["doc_type"] == "notice"
        assert from_page["published"] == date.fromisoformat(notice["vyvěšení"]["datum"])
        assert body.get("číslo_jednací") == notice.get("číslo_jednací")
        assert body["spisová_značka"] == notice["spisová_značka"]
        assert [d["url"] for d in body.get("dokument", [])] == [d["url"] for d in notice.get("dokument", [])]
        assert body.get("relevantní_do", {}).get("datum") == notice["relevantní_do"].get("datum")

    linked = links(fresh_db)
    for notice in KADAN["informace"]:
        expected = [(d["url"], d["název"]["cs"]) for d in notice.get("dokument", [])]
        assert linked.get(notice["iri"], []) == expected
        assert linked.get(notice["url"], []) == [(url, " ".join(name.split())) for url, name in expected]

    again = run("boards", "b-2", MENDEL_BOARDS_FILE=str(boards_file), **FAST)
    print("timings", first["duration_s"], again["duration_s"])
    only(again, unchanged=3 * notices, quarantined=len(KADAN_ATTACHMENTS))


def test_scale_boards_with_real_pdfs_through_chromium(tmp_path, fresh_db, monkeypatch):
    with MirrorThread(SAMPLE_CORPUS, scale=20) as scaled:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, scaled.base_url)
        settings = Settings(profile="demo", mirror_url=scaled.base_url,
                            html_boards=f"{scaled.base_url}/mirror/scale/html-boards.json")
        boards = load_registry(settings)
        assert len(boards) == 20 and sum(b.javascript for b in boards) == 2
        chosen = [b for b in boards if b.javascript] + [b for b in boards if not b.javascript][:2]
        counts = run("boards", "s-1", MENDEL_BOARDS_FILE=str(write_boards_file(chosen, tmp_path / "b.json")), **FAST)
        scale = scaled.server.scale
        api_requests = [p for _, p, _ in scaled.request_log if p.endswith("/api/informace.json")]

    by_host = {b.host: b for b in scale.boards}
    expected_notices = {n["url"] if by_host[b.host].javascript else n["iri"]: n
                        for b in chosen for n in scale.content(by_host[b.host].index)[0]}
    expected_files = {d["url"]: scale.attachment(by_host[b.host], d["url"].rsplit("/", 1)[-1][:-4])
                      for b in chosen for n in scale.content(by_host[b.host].index)[0] for d in n["dokument"]}
    only(counts, stored=len(expected_notices) + len(expected_files))
    assert counts["boards_javascript"] == 2 and counts["boards_ofn"] == 2 and counts["playwright_pages"] == 2
    assert len(api_requests) == 2  # each JavaScript board's notices were fetched by its script, in Chromium

    docs = documents(fresh_db, "boards")
    store = RawStore(tmp_path / "raw")
    for doc_id, notice in expected_notices.items():
        assert docs[doc_id]["title"] == notice["název"]["cs"]
        assert docs[doc_id]["published"] == date.fromisoformat(notice["vyvěšení"]["datum"])
    for url, pdf in expected_files.items():
        doc = docs[url]  # the attachment's id is its published URL, whatever port the mirror ran on
        assert doc["doc_type"] == "notice_attachment" and doc["content_type"] == "application/pdf"
        assert store.get(doc["sha256"]) == pdf.read_bytes() and pdf.read_bytes() in BLESNO_PDFS
    linked = links(fresh_db)
    for doc_id, notice in expected_notices.items():
        assert [a for a, _ in linked.get(doc_id, [])] == [d["url"] for d in notice["dokument"]]


@pytest.mark.parametrize("limit", [1])
def test_attachments_per_board_can_be_bounded(tmp_path, fresh_db, monkeypatch, limit):
    with MirrorThread(SAMPLE_CORPUS, scale=3) as scaled:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, scaled.base_url)
        boards = [b for b in load_registry(Settings(profile="demo", mirror_url=scaled.base_url,
                                                    html_boards=f"{scaled.base_url}/mirror/scale/html-boards.json"))]
        counts = run("boards", "lim", MENDEL_BOARDS_FILE=str(write_boards_file(boards, tmp_path / "b.json")),
                     MENDEL_BOARD_MAX_ATTACHMENTS=str(limit), **FAST)
        scale = scaled.server.scale
    notices = sum(len(scale.content(b.index)[0]) for b in scale.boards)
    files = sum(len(scale.content(b.index)[1]) for b in scale.boards)
    only(counts, stored=notices + limit * len(scale.boards))
    assert counts["attachments_over_limit"] == files - limit * len(scale.boards)
    assert sum(len(v) for v in links(fresh_db).values()) == files  # every attachment stays linked
