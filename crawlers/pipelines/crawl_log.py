"""The crawl log: each discovered URL's outcome that is not a stored document — a 304, a document not due, a
quarantine with its reason, a URL robots.txt or the host guard disallowed (mendel.crawl.crawlstate.log_outcome); a
304 also marks its document seen. A listing URL that failed on its last try and answers again has its quarantine
resolved. Written on the reactor thread in order, on one connection for the run, in batches: up to
:data:`BATCH` outcomes in one transaction, none kept waiting more than :data:`BATCH_SECONDS` while outcomes come, and
every one written when the crawl goes idle or closes (a night's held-back URLs, hundreds of them, were a transaction
each). In a database outage the outcomes wait in the spool for the next crawl."""

from __future__ import annotations

from time import monotonic

import psycopg
from scrapy import signals

from crawlers.database_outage import crawl_outage
from crawlers.items import CrawlOutcome, ListingAnswered
from crawlers.signals import outcome_reached
from mendel.crawl import crawlstate
from mendel.crawl.outage import is_outage

BATCH = 200  # outcomes a transaction
BATCH_SECONDS = 1.0  # the longest an outcome waits for its batch while others come


class CrawlLogPipeline:
    def __init__(self, crawler):
        self.crawler = crawler
        self.database_url = crawler.settings.get("MENDEL_DATABASE_URL")
        self.run_id = crawler.settings.get("MENDEL_RUN_ID")
        self.conn: psycopg.Connection | None = None
        self.pending: list[dict] = []  # outcomes not written yet, in order (their fields, and seen)
        self.pending_since = 0.0
        crawler.signals.connect(self.log, signal=outcome_reached)
        crawler.signals.connect(self.flush, signal=signals.spider_idle)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def close_spider(self, spider=None):
        try:
            self.flush()
        finally:
            self._close()

    def process_item(self, item, spider=None):
        if isinstance(item, CrawlOutcome):
            self.log(item)
        elif isinstance(item, ListingAnswered):
            if any(row["url"] == item.url for row in self.pending):
                self.flush()  # in order: an outcome of that URL logged before is written before
            self._write(
                lambda conn: crawlstate.resolve_crawl_quarantine(
                    conn, run_id=self.run_id, source=item.source, urls=[item.url]
                )
            )
        return item

    def log(self, outcome: CrawlOutcome) -> None:
        crawlstate.check_outcome(outcome.outcome, outcome.reason, outcome.url)  # refused alone, not with its batch
        self.crawler.stats.inc_value(f"mendel/outcome/{outcome.outcome}")
        if not self.pending:
            self.pending_since = monotonic()
        seen = outcome.outcome == "unchanged" and outcome.status == 304
        self.pending.append({"source": outcome.source, **outcome.fields(), "seen": seen})
        if len(self.pending) >= BATCH or monotonic() - self.pending_since >= BATCH_SECONDS:
            self.flush()

    def flush(self, spider=None) -> None:
        """Write the outcomes waiting, in one transaction; in a database outage they go to the spool."""
        rows, self.pending = self.pending, []
        if not rows:
            return
        if not self._write(lambda conn: crawlstate.log_outcomes(conn, run_id=self.run_id, rows=rows)):
            outage = crawl_outage(self.crawler)
            for row in rows:
                outage.spool_outcome(**{k: v for k, v in row.items() if k not in ("source", "seen")})

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
