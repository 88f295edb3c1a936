"""The publication days a day-by-day crawl read in full (crawlers.items.DayRead): when the crawl has finished, each
day's counts recorded and, once it is older than the source's publication lag, the day closed
(mendel.crawl.open_data_days). A crawl cut short (or a database outage) records nothing: its days stay open and the
next crawl reads them again."""

from __future__ import annotations

import logging

import psycopg
from scrapy import signals

from crawlers.items import DayRead
from mendel.crawl import open_data_days
from mendel.crawl.outage import is_outage

logger = logging.getLogger(__name__)


class OpenDataDaysPipeline:
    def __init__(self, crawler):
        self.crawler = crawler
        self.read: list[DayRead] = []
        crawler.signals.connect(self.record, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        if isinstance(item, DayRead):
            self.read.append(item)
        return item

    def record(self, spider=None, reason: str = "finished") -> None:
        if reason != "finished" or not self.read:
            return
        settings = self.crawler.settings
        try:
            with psycopg.connect(settings.get("MENDEL_DATABASE_URL"), autocommit=True) as conn:
                for day in self.read:
                    open_data_days.record_read(
                        conn,
                        source=day.source,
                        day=day.day,
                        pages=day.pages,
                        records=day.records,
                        close=day.close,
                        run_id=settings.get("MENDEL_RUN_ID"),
                    )
        except psycopg.Error as exc:
            if not is_outage(exc):
                raise
            logger.warning("%d days read in full not recorded (database outage): they stay open", len(self.read))
            return
        closed = sum(1 for day in self.read if day.close)
        self.crawler.stats.set_value("mendel/days_closed", closed)
        self.crawler.stats.set_value("mendel/days_read_open", len(self.read) - closed)
