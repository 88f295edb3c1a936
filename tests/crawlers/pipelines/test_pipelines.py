"""Each crawler pipeline step on its own, against a real database."""

from __future__ import annotations

import hashlib

import psycopg

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
