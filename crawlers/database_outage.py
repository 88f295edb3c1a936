"""A crawl's database outage: said once, the crawl stopped, and what could not be written kept in the spool.

One :class:`CrawlOutage` per crawler (:func:`crawl_outage`), shared by the pipelines that write: the first write
that finds PostgreSQL gone calls :meth:`CrawlOutage.down` — the crawl stops (no request is sent to a crawl that
can't record it), every URL still waiting in the scheduler is accounted for as not fetched, and from then on writes
go to the spool (:class:`mendel.crawl.outage.OutageSpool`), which the next crawl writes first.
"""

from __future__ import annotations

import logging
import threading

from mendel.crawl.outage import NOT_FETCHED, OutageSpool, describe

logger = logging.getLogger(__name__)


class CrawlOutage:
    def __init__(self, crawler):
        self.crawler = crawler
        self.reason: str | None = None  # set when PostgreSQL went away
        self._spool: OutageSpool | None = None

    @property
    def spool(self) -> OutageSpool | None:
        """The run's spool (``MENDEL_CRAWL_SPOOL``); None when the crawl has none."""
        directory = self.crawler.settings.get("MENDEL_CRAWL_SPOOL")
        if self._spool is None and directory and self.crawler.spider is not None:
            self._spool = OutageSpool(directory, self.crawler.spider.source, self.crawler.settings.get("MENDEL_RUN_ID"))
        return self._spool

    def spool_outcome(self, **fields) -> None:
        if self.spool is None:
            raise RuntimeError(f"database outage and no MENDEL_CRAWL_SPOOL: outcome lost {fields}")
        self.spool.outcome(**fields)

    def report(self, exc: BaseException) -> None:
        """The database is gone (from any thread): the crawl is told on the reactor thread."""
        if threading.current_thread() is threading.main_thread():
            self.down(exc)
            return
        from twisted.internet import reactor

        reactor.callFromThread(self.down, exc)

    def down(self, exc: BaseException) -> None:
        """Say so once, stop the crawl, and account for every URL still waiting as not fetched."""
        if self.reason is not None:
            return
        self.reason = describe(exc)
        logger.error(
            "database outage: %s; the crawl stops, what it could not write is kept in %s and written by the next crawl",
            self.reason,
            self.spool.path if self.spool else "nowhere",
        )
        stats = self.crawler.stats
        stats.set_value("mendel/database_outage", self.reason)
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None)
        if slot is None or slot.closing is not None:  # already closing (the outage showed when the spider closed)
            return
        while (request := slot.scheduler.next_request()) is not None:
            if request.meta.get("mendel_document"):  # counted as discovered: it needs its outcome
                self.spool_outcome(url=request.url, outcome="quarantined", reason=NOT_FETCHED)
                stats.inc_value("mendel/outcome/quarantined")
        from scrapy.utils.defer import deferred_from_coro

        deferred_from_coro(engine.close_spider_async(reason="database_outage"))


def crawl_outage(crawler) -> CrawlOutage:
    """The crawl's one :class:`CrawlOutage`."""
    outage = getattr(crawler, "_mendel_outage", None)
    if outage is None:
        outage = crawler._mendel_outage = CrawlOutage(crawler)
    return outage
