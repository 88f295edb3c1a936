"""Scrapy's duplicate filter, reporting the redirects it drops: a redirect that lands on an already fetched URL (a
loop, or two listings redirecting to one page) would otherwise vanish. The spider says what it means
(``on_redirect_dropped``) and the outcome goes to the crawl log (:data:`crawlers.signals.outcome_reached`)."""

from __future__ import annotations

from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter

from crawlers.signals import outcome_reached


class LoggingDupeFilter(RFPDupeFilter):
    def __init__(self, *args, crawler=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        dupefilter = super().from_crawler(crawler)
        dupefilter.crawler = crawler
        return dupefilter

    def log(self, request: Request, spider) -> None:
        super().log(request, spider)
        if request.meta.get("redirect_urls") and hasattr(spider, "on_redirect_dropped"):
            outcome = spider.on_redirect_dropped(request)
            if self.crawler is not None:
                self.crawler.signals.send_catch_log(outcome_reached, outcome=outcome)
