"""The board crawl's request budget per host and run (spider middleware): listings always go, attachments take what
is left, and one over the budget is deferred to the next run, which asks for it first."""

from __future__ import annotations

from collections import Counter

from scrapy import Request

from crawlers.host_pacing import url_host
from crawlers.items import DeferredAttachment, ListingBudget
from mendel.crawl.crawlstate import DEFERRED


class HostBudgetMiddleware:
    """No host gets more than the spider's ``host_budget`` requests in one run, counted by the host that published
    the URL. A host's robots.txt and its listings (feed, board page — a rendered one counts its page and its data —,
    article index) are counted first: the spider announces them before anything else
    (:class:`crawlers.items.ListingBudget`). Attachments take what is left, each once in a run and at most
    ``max_attachments`` per board read; one over the budget becomes a :class:`crawlers.items.DeferredAttachment`. A
    URL held back or not due costs no request and is never deferred.

    Requests say how they count in their meta: ``mendel_budget`` is ``attachment`` (with ``mendel_board``, the
    listing that names it), ``carried`` (an attachment an earlier run deferred), ``listing`` (counted, never
    deferred) or ``file`` (counted unless not due, never deferred); ``mendel_published`` is the URL whose host is
    counted. Requests without it (the announced listings) pass as they are.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self.host_requests: Counter = Counter()  # published host → requests counted in this run
        self.seen: set[str] = set()  # attachment URLs requested (or held back, not due) in this run
        self.deferred: set[str] = set()  # attachment URLs put off to the next run by this one
        self.hosts_over_budget: set[str] = set()
        self.per_board: Counter = Counter()  # listing → its attachments let through in this run

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_spider_output(self, response, result, spider=None):
        for element in result:
            element = self.admit(element)
            if element is not None:
                yield element

    async def process_spider_output_async(self, response, result, spider=None):
        async for element in result:
            element = self.admit(element)
            if element is not None:
                yield element

    async def process_start(self, start):
        async for element in start:
            element = self.admit(element)
            if element is not None:
                yield element

    # ---------------------------------------------------------------- the count

    def host(self, published_url: str) -> str:
        """The host a request counts against: the one that published the URL, or its shared hosting provider."""
        counted_as = getattr(self.crawler.spider, "politeness_host", None)
        return counted_as(published_url) if counted_as is not None else url_host(published_url)

    def count(self, published_url: str, requests: int = 1) -> None:
        """Count requests to the host that published ``published_url`` (its robots.txt too, on the first)."""
        host = self.host(published_url)
        self.host_requests[host] += requests + (0 if host in self.host_requests else 1)

    def within_budget(self, published_url: str) -> bool:
        """Whether one more request to the URL's host fits this run's budget (counted when it does)."""
        budget, host = self.crawler.spider.host_budget, self.host(published_url)
        if budget is not None and self.host_requests[host] + (host not in self.host_requests) >= budget:
            return False
        self.count(published_url)
        return True

    # ---------------------------------------------------------------- what goes

    def admit(self, element):
        """The element as it goes on: a listing's announcement counted (and consumed), a request counted, deferred
        (its :class:`DeferredAttachment` instead) or dropped (None: requested already, or over the board's limit)."""
        if isinstance(element, ListingBudget):
            self.count(element.url, element.requests)
            return None
        if not isinstance(element, Request) or "mendel_budget" not in element.meta:
            return element
        meta, url, stats = element.meta, element.url, self.crawler.stats
        kind, published = meta["mendel_budget"], meta.get("mendel_published") or element.url
        spider = self.crawler.spider
        known, after = spider.known, spider.revalidate_after
        if kind == "listing" or (kind == "file" and not known.not_due(url, after)):
            self.count(published)
            return element
        if kind not in ("attachment", "carried"):
            return element
        if url in self.seen or url in self.deferred:
            return None
        board = meta.get("mendel_board")
        if kind == "attachment" and spider.max_attachments is not None:
            if self.per_board[board] >= spider.max_attachments:
                stats.inc_value("mendel/attachments_over_limit")
                return None
        held = known.held_back(url)
        if not held and not (kind == "attachment" and known.not_due(url, after)) and not self.within_budget(published):
            return self.defer(url, published)
        self.seen.add(url)
        if kind == "attachment":
            self.per_board[board] += 1
        elif not held:
            stats.inc_value("mendel/boards/attachments_carried_over")
        return element

    def defer(self, url: str, published_url: str) -> DeferredAttachment:
        """An attachment over its host's budget: not requested in this run; logged deferred, the next run asks
        for it first."""
        self.deferred.add(url)
        host, stats = self.host(published_url), self.crawler.stats
        stats.inc_value("mendel/boards/attachments_deferred")
        if host not in self.hosts_over_budget:
            self.hosts_over_budget.add(host)
            stats.inc_value("mendel/boards/hosts_over_budget")
        stats.inc_value(f"mendel/outcome/{DEFERRED}")
        reason = (
            f"deferred: {host} had its budget of {self.crawler.spider.host_budget} requests in this "
            "run; the next run asks for it first"
        )
        return DeferredAttachment(source=self.crawler.spider.source, url=url, reason=reason[:500])
