"""Each crawler pipeline step on its own, against a real database."""

from __future__ import annotations

import hashlib

import psycopg
import pytest

from crawlers.items import FetchedDocument
from crawlers.pipelines.content_hash import ContentHashPipeline
from crawlers.pipelines.document_record import DocumentRecordPipeline
from crawlers.pipelines.raw_store import RawStorePipeline
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl import crawlstate
from mendel.crawl import known as crawl_known

PDF = SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf"


def make_item(body: bytes) -> FetchedDocument:
    return FetchedDocument(
        source="esbirka",
        doc_id="/eli/cz/sb/2024/87",
        url="http://mirror/87.pdf",
        body=body,
        content_type="application/pdf",
        title="Ústavní zákon",
        citation="87/2024 Sb.",
        etag='"abc"',
    )


def test_content_hash():
    body = PDF.read_bytes()
    item = ContentHashPipeline().process_item(make_item(body))
    assert item.sha256 == hashlib.sha256(body).hexdigest()


def test_raw_store_keeps_bytes_once(tmp_path):
    body = PDF.read_bytes()
    step = RawStorePipeline(str(tmp_path))
    first = step.process_item(ContentHashPipeline().process_item(make_item(body)))
    again = step.process_item(ContentHashPipeline().process_item(make_item(body)))
    assert first.raw_path == again.raw_path
    assert open(first.raw_path, "rb").read() == body
    assert len([p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".json"]) == 1


def test_document_record_versions(fresh_db):
    step = DocumentRecordPipeline(fresh_db, run_id="run-1")
    step.open_spider()
    try:
        body = PDF.read_bytes()
        outcomes = [
            step.process_item(ContentHashPipeline().process_item(make_item(b))).outcome
            for b in (body, body, body + b"\n%changed")
        ]
    finally:
        step.close_spider()
    assert outcomes == ["stored", "unchanged", "stored"]
    with psycopg.connect(fresh_db) as conn:
        versions = conn.execute("SELECT version_id FROM document_versions ORDER BY version_id").fetchall()
        current = conn.execute("SELECT current_version_id FROM documents").fetchone()[0]
        assert len(versions) == 2 and current == versions[-1][0]
        assert crawlstate.outcome_counts(conn, "run-1") == {
            "stored": 2,
            "unchanged": 1,
            "quarantined": 0,
            "disallowed": 0,
        }
        assert crawl_known.known_validators(conn, "esbirka") == {"http://mirror/87.pdf": ('"abc"', None)}


def test_a_304_is_logged_and_its_document_marked_seen_in_one_transaction(fresh_db):
    from scrapy.utils.test import get_crawler

    from crawlers.items import CrawlOutcome
    from crawlers.pipelines.crawl_log import CrawlLogPipeline

    step = DocumentRecordPipeline(fresh_db, run_id="run-1")
    step.open_spider()
    try:
        step.process_item(ContentHashPipeline().process_item(make_item(PDF.read_bytes())))
    finally:
        step.close_spider()
    log = CrawlLogPipeline(get_crawler(settings_dict={"MENDEL_DATABASE_URL": fresh_db, "MENDEL_RUN_ID": "run-2"}))
    try:
        log.process_item(CrawlOutcome(source="esbirka", url="http://mirror/87.pdf", outcome="unchanged", status=304))
    finally:
        log.close_spider()
    with psycopg.connect(fresh_db) as conn:
        logged = conn.execute("SELECT xmin::text FROM crawl_log WHERE run_id = 'run-2'").fetchall()
        seen = conn.execute(
            "SELECT xmin::text, last_seen IS NOT NULL FROM documents WHERE doc_id = '/eli/cz/sb/2024/87'"
        )
        seen = seen.fetchone()
    # one commit an outcome: the crawl log row and the document's last_seen written by the same transaction
    assert len(logged) == 1 and seen[1] is True
    assert logged[0][0] == seen[0]


def test_the_crawl_log_writes_outcomes_in_order_a_batch_a_transaction(fresh_db, monkeypatch):
    from scrapy import signals
    from scrapy.utils.test import get_crawler

    from crawlers.items import CrawlOutcome, ListingAnswered
    from crawlers.pipelines import crawl_log

    monkeypatch.setattr(crawl_log, "BATCH", 3)
    monkeypatch.setattr(crawl_log, "BATCH_SECONDS", 3600.0)  # batches by size alone here
    crawler = get_crawler(settings_dict={"MENDEL_DATABASE_URL": fresh_db, "MENDEL_RUN_ID": "run-b"})
    log = crawl_log.CrawlLogPipeline(crawler)

    def held_back(number: int) -> CrawlOutcome:
        return CrawlOutcome(
            source="boards", url=f"http://a.mirror.test/{number}.pdf", outcome="quarantined", reason="HTTP 404"
        )

    def logged() -> list[tuple[str, str]]:
        with psycopg.connect(fresh_db) as conn:
            return conn.execute("SELECT url, xmin::text FROM crawl_log WHERE run_id = 'run-b' ORDER BY id").fetchall()

    try:
        for number in range(4):
            log.process_item(held_back(number))
        with pytest.raises(ValueError, match="needs a reason"):  # refused alone: the batch waiting is kept
            log.process_item(CrawlOutcome(source="boards", url="http://a.mirror.test/x", outcome="quarantined"))
        first = logged()
        assert [url for url, _ in first] == [f"http://a.mirror.test/{n}.pdf" for n in range(3)]  # a full batch
        assert len({xmin for _, xmin in first}) == 1  # in one transaction
        log.process_item(ListingAnswered(source="boards", url="http://a.mirror.test/deska/"))  # another URL's
        assert len(logged()) == 3
        log.process_item(ListingAnswered(source="boards", url="http://a.mirror.test/3.pdf"))  # its outcome first
        assert len(logged()) == 4
        log.process_item(held_back(5))
        crawler.signals.send_catch_log(signals.spider_idle, spider=None)  # idle: nothing waits
        assert len(logged()) == 5
        log.process_item(held_back(4))
    finally:
        log.close_spider()  # closed: nothing waits
    assert [url for url, _ in logged()] == [f"http://a.mirror.test/{n}.pdf" for n in (0, 1, 2, 3, 5, 4)]
