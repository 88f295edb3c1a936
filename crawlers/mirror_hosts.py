"""The local mirror's made-up board hosts (``{name}.mirror.test``) for crawls in the demo profile.

Each mirror board has a host name of its own, so Scrapy's per-domain politeness (download slots, delays,
robots.txt) treats every board as the separate site a real municipality's board is. Such names exist nowhere
(RFC 2606 reserves ``.test``), so in the demo profile:

- Scrapy resolves them to the mirror with :class:`MirrorHostsResolver` (``TWISTED_DNS_RESOLVER``, set by
  ``crawlers.run`` outside production); every other name is resolved as usual;
- Chromium (scrapy-playwright) gets the same mapping with ``--host-resolver-rules``
  (:data:`CHROMIUM_HOST_RULE`);
- URLs keep their host name and only take the mirror's port (:func:`fetch_url`), so the URL a board publishes —
  and the document id made from it — does not depend on the port a mirror happens to run on.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

from crawlers.spiders.base import rebase_url
from mendel.crawl.boards.register import MIRROR_HOST_SUFFIX

MIRROR_ADDRESS = "127.0.0.1"
CHROMIUM_HOST_RULE = f"--host-resolver-rules=MAP *{MIRROR_HOST_SUFFIX} {MIRROR_ADDRESS}"


def is_mirror_host(host: str | None) -> bool:
    return bool(host) and host.lower().rstrip(".").endswith(MIRROR_HOST_SUFFIX)


class MirrorHostsResolver(CachingThreadedResolver):
    def getHostByName(self, name: str, timeout=()):
        if is_mirror_host(name):
            return defer.succeed(MIRROR_ADDRESS)
        return super().getHostByName(name, timeout)


def fetch_url(url: str, origin: str | None) -> str:
    """Where to fetch ``url`` that a site published, given the mirror's ``origin`` (None in production):
    a mirror host keeps its name and takes the mirror's port; any other absolute URL is re-rooted onto the
    mirror (:func:`crawlers.spiders.base.rebase_url`)."""
    if not origin:
        return url
    parts = urlsplit(url)
    if is_mirror_host(parts.hostname):
        port = urlsplit(origin).port
        netloc = f"{parts.hostname}:{port}" if port else parts.hostname
        return urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return rebase_url(url, origin)
