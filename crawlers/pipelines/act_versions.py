"""e-Sbírka's act versions (mendel.law.act_versions): an act's history written to its stored versions, a version
assembled from its fragment pages put in the raw store (canonical JSON) and recorded with its provisions and
references, a version whose pages all answered 304 confirmed; and, when the crawl finished having read the change
feed and every version it named, the feed's position moved on (the spider says which: ``feed_read_in_full``)."""

from __future__ import annotations

from pathlib import Path

import psycopg
from scrapy import signals

from crawlers.items import ActHistory, ActVersion, ActVersionUnchanged
from mendel.core.rawstore import RawStore
from mendel.law import act_versions


class ActVersionPipeline:
    def __init__(self, crawler):
        self.crawler = crawler
        self.database_url = crawler.settings.get("MENDEL_DATABASE_URL")
        self.store = RawStore(Path(crawler.settings.get("MENDEL_RAW_STORE") or "."))
        self.conn: psycopg.Connection | None = None
        crawler.signals.connect(self.take_in_feed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _connection(self) -> psycopg.Connection:
        if self.conn is None or self.conn.closed:
            self.conn = psycopg.connect(self.database_url, autocommit=True)
        return self.conn

    def process_item(self, item, spider=None):
        if isinstance(item, ActHistory):
            act_versions.apply_history(self._connection(), item.doc_id, item.history)
        elif isinstance(item, ActVersionUnchanged):
            act_versions.confirm_unchanged(self._connection(), item.url)
            self.crawler.stats.inc_value("mendel/fragments/unchanged")
        elif isinstance(item, ActVersion):
            self.store.put(
                act_versions.canonical_bytes(item.record),
                meta={
                    "url": item.url,
                    "content_type": "application/json",
                    "source": item.source,
                    "kind": "act_version",
                },
            )
            outcome = act_versions.record_version(
                self._connection(),
                item.record,
                act_versions.sha256(item.record),
                item.page_etags,
                doc_id=item.doc_id,
                published=item.published,
            )
            self.crawler.stats.inc_value(f"mendel/fragments/{outcome}")
        return item

    def close_spider(self, spider=None):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def take_in_feed(self, spider=None, reason: str = "finished") -> None:
        """Move the feed position when the whole feed and every version it named were read."""
        taken = (spider or self.crawler.spider).feed_read_in_full(reason)
        if taken is not None:
            feed, latest = taken
            with psycopg.connect(self.database_url, autocommit=True) as conn:
                act_versions.advance_feed(conn, latest, feed)
