"""Item pipelines, run in order: check the body is a real document of its source, hash it, keep it in the raw store,
record it in PostgreSQL."""

from __future__ import annotations

import hashlib
from pathlib import Path

import psycopg
from scrapy.exceptions import DropItem

from crawlers.items import FetchedDocument
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.content_checks import Candidate, check_document
from mendel.crawl.outage import is_outage

MAX_REASON = 500


def content_problem(item: FetchedDocument) -> str | None:
    """Why the item's body is not a real document of its source (mendel.crawl.content_checks), or None."""
    reason = check_document(
        Candidate(
            source=item.source,
            url=item.url,
            body=item.body,
            content_type=item.content_type or "",
            doc_type=item.doc_type,
            title=item.title,
            citation=item.citation,
            extra=item.extra or {},
        )
    )
    return f"content: {reason}"[:MAX_REASON] if reason else None


def quarantine_item(conn_or_none, run_id: str | None, item: FetchedDocument, reason: str, spider=None) -> None:
    """Log the item's URL as quarantined with the reason (in the outage spool when the database is gone); its body
    is dropped, never stored. ``conn_or_none``: a connection, or a function that opens one."""
    fields = dict(url=item.url, outcome="quarantined", status=item.http_status, reason=reason)
    if not _database_lost(spider):
        try:
            conn = conn_or_none() if callable(conn_or_none) else conn_or_none
            crawlstate.log_outcome(conn, run_id=run_id, source=item.source, **fields)
            item.outcome, item.body = "quarantined", b""
            return
        except psycopg.Error as exc:
            if not is_outage(exc) or spider is None:
                raise
            _report_outage(spider, exc)
    spider.spool_outcome(**fields)
    item.outcome, item.body = "quarantined", b""


def _database_lost(spider) -> bool:
    return spider is not None and getattr(spider, "outage", None) is not None


def _report_outage(spider, exc: BaseException) -> None:
    """Tell the spider (on the reactor thread) that the database is gone."""
    import threading

    if threading.current_thread() is threading.main_thread():
        spider.database_down(exc)
    else:
        from twisted.internet import reactor

        reactor.callFromThread(spider.database_down, exc)


class ContentCheckPipeline:
    """First step: a body that is not what its source publishes (an error page sent with 200, a page cut short
    with a matching Content-Length, a PDF without its end) is quarantined with the reason and goes no further."""

    def __init__(self, database_url: str, run_id: str | None):
        self.database_url = database_url
        self.run_id = run_id

    @classmethod
    def from_crawler(cls, crawler):
        pipeline = cls(crawler.settings.get("MENDEL_DATABASE_URL"), crawler.settings.get("MENDEL_RUN_ID"))
        pipeline.stats, pipeline.crawler = crawler.stats, crawler
        return pipeline

    def process_item(self, item: FetchedDocument, spider=None) -> FetchedDocument:
        reason = content_problem(item)
        if reason is None:
            return item
        spider = getattr(getattr(self, "crawler", None), "spider", None)
        quarantine_item(self._connection, self.run_id, item, reason, spider)
        stats = getattr(self, "stats", None)
        if stats is not None:
            stats.inc_value("mendel/outcome/quarantined")
            stats.inc_value("mendel/content_rejected")
        raise DropItem(f"{item.url}: {reason}")

    def _connection(self) -> psycopg.Connection:
        conn = getattr(self, "_conn", None)
        if conn is None or conn.closed:
            conn = self._conn = psycopg.connect(self.database_url, autocommit=True)
        return conn

    def close_spider(self, spider=None):
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()


class ContentHashPipeline:
    def process_item(self, item: FetchedDocument, spider=None) -> FetchedDocument:
        item.sha256 = hashlib.sha256(item.body).hexdigest()
        return item


class RawStorePipeline:
    def __init__(self, root: str):
        self.store = RawStore(Path(root))

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("MENDEL_RAW_STORE"))

    def process_item(self, item: FetchedDocument, spider=None) -> FetchedDocument:
        blob = self.store.put(
            item.body,
            meta={
                "url": item.url,
                "content_type": item.content_type,
                "etag": item.etag,
                "last_modified": item.last_modified,
                "source": item.source,
            },
        )
        item.raw_path = str(blob.path)
        return item


def record_fields(item: FetchedDocument) -> dict:
    """What :func:`mendel.crawl.crawlstate.record_document` takes of a hashed item, its source aside (the outage spool's
    document entries hold the same)."""
    return dict(
        doc_id=item.doc_id,
        url=item.url,
        sha256=item.sha256,
        byte_size=len(item.body),
        content_type=item.content_type,
        title=item.title,
        doc_type=item.doc_type,
        citation=item.citation,
        published=item.published,
        http_status=item.http_status,
        etag=item.etag,
        last_modified=item.last_modified,
        listing=item.listing,
    )


class DocumentRecordPipeline:
    """Upserts the document and version, and logs the fetch; the body itself stays in the raw store."""

    def __init__(self, database_url: str, run_id: str | None):
        self.database_url = database_url
        self.run_id = run_id
        self.conn: psycopg.Connection | None = None

    @classmethod
    def from_crawler(cls, crawler):
        pipeline = cls(crawler.settings.get("MENDEL_DATABASE_URL"), crawler.settings.get("MENDEL_RUN_ID"))
        pipeline.crawler = crawler
        return pipeline

    def open_spider(self, spider=None):
        self.conn = psycopg.connect(self.database_url, autocommit=True)

    def close_spider(self, spider=None):
        if self.conn is not None:
            self.conn.close()

    def process_item(self, item: FetchedDocument, spider=None) -> FetchedDocument:
        fields = record_fields(item)
        spider = getattr(getattr(self, "crawler", None), "spider", None)
        if not _database_lost(spider):
            try:
                item.outcome = crawlstate.record_document(
                    self.conn, run_id=self.run_id, source=item.source, **fields
                ).outcome
                item.body = b""  # the bytes live in the raw store; don't keep them in memory or feeds
                return item
            except psycopg.Error as exc:
                if not is_outage(exc) or spider is None or spider.spool is None:
                    raise
                _report_outage(spider, exc)
        # The body is in the raw store already; its record waits in the spool for the next crawl.
        spider.spool.document(**fields)
        item.outcome = "spooled"
        item.body = b""  # the bytes live in the raw store; don't keep them in memory or feeds
        return item
