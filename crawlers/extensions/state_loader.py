"""Reading a crawl's state from the database when its spider opens, into the spider's :class:`~crawlers.
known_state.KnownState`: the shared part of the extensions that do it. A database that can't be read closes the
spider at once with the reason, before anything is requested."""

from __future__ import annotations

import logging

import psycopg
from scrapy import signals
from scrapy.exceptions import CloseSpider

logger = logging.getLogger(__name__)


class KnownStateLoader:
    """Connects to ``spider_opened``; subclasses fill the state in :meth:`load`."""

    def __init__(self, crawler):
        self.crawler = crawler
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def spider_opened(self, spider=None):
        spider = spider or self.crawler.spider
        try:
            with psycopg.connect(self.crawler.settings.get("MENDEL_DATABASE_URL"), autocommit=True) as conn:
                self.load(conn, spider, spider.known)
        except psycopg.Error as exc:
            logger.error("%s: the crawl state could not be read: %s", type(self).__name__, exc)
            return CloseSpider("crawl_state_unreadable")
        return None

    def load(self, conn, spider, known) -> None:
        raise NotImplementedError
