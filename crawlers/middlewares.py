"""Crawler middlewares: where production crawls may go, how failed downloads are retried, and the guarantee
that every discovered URL ends in one logged outcome.

**HostGuardMiddleware** (downloader; redirects pass through it again):

- Only hosts the spider was configured with (the hosts of the URLs among its arguments: base URL, feeds,
  board URLs) are fetched, with their subdomains.
- Never a private, loopback, link-local, multicast or reserved address, whether written in the URL or
  reached through DNS.

A blocked request raises :class:`OffLimits` (an IgnoreRequest); the spider's errback logs it as 'disallowed'
with the reason.

**BackoffRetryMiddleware** (downloader): Scrapy's retries (5xx, 408, 429, timeouts, resets, truncated bodies),
each after a wait that doubles (``MENDEL_RETRY_BACKOFF``), or the server's ``Retry-After``, both capped.

**OutcomeGuardMiddleware** (spider) and **LoggingDupeFilter**: a callback that raises, a request without an
errback, and a redirect that ends on an already fetched URL are logged (quarantined, with the reason) instead of
vanishing into Scrapy's log.
"""

from __future__ import annotations

import email.utils
import ipaddress
import socket
import time
from functools import lru_cache
from urllib.parse import urlparse

from scrapy import Request
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.dupefilters import RFPDupeFilter
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.asyncio import sleep


class OffLimits(IgnoreRequest):
    """The host guard refused a request (outside the allowlist, or a non-public address)."""


def configured_hosts(spider_kwargs: dict) -> frozenset[str]:
    hosts = set()
    for value in spider_kwargs.values():
        for part in str(value).split(","):
            if "://" in part:
                host = urlparse(part.strip()).hostname
                if host:
                    hosts.add(host.lower())
    return frozenset(hosts)


def host_allowed(host: str, allowed: frozenset[str]) -> bool:
    """The host is an allowed host or a subdomain of one: a look-up per label, not a scan of the allowlist (the
    board crawl's holds every board host and is asked for every request)."""
    if host in allowed:
        return True
    labels = host.split(".")
    return any(".".join(labels[i:]) in allowed for i in range(1, len(labels)))


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not (
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved or ip.is_unspecified
    )


@lru_cache(maxsize=4096)
def resolve(host: str) -> tuple[str, ...]:
    try:
        return tuple(sorted({info[4][0] for info in socket.getaddrinfo(host, None)}))
    except socket.gaierror:
        return ()  # unresolvable: the download itself will fail and be logged


class HostGuardMiddleware:
    def __init__(self, resolver=resolve, crawler=None):
        self.resolver = resolver
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("MENDEL_HOST_GUARD"):
            raise NotConfigured
        return cls(crawler=crawler)

    def process_request(self, request, spider=None):
        # Scrapy >= 2.13 no longer passes the spider; without this the allowlist was never consulted.
        spider = spider if spider is not None else getattr(self.crawler, "spider", None)
        host = (urlparse(request.url).hostname or "").lower()
        allowed = getattr(spider, "allowed_hosts", None)
        if not allowed or not host_allowed(host, allowed):  # no allowlist: refuse, never fail open
            raise OffLimits(f"host {host} is outside this source's allowlist")
        try:
            addresses = (str(ipaddress.ip_address(host)),)
        except ValueError:
            addresses = self.resolver(host)
        blocked = [a for a in addresses if not is_public_address(a)]
        if blocked:
            raise OffLimits(f"host {host} resolves to a non-public address {blocked[0]}")
        return None


def retry_after_seconds(value: bytes | str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` header (delta seconds or an HTTP date) in seconds from now; None when absent or bad."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(retry_number: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before retry ``retry_number`` (1, 2, ...): base, 2·base, 4·base ... or the server's
    Retry-After when it asks for longer; never more than ``cap``."""
    delay = base * 2 ** max(0, retry_number - 1)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return max(0.0, min(delay, cap))


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, waiting before each retry instead of re-queueing at once."""

    def __init__(self, settings):
        super().__init__(settings)
        self.backoff = settings.getfloat("MENDEL_RETRY_BACKOFF", 1.0)
        self.backoff_max = settings.getfloat("MENDEL_RETRY_BACKOFF_MAX", 60.0)

    async def _wait(self, retry: Request, retry_after: float | None = None) -> Request:
        delay = backoff_delay(retry.meta.get("retry_times", 1), self.backoff, self.backoff_max, retry_after)
        if delay > 0:
            await sleep(delay)
        return retry

    async def process_response(self, request, response, spider=None):
        result = super().process_response(request, response)
        if isinstance(result, Request):
            return await self._wait(result, retry_after_seconds(response.headers.get(b"Retry-After")))
        return result

    async def process_exception(self, request, exception, spider=None):
        result = super().process_exception(request, exception)
        if isinstance(result, Request):
            return await self._wait(result)
        return result


class OutcomeGuardMiddleware(BaseSpiderMiddleware):
    """Every request gets an errback (a listing's by default), and a callback that raises is logged as the
    quarantine of the URL it was parsing, so no discovered URL is lost without a record."""

    def get_processed_request(self, request: Request, response) -> Request:
        spider = self.crawler.spider
        if request.errback is None and hasattr(spider, "on_listing_error"):
            return request.replace(errback=spider.on_listing_error)
        return request

    def process_spider_exception(self, response, exception, spider=None):
        spider = self.crawler.spider
        if not hasattr(spider, "on_callback_error"):
            return None
        spider.on_callback_error(response, exception)
        return []


class LoggingDupeFilter(RFPDupeFilter):
    """Scrapy's duplicate filter; a redirect it drops (the target was already fetched: a loop, or two listings
    redirecting to one page) is reported to the spider, which logs it."""

    def log(self, request: Request, spider) -> None:
        super().log(request, spider)
        if request.meta.get("redirect_urls") and hasattr(spider, "on_redirect_dropped"):
            spider.on_redirect_dropped(request)
