"""Shared hosting providers, counted as one host by the crawl's politeness.

Many municipalities' boards live on a provider's servers, each under a subdomain of its own
(``bavorov.imunis.cz``, ``konice.imunis.cz``): to the provider that is one site, so the crawl paces every request
to such a provider as one host — one request at a time, a delay apart (:mod:`crawlers.host_pacing`). A provider
is told from the boards themselves (:func:`shared_providers`): a registrable domain (the Public Suffix List's, from
tldextract's bundled snapshot: nothing is downloaded) on which two or more hostnames carry boards of two or more
owners. One organisation's own hosts (``opendata-test.mvcr.cz`` and ``www.mvcr.cz``) are not a provider: their
boards are one owner's, or one hostname's (a provider serving many boards under one hostname is one host anyway).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit

import tldextract


@lru_cache(maxsize=4)
def _extractor(extra_suffixes: tuple[str, ...]) -> tldextract.TLDExtract:
    # No list URL and no cache: the snapshot bundled with tldextract, read once, nothing written.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, extra_suffixes=extra_suffixes)


def registrable_domain(host: str, extra_suffixes: tuple[str, ...] = ()) -> str:
    """``bavorov.imunis.cz`` → ``imunis.cz``; a host without a known suffix (an address) stays as it is.
    ``extra_suffixes``: suffixes to treat as public (the demo's ``mirror.test``)."""
    host = host.lower().rstrip(".")
    parts = _extractor(tuple(extra_suffixes))(host)
    return ".".join(p for p in (parts.domain, parts.suffix) if p) if parts.suffix and parts.domain else host


def shared_providers(owned_urls: Iterable[tuple[str, str]], extra_suffixes: tuple[str, ...] = ()) -> frozenset[str]:
    """The registrable domains on which two or more hostnames carry boards of two or more owners; ``owned_urls``:
    (owner, board URL) pairs (an owner: the municipality's code, the publisher's IČO, the board's key)."""
    hosts: dict[str, set[str]] = defaultdict(set)
    owners: dict[str, set[str]] = defaultdict(set)
    for owner, url in owned_urls:
        host = (urlsplit(url).hostname or "").lower()
        if not host:
            continue
        domain = registrable_domain(host, extra_suffixes)
        hosts[domain].add(host)
        owners[domain].add(owner)
    return frozenset(d for d in hosts if len(hosts[d]) > 1 and len(owners[d]) > 1)


def politeness_host(host: str, providers: frozenset[str]) -> str:
    """The host as politeness counts it: its provider when it is one of ``providers`` or under one, else itself."""
    host = host.lower()
    if not providers:
        return host
    labels = host.split(".")
    return next((".".join(labels[i:]) for i in range(len(labels)) if ".".join(labels[i:]) in providers), host)
