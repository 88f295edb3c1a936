"""Downloader middleware guarding where production crawls may go (redirects pass through it again).

- Only hosts the spider was configured with (the hosts of the URLs among its arguments: base URL, feeds,
  board URLs) are fetched, with their subdomains.
- Never a private, loopback, link-local, multicast or reserved address, whether written in the URL or
  reached through DNS.
A blocked request raises IgnoreRequest; the spider's errback logs it as 'disallowed' with the reason.
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache
from urllib.parse import urlparse

from scrapy.exceptions import IgnoreRequest, NotConfigured


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
    return any(host == a or host.endswith("." + a) for a in allowed)


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
                or ip.is_unspecified)


@lru_cache(maxsize=4096)
def resolve(host: str) -> tuple[str, ...]:
    try:
        return tuple(sorted({info[4][0] for info in socket.getaddrinfo(host, None)}))
    except socket.gaierror:
        return ()  # unresolvable: the download itself will fail and be logged


class HostGuardMiddleware:
    def __init__(self, resolver=resolve):
        self.resolver = resolver

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("MENDEL_HOST_GUARD"):
            raise NotConfigured
        return cls()

    def process_request(self, request, spider=None):
        host = (urlparse(request.url).hostname or "").lower()
        allowed = getattr(spider, "allowed_hosts", None)
        if allowed and not host_allowed(host, allowed):
            raise IgnoreRequest(f"host {host} is outside this source's allowlist")
        try:
            addresses = (str(ipaddress.ip_address(host)),)
        except ValueError:
            addresses = self.resolver(host)
        blocked = [a for a in addresses if not is_public_address(a)]
        if blocked:
            raise IgnoreRequest(f"host {host} resolves to a non-public address {blocked[0]}")
        return None
