"""Item pipelines, run in order: hash the body, keep it in the raw store, record it in PostgreSQL."""

from __future__ import annotations

import hashlib
from pathlib import Path

import psycopg

from crawlers.items import FetchedDocument
from mendel import crawlstate
from mendel.rawstore import RawStore


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
            meta={"url": item.url, "content_type": item.content_type, "etag": item.etag,
                  "last_modified": item.last_modified, "source": item.source},
        )
        item.raw_path = str(blob.path)
        return item


class DocumentRecordPipeline:
    """Upserts the document and version, and logs the fetch; the body itself stays in the raw store."""

    def __init__(self, database_url: str, run_id: str | None):
        self.database_url = database_url
        self.run_id = run_id
        self.conn: psycopg.Connection | None = None

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("MENDEL_DATABASE_URL"), crawler.settings.get("MENDEL_RUN_ID"))

    def open_spider(self, spider=None):
        self.conn = psycopg.connect(self.database_url, autocommit=True)

    def close_spider(self, spider=None):
        if self.conn is not None:
            self.conn.close()

    def process_item(self, item: FetchedDocument, spider=None) -> FetchedDocument:
        record = crawlstate.record_document(
            self.conn, run_id=self.run_id, source=item.source, doc_id=item.doc_id, url=item.url,
            sha256=item.sha256, byte_size=len(item.body), content_type=item.content_type,
            title=item.title, doc_type=item.doc_type, citation=item.citation, published=item.published,
            http_status=item.http_status, etag=item.etag, last_modified=item.last_modified, listing=item.listing,
        )
        item.outcome = record.outcome
        item.body = b""  # the bytes live in the raw store; don't keep them in memory or feeds
        return item
