"""Keep Scrapy's Public Suffix List lookups offline.

Scrapy's cookie middleware (``scrapy.downloadermiddlewares.cookies``) builds a ``tldextract.TLDExtract`` when it is
imported and, on its first lookup, that extractor downloads the Public Suffix List from publicsuffix.org and caches
it under ``~/.cache/python-tldextract``; offline it logs a warning and falls back to the snapshot bundled in the
tldextract package. Nothing may download at run time, so every crawl process uses that bundled snapshot directly,
through tldextract's own environment knobs (``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` needs tldextract >= 5.4):

- ``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` empty: no URL to fetch, so the snapshot is used, with no warning;
- ``TLDEXTRACT_CACHE`` empty: no disk cache (parsing the snapshot takes ~60 ms once per process), so nothing is
  written to the user's home.

The cache directory is fixed when tldextract is imported and the URLs when Scrapy's extractor is built (when its
cookie middleware module is imported), so this runs from ``crawlers/__init__.py``: ``python -m crawlers.run``
imports the package before anything imports Scrapy's middlewares. Being environment variables, they also reach
any child process a crawl starts. A supported knob rather than patching Scrapy's private ``_split_domain``.
"""

import os

SUFFIX_LIST_URLS_ENV = "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"
CACHE_DIR_ENV = "TLDEXTRACT_CACHE"


def use_bundled_public_suffix_list() -> None:
    """Point tldextract at its bundled snapshot, no fetch and no cache; call before tldextract is imported."""
    os.environ[SUFFIX_LIST_URLS_ENV] = ""
    os.environ[CACHE_DIR_ENV] = ""
