"""What an incremental search-by-date crawl (the Nejvyšší soud's) reads before it starts: the day up to which its
listing is known to be read in full (mendel.crawl.listing_windows)."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.crawl import listing_windows


class KnownListingWindowExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        known.listing_covered_to = listing_windows.covered_to(conn, spider.source)
