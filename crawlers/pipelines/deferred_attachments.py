"""Attachments put off to the next run (the board crawl's budget per host), logged ``deferred`` with their reason
(mendel.crawl.crawlstate.log_deferred): in batches, off the reactor thread, in the order they were deferred — the
order the next run asks for them in."""

from __future__ import annotations

from crawlers.background import BackgroundWriter
from crawlers.items import DeferredAttachment
from mendel.crawl import crawlstate


class DeferredAttachmentPipeline:
    batch = 200

    def __init__(self, crawler):
        self.run_id = crawler.settings.get("MENDEL_RUN_ID")
        self.writer = BackgroundWriter(
            crawler.settings.get("MENDEL_DATABASE_URL"), "deferred", crawler.stats, "mendel/boards/links_failed"
        )
        self.rows: list[tuple[str, str]] = []
        self.source: str | None = None

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        if isinstance(item, DeferredAttachment):
            self.source = item.source
            self.rows.append((item.url, item.reason))
            if len(self.rows) >= self.batch:
                self._flush()
        return item

    def _flush(self) -> None:
        rows, self.rows = self.rows, []
        if rows:
            run_id, source = self.run_id, self.source
            self.writer.submit(
                lambda conn: crawlstate.log_deferred(conn, run_id=run_id, source=source, rows=rows),
                f"{len(rows)} deferred attachments",
            )

    def close_spider(self, spider=None):
        self._flush()
        self.writer.close()
