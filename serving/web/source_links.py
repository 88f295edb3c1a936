"""A document's address on its source's own site, for the "on the source's site" links.

A demo crawl fetches every source from the local mirror, which serves each real site's URL layout on its own
origin (a loopback address): such an address becomes the same path on the source's production host (the host its
spider starts from, ``mendel.core.sources``). Hosts under ``.mirror.test`` are the mirror's made-up board sites with
no real counterpart known, and a board source's documents come from many hosts: they get no link at all. Any other
address is the source's own.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from mendel.core.sources import SOURCES

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MIRROR_HOST_SUFFIX = ".mirror.test"


def source_url(url: str | None, source: str | None) -> str | None:
    """The address of ``url`` on the real site of ``source``; None when there is none to give."""
    if not url:
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host or host.endswith(MIRROR_HOST_SUFFIX):
        return None
    if host not in LOOPBACK_HOSTS and not host.startswith("127."):
        return url
    entry = SOURCES.get(source or "")
    if entry is None or not entry.hosts or entry.board_partitions:
        return None
    real = urlsplit(next(iter(entry.hosts.values())))  # the host a source's spider starts from
    return urlunsplit((real.scheme, real.netloc, parts.path, parts.query, parts.fragment))
