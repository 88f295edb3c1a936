"""An incremental search-by-date crawl's coverage moved on when the crawl finished with every listing page read
(mendel.crawl.listing_windows). A crawl cut short, a listing page that failed, or a database outage records nothing:
the next night searches from the same day again."""

from __future__ import annotations

import logging

import psycopg

from crawlers.pipelines.on_close import RecordedOnClose
from mendel.crawl import listing_windows
from mendel.crawl.outage import is_outage

logger = logging.getLogger(__name__)


class ListingWindowPipeline(RecordedOnClose):
    def record(self, spider=None, reason: str = "finished") -> None:
        spider = spider or self.crawler.spider
        read = getattr(spider, "listing_window_read", None)  # (date_from, date_to, read_on) once the search began
        if reason != "finished" or read is None or spider.incomplete_listings:
            return
        if self.crawler.stats.get_value("mendel/listing_failed", 0):
            return
        date_from, date_to, read_on = read
        if date_to:  # a closed window (a backfill) never moves the coverage: no connection needed
            return
        settings = self.crawler.settings
        try:
            with psycopg.connect(settings.get("MENDEL_DATABASE_URL"), autocommit=True) as conn:
                moved = listing_windows.record_complete_read(
                    conn,
                    source=spider.source,
                    date_from=date_from,
                    date_to=date_to,
                    read_on=read_on,
                    run_id=settings.get("MENDEL_RUN_ID"),
                )
        except psycopg.Error as exc:
            if not is_outage(exc):
                raise
            logger.warning("%s: the complete listing read was not recorded (database outage)", spider.source)
            return
        if moved:
            self.crawler.stats.set_value("mendel/listing_covered_to", read_on.isoformat())
