"""Every discovered URL ends in one logged outcome, even when a callback raises or a request has no errback
(spider middleware): a request without an errback gets the spider's listing errback, and a callback that raises
yields the quarantine of the URL it was parsing instead of vanishing into Scrapy's log."""

from __future__ import annotations

from scrapy import Request
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware


class OutcomeGuardMiddleware(BaseSpiderMiddleware):
    def get_processed_request(self, request: Request, response) -> Request:
        spider = self.crawler.spider
        if request.errback is None and hasattr(spider, "on_listing_error"):
            return request.replace(errback=spider.on_listing_error)
        return request

    def process_spider_exception(self, response, exception, spider=None):
        spider = self.crawler.spider
        if not hasattr(spider, "on_callback_error"):
            return None
        return list(spider.on_callback_error(response, exception))
