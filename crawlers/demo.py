"""The demo profile's crawl: every site is the local mirror, and the mirror's made-up board hosts
(``{name}.mirror.test``, each board a site of its own for per-host politeness) resolve to it. Loaded only outside
production: ``crawlers.run`` applies :func:`settings`; nothing in a production crawl refers to this module."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

from crawlers.host_pacing import PACE_HOST, UNPACED, UNPACED_SLOT, url_host
from crawlers.spiders.base import rebase_url

MIRROR_HOST_SUFFIX = ".mirror.test"
MIRROR_ADDRESS = "127.0.0.1"
CHROMIUM_HOST_RULE = f"--host-resolver-rules=MAP *{MIRROR_HOST_SUFFIX} {MIRROR_ADDRESS}"
PACE_PUBLISHED_HOSTS_ENV = "MENDEL_BOARD_PACE_PUBLISHED_HOSTS"


def is_mirror_host(host: str | None) -> bool:
    return bool(host) and host.lower().rstrip(".").endswith(MIRROR_HOST_SUFFIX)


class MirrorHostsResolver(CachingThreadedResolver):
    """Scrapy's resolver, the mirror's board hosts answered with the mirror's address (``TWISTED_DNS_RESOLVER``)."""

    def getHostByName(self, name: str, timeout=()):
        if is_mirror_host(name):
            return defer.succeed(MIRROR_ADDRESS)
        return super().getHostByName(name, timeout)


def fetch_url(url: str, origin: str | None) -> str:
    """Where to fetch ``url`` that a site published, given the mirror's ``origin`` (None: as published)."""
    if not origin:
        return url
    parts = urlsplit(url)
    if is_mirror_host(parts.hostname):
        port = urlsplit(origin).port
        netloc = f"{parts.hostname}:{port}" if port else parts.hostname
        return urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return rebase_url(url, origin)


class MirrorRewriter:
    """Where a URL a site published is fetched (``MENDEL_URL_REWRITER``): a mirror host keeps its name and takes the
    mirror's port — so a board's URLs, and the document ids made from them, do not depend on the port —; any other
    absolute URL is re-rooted onto the mirror's origin. The origin stands in for every real host the boards name, so
    its requests share one unpaced slot — unless ``MENDEL_BOARD_PACE_PUBLISHED_HOSTS`` is set (the crawl-scale
    benchmark): then each is paced as the host that published its URL, as in production."""

    def __init__(self, origin: str, pace_published_hosts: bool = False):
        self.origin = origin.rstrip("/")
        self.origin_host = url_host(self.origin)
        self.pace_published_hosts = pace_published_hosts
        self.published_hosts: dict[str, str] = {}  # re-rooted URL → the host that published it

    @classmethod
    def from_crawler(cls, crawler):
        pace = (os.environ.get(PACE_PUBLISHED_HOSTS_ENV) or "").strip().lower() in ("1", "true", "yes")
        return cls(crawler.settings.get("MENDEL_MIRROR_ORIGIN"), pace)

    def fetch_url(self, url: str) -> str:
        fetched = fetch_url(url, self.origin)
        if self.pace_published_hosts and url_host(fetched) == self.origin_host:
            self.published_hosts[fetched] = url_host(url)
        return fetched

    def request_meta(self, url: str) -> dict:
        """Meta for a request to ``url``: the mirror's origin in its own unpaced slot — or, pacing published hosts,
        in the slot of the host that published it, paced as that host."""
        if url_host(url) != self.origin_host:
            return {}
        published = self.published_hosts.get(url)
        if published:
            return {"download_slot": published, PACE_HOST: published}
        # AutoThrottle would raise the slot's delay again.
        return {"download_slot": UNPACED_SLOT, UNPACED: True, "autothrottle_dont_adjust_delay": True}


def settings(mirror_origin: str) -> dict:
    """The demo profile's crawl settings (at the project's priority)."""
    return {
        # The mirror answers instantly; politeness (robots.txt, concurrency caps) stays on, throttling waits are
        # pointless locally: AutoThrottle never lowers its delay on non-200 answers (304, 404), so a re-run that is
        # mostly 304s would crawl the mirror at a few requests a second.
        "AUTOTHROTTLE_START_DELAY": 0.0,
        "AUTOTHROTTLE_ENABLED": False,
        "TWISTED_DNS_RESOLVER": "crawlers.demo.MirrorHostsResolver",
        "MENDEL_URL_REWRITER": "crawlers.demo.MirrorRewriter",
        "MENDEL_MIRROR_ORIGIN": mirror_origin,
        "MENDEL_CHROMIUM_ARGS": [CHROMIUM_HOST_RULE],
        "MENDEL_EXTRA_PUBLIC_SUFFIXES": [MIRROR_HOST_SUFFIX.lstrip(".")],
    }
