"""The shape of a pipeline that writes one record when the spider closes: items pass through, ``record(spider,
reason)`` runs on ``spider_closed``. Not a pipeline of its own (none is declared for it in ``crawlers/settings.py``)."""

from __future__ import annotations

from scrapy import signals


class RecordedOnClose:
    def __init__(self, crawler):
        self.crawler = crawler
        crawler.signals.connect(self.record, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        return item

    def record(self, spider=None, reason: str = "finished") -> None:
        raise NotImplementedError
