"""Which document requests go out at all (spider middleware): every document request a spider makes is counted as
discovered; one for a URL gone on its last tries whose backoff has not ended (held back) or for a document that
answered within the spider's ``revalidate_after`` (not due) is not sent — it becomes its logged outcome at once
(quarantined with the same reason, or unchanged with when it answered), with no status."""

from __future__ import annotations

from scrapy import Request


class DocumentDueMiddleware:
    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_spider_output(self, response, result, spider=None):
        for element in result:
            yield self.due(element)

    async def process_spider_output_async(self, response, result, spider=None):
        async for element in result:
            yield self.due(element)

    async def process_start(self, start):
        async for element in start:
            yield self.due(element)

    def due(self, element):
        """The request itself, or the outcome that stands for it."""
        if not isinstance(element, Request) or not element.meta.get("mendel_document"):
            return element
        spider, stats = self.crawler.spider, self.crawler.stats
        stats.inc_value("mendel/discovered")
        known, url = spider.known, element.url
        if known.held_back(url):
            stats.inc_value("mendel/held_back")
            return spider.outcome(url, "quarantined", reason=known.gone[url].reason)
        if known.not_due(url, spider.revalidate_after):
            # Logged unchanged with no status: accounted for, and when it is asked for next is in the reason.
            stats.inc_value("mendel/not_due")
            return spider.outcome(
                url,
                "unchanged",
                reason=(
                    f"not due: answered with this document {known.confirmed[url]:%Y-%m-%d %H:%M} UTC; asked again "
                    f"{spider.revalidate_after.days} days after"
                ),
            )
        return element
