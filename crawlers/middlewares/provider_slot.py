"""A shared hosting provider's customers in one download slot (downloader middleware): every request to a host under
a provider the crawl named (the spider's ``providers``: :func:`mendel.crawl.boards.hosting.shared_providers`) —
robots.txt included — waits its turn in the provider's slot, one at a time, as the pacer paces it
(:mod:`crawlers.host_pacing`). Spiders without providers are left as they are."""

from __future__ import annotations

from crawlers.host_pacing import url_host
from mendel.crawl.boards.hosting import politeness_host


class ProviderSlotMiddleware:
    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_request(self, request, spider=None):
        providers = getattr(self.crawler.spider, "providers", None)
        if providers and "download_slot" not in request.meta:
            host = url_host(request.url)
            provider = politeness_host(host, providers)
            if provider != host:
                request.meta["download_slot"] = provider
        return None
