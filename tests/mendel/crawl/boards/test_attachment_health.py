"""A notice's attachments, from the board crawl to a search hit: an attachment that is fetched is extracted, chunked
and grounded to its notice (its hits name the notice, the notice's card lists its attachments); one that is not is
listed all the same and counted by reason from the crawl's records (:mod:`mendel.crawl.boards.attachment_health`).

The board is one of the mirror's scale-mode boards (``mirror/scale.py``: GENERATED notices recombined from real
Kadaň notices, attachments the real Blešno PDFs), crawled with two attachments a board: the rest stay listed,
unfetched."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from fastapi.testclient import TestClient

from assets.boards.attachments import attachment_health
from mendel.core.config import SAMPLE_CORPUS, Settings
from mendel.core.rawstore import RawStore
from mendel.crawl.boards.attachment_health import reason_class
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.register import write_boards_file
from mendel.index import bundle
from mendel.nightly import extract_stage
from mirror.scale import ScaleBoards
from mirror.server import MirrorThread
from serving.ranking.search import Searcher
from serving.web.api import create_app
from serving.web.results import run_search
from tests.support.crawl import crawl_runner
from tests.support.databases import copy_database
from tests.support.index import RecordingEmbedder, run_index

FETCHED = 2  # attachments fetched per board read


@pytest.mark.parametrize(
    "outcome, status, reason, expected",
    [
        ("quarantined", 404, "HTTP 404", "HTTP 404"),
        ("quarantined", 503, "HTTP 503 after 3 retries", "HTTP 503"),
        ("quarantined", 200, "expected a document, got text/html", "expected a document, text/html"),
        ("quarantined", None, "timeout: no complete answer within 60 s after 3 retries", "timeout"),
        ("quarantined", None, "connection failed: ConnectionRefusedError", "connection failed"),
        ("deferred", None, "deferred: www.mvcr.cz had its budget of 200 requests in this run; …", None),
        ("disallowed", None, "robots.txt", "robots.txt"),
    ],
)
def test_reasons_are_grouped_without_their_particulars(outcome, status, reason, expected):
    assert reason_class(outcome, status, reason) == (expected or "deferred: over its host's request budget")


@pytest.fixture(scope="module")
def crawled(tmp_path_factory, pg_server_url, migrated_template):
    home = tmp_path_factory.mktemp("attachments-home")
    home.chmod(0o755)
    url = copy_database(pg_server_url, migrated_template, f"attachments_{uuid.uuid4().hex[:8]}")
    scale = ScaleBoards(SAMPLE_CORPUS, 1)
    (generated,) = scale.boards
    board = Board(key=generated.feed_url, kind="ofn", url=generated.feed_url, publisher_ico=generated.ico)
    notices, _ = scale.content(0)
    with MirrorThread(SAMPLE_CORPUS, scale=1) as mirror, pytest.MonkeyPatch.context() as patch:
        run = crawl_runner(patch, home, url, mirror.base_url)
        counts = run(
            "boards",
            "attachments-1",
            MENDEL_BOARDS_FILE=str(write_boards_file([board], home / "boards.json")),
            MENDEL_BOARD_DOWNLOAD_DELAY="0",
            MENDEL_BOARD_MAX_ATTACHMENTS=str(FETCHED),
        )
        settings = Settings(home=home, profile="demo", mirror_url=mirror.base_url, database_url=url)
        with psycopg.connect(url, autocommit=True) as conn:
            health = attachment_health(conn, settings, "attachments-1")
            embedder = RecordingEmbedder()
            extract_stage.extract_pending(conn, RawStore(home / "raw"))
            run_index(conn, home, embedder)
    documents = bundle.read_documents(bundle.current_bundle(home / "bundles"))
    return {
        "home": home,
        "counts": counts,
        "health": health,
        "notices": notices,
        "documents": {d["doc_id"]: d for d in documents},
        "embedder": embedder,
    }


@pytest.mark.e2e
def test_attachments_are_counted_from_the_crawl_records(crawled):
    linked = sum(len(n["dokument"]) for n in crawled["notices"])
    assert crawled["health"] == {
        "linked": linked,
        "stored": FETCHED,
        "unchanged": 0,
        "failed": 0,
        "deferred": 0,
        "not_requested": linked - FETCHED,  # over the per-board limit: listed, not fetched
        "failed_by_reason": {},
        "deferred_by_reason": {},
    }


@pytest.mark.e2e
def test_a_fetched_attachment_is_grounded_to_its_notice_and_the_notice_lists_them(crawled):
    documents = crawled["documents"]
    first = crawled["notices"][0]
    notice = documents[first["iri"]]
    attachment_url = first["dokument"][0]["url"]
    assert notice["attachments"][0] == {
        "doc_id": attachment_url,
        "name": first["dokument"][0]["název"]["cs"],
        "stored": True,
    }
    attachment = documents[attachment_url]
    assert attachment["doc_type"] == "notice_attachment" and attachment["notice"]["doc_id"] == first["iri"]
    # a notice whose attachments were not fetched lists them, unfetched
    later = next(n for n in crawled["notices"][FETCHED:] if n["dokument"])
    assert [a["stored"] for a in documents[later["iri"]]["attachments"]] == [False] * len(later["dokument"])
    chunks = list(bundle.layer_rows(bundle.current_bundle(crawled["home"] / "bundles"), 3))
    assert any(c["doc_id"] == attachment_url for c in chunks)  # extracted and chunked


@pytest.mark.e2e
def test_attachment_hits_name_their_notice_and_the_notice_card_lists_its_attachments(crawled):
    home, embedder = crawled["home"], crawled["embedder"]
    first = crawled["notices"][0]
    attachment_url = first["dokument"][0]["url"]
    searcher = Searcher.latest(home / "bundles", embedder=embedder)
    # the first attachment is the real Blešno model contract for waste water
    payload, _ = run_search(searcher, "smlouva o odvádění odpadních vod stočné", k=10)
    hit = next(h for h in payload["results"] if h["doc_id"] == attachment_url)
    assert hit["kind"] == "notice_attachment" and hit["notice"]["doc_id"] == first["iri"]
    client = TestClient(create_app(home / "bundles", embedder=embedder, reload_interval=0))
    page = client.get("/", params={"q": first["název"]["cs"]})
    assert page.status_code == 200
    card = page.text.split(f'data-doc="{first["iri"]}"', 1)[1].split("</li>\n", 1)[0]
    assert "Přílohy" in card and first["dokument"][0]["název"]["cs"] in card
