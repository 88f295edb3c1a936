"""The crawl log: each discovered URL's outcome that is not a stored document — a 304, a document not due, a
quarantine with its reason, a URL robots.txt or the host guard disallowed (mendel.crawl.crawlstate.log_outcome); a
304 also marks its document seen. A listing URL that failed on its last try and answers again has its quarantine
resolved. Written on the reactor thread in order, on one connection for the run; in a database outage the outcomes
wait in the spool for the next crawl."""

from __future__ import annotations

import psycopg

from crawlers.database_outage import crawl_outage
from crawlers.items import CrawlOutcome, ListingAnswered
from crawlers.signals import outcome_reached
from mendel.crawl import crawlstate
from mendel.crawl.outage import is_outage


class CrawlLogPipeline:
    def __init__(self, crawler):
        self.crawler = crawler
        self.database_url = crawler.settings.get("MENDEL_DATABASE_URL")
        self.run_id = crawler.settings.get("MENDEL_RUN_ID")
        self.conn: psycopg.Connection | None = None
        crawler.signals.connect(self.log, signal=outcome_reached)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def close_spider(self, spider=None):
        self._close()

    def process_item(self, item, spider=None):
        if isinstance(item, CrawlOutcome):
            self.log(item)
        elif isinstance(item, ListingAnswered):
            self._write(
                lambda conn: crawlstate.resolve_crawl_quarantine(
                    conn, run_id=self.run_id, source=item.source, urls=[item.url]
                )
            )
        return item

    def log(self, outcome: CrawlOutcome) -> None:
        self.crawler.stats.inc_value(f"mendel/outcome/{outcome.outcome}")
        fields = outcome.fields()

        def write(conn) -> None:
            seen = outcome.outcome == "unchanged" and outcome.status == 304
            crawlstate.log_outcome(conn, run_id=self.run_id, source=outcome.source, seen=seen, **fields)

        if not self._write(write):
            crawl_outage(self.crawler).spool_outcome(**fields)

    def _write(self, write) -> bool:
        """``write(conn)`` on the run's connection; False when the database is gone (the crawl is told)."""
        outage = crawl_outage(self.crawler)
        if outage.reason is not None:
            return False
        try:
            if self.conn is None or self.conn.closed:
                self.conn = psycopg.connect(self.database_url, autocommit=True)
            write(self.conn)
            return True
        except psycopg.Error as exc:
            self._close()
            if not is_outage(exc):
                raise
            outage.down(exc)
            return False

    def _close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except psycopg.Error:
                pass
