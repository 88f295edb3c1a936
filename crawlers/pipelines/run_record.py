"""The run's record when the spider closes: the complete listings it read synced — withdrawn documents a listing
names again become active, and a listing read in full withdraws the documents it no longer names
(mendel.crawl.crawlstate.sync_listing), only after a finished crawl — and ``crawl_runs`` with what it discovered
(the reconciliation: mendel.crawl.crawlstate.run_counts). The spider keeps the listings it read
(``spider.listings``, ``spider.incomplete_listings``); after a database outage the record waits in the spool."""

from __future__ import annotations

import logging

import psycopg

from crawlers.database_outage import crawl_outage
from crawlers.pipelines.on_close import RecordedOnClose
from mendel.crawl import crawlstate
from mendel.crawl.outage import is_outage

logger = logging.getLogger(__name__)


class RunRecordPipeline(RecordedOnClose):
    def record(self, spider=None, reason: str = "finished") -> None:
        spider = spider or self.crawler.spider
        run_id = self.crawler.settings.get("MENDEL_RUN_ID")
        outage = crawl_outage(self.crawler)
        if outage.reason is None:
            try:
                self._record(spider, run_id, reason)
                return
            except psycopg.Error as exc:
                if not is_outage(exc):
                    raise
                outage.down(exc)
        # Listings are not synced after an outage (the run was cut short); the run's record waits in the spool.
        if run_id and outage.spool is not None:
            outage.spool.run(
                discovered=spider.discovered,
                incomplete_listings=sorted(spider.incomplete_listings),
                finish_reason="database_outage",
            )

    def _record(self, spider, run_id: str | None, reason: str) -> None:
        withdrawn = reactivated = 0
        stats = self.crawler.stats
        with psycopg.connect(self.crawler.settings.get("MENDEL_DATABASE_URL"), autocommit=True) as conn:
            if reason == "finished":
                for listing, doc_ids in spider.listings.items():
                    # A listing read only in part proves what is there, never what is gone.
                    gone, back = crawlstate.sync_listing(
                        conn,
                        source=spider.source,
                        listing=listing,
                        doc_ids=doc_ids,
                        complete=listing not in spider.incomplete_listings,
                    )
                    withdrawn, reactivated = withdrawn + len(gone), reactivated + len(back)
                    if gone or back:
                        logger.info("listing %s: %d withdrawn, %d active again", listing, len(gone), len(back))
            if run_id:
                crawlstate.record_run(
                    conn,
                    run_id=run_id,
                    source=spider.source,
                    discovered=spider.discovered,
                    withdrawn=withdrawn,
                    reactivated=reactivated,
                    incomplete_listings=sorted(spider.incomplete_listings),
                    finish_reason=reason,
                )
        stats.set_value("mendel/withdrawn", withdrawn)
        stats.set_value("mendel/reactivated", reactivated)
