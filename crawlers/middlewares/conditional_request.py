"""Conditional requests (downloader middleware): a document request carries the validators its URL answered with
last time (``If-None-Match`` / ``If-Modified-Since``), so an unchanged document answers 304."""

from __future__ import annotations


class ConditionalRequestMiddleware:
    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_request(self, request, spider=None):
        spider = spider if spider is not None else self.crawler.spider
        known = getattr(spider, "known", None)
        if known is None or not request.meta.get("mendel_document") or request.meta.get("redirect_urls"):
            return None  # a redirect keeps the validators of the URL it was asked as
        etag, last_modified = known.validators.get(request.url, (None, None))
        if etag:
            request.headers.setdefault("If-None-Match", etag)
        if last_modified:
            request.headers.setdefault("If-Modified-Since", last_modified)
        return None
