"""A fetched document recorded: the document upserted, a version when its bytes are new, the fetch in the crawl log
(mendel.crawl.crawlstate.record_document); the bytes themselves are in the raw store already. In a database outage
the record waits in the spool for the next crawl."""

from __future__ import annotations

import psycopg

from crawlers.database_outage import crawl_outage
from crawlers.items import FetchedDocument
from mendel.crawl import crawlstate
from mendel.crawl.outage import is_outage


def record_fields(item: FetchedDocument) -> dict:
    """What :func:`mendel.crawl.crawlstate.record_document` takes of a hashed item, its source aside (the outage
    spool's document entries hold the same)."""
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
    def __init__(self, database_url: str, run_id: str | None, crawler=None):
        self.database_url = database_url
        self.run_id = run_id
        self.crawler = crawler
        self.conn: psycopg.Connection | None = None

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("MENDEL_DATABASE_URL"), crawler.settings.get("MENDEL_RUN_ID"), crawler)

    def open_spider(self, spider=None):
        self.conn = psycopg.connect(self.database_url, autocommit=True)

    def close_spider(self, spider=None):
        if self.conn is not None:
            self.conn.close()

    def process_item(self, item, spider=None):
        if not isinstance(item, FetchedDocument):
            return item
        return self.record(item, self.conn)

    def record(self, item: FetchedDocument, conn) -> FetchedDocument:
        """Record the hashed, stored item on ``conn``; its record goes to the spool in an outage."""
        fields = record_fields(item)
        outage = crawl_outage(self.crawler) if self.crawler is not None else None
        if outage is None or outage.reason is None:
            try:
                item.outcome = crawlstate.record_document(
                    conn, run_id=self.run_id, source=item.source, **fields
                ).outcome
                item.body = b""  # the bytes live in the raw store; don't keep them in memory or feeds
                return item
            except psycopg.Error as exc:
                if not is_outage(exc) or outage is None or outage.spool is None:
                    raise
                outage.report(exc)
        # The body is in the raw store already; its record waits in the spool for the next crawl.
        outage.spool.document(**fields)
        item.outcome = "spooled"
        item.body = b""
        return item
