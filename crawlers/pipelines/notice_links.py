"""Which attachments belong to which notice, as each board read lists them (mendel.crawl.boards.notice_links),
written off the reactor thread."""

from __future__ import annotations

from crawlers.background import BackgroundWriter
from crawlers.items import NoticeLinks
from mendel.crawl.boards.notice_links import record_notice_links


class NoticeLinksPipeline:
    def __init__(self, crawler):
        self.writer = BackgroundWriter(
            crawler.settings.get("MENDEL_DATABASE_URL"), "links", crawler.stats, "mendel/boards/links_failed"
        )

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        if isinstance(item, NoticeLinks):
            listing, links = item.listing, list(item.links)
            self.writer.submit(lambda conn: record_notice_links(conn, listing, links), f"notice links of {listing}")
        return item

    def close_spider(self, spider=None):
        self.writer.close()
