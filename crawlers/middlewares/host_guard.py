"""Where production crawls may go (downloader middleware; redirects pass through it again).

- Only hosts the spider was configured with (the hosts of the URLs among its arguments: base URL, feeds, board URLs)
  are fetched, with their subdomains.
- Never a private, loopback, link-local, multicast or reserved address, whether written in the URL or reached
  through DNS.

A blocked request raises :class:`OffLimits` (an IgnoreRequest); the spider's errback logs it as 'disallowed' with the
reason. On only when ``MENDEL_HOST_GUARD`` is (the production profile).
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache
from urllib.parse import urlparse

from scrapy.exceptions import IgnoreRequest, NotConfigured


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
