"""What a crawl knew when its spider opened, as plain data: read from the database by the crawl's extensions
(crawlers/extensions), consulted by the spider and the middlewares that decide what to request."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone


@dataclass
class KnownState:
    # every crawl (crawlers.extensions.known_documents)
    validators: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # url → (etag, last-modified)
    gone: dict = field(default_factory=dict)  # url → mendel.crawl.known.Gone
    confirmed: dict[str, datetime] = field(default_factory=dict)  # url → when it last answered with its document
    # the board crawl (crawlers.extensions.known_notices)
    boards: list = field(default_factory=list)  # the register table's boards (a run without a boards file)
    notices: list[tuple] = field(default_factory=list)  # (url, doc_id, listing, status) of the stored notices
    deferred: list[str] = field(default_factory=list)  # URLs deferred by earlier runs, the longest waiting first
    deferred_links: dict[str, tuple] = field(default_factory=dict)  # attachment → its link (notice_links)
    listing_documents: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # listing → (doc_id, url)
    quarantined: set[str] = field(default_factory=set)  # URLs whose last try failed
    # e-Sbírka's act versions (crawlers.extensions.known_act_versions)
    fragment_etags: dict[str, str] = field(default_factory=dict)
    fragment_page_counts: dict[str, int] = field(default_factory=dict)
    feed_position: str | None = None
    # a day-by-day source's closed publication days (crawlers.extensions.known_days)
    closed_days: set[str] = field(default_factory=set)
    # an incremental search-by-date crawl's coverage (crawlers.extensions.known_listing_window)
    listing_covered_to: date | None = None
    # a crawl that searches file numbers (NALUS's dockets): file number → when its held decision texts last answered
    # (crawlers.extensions.known_dockets)
    decisions_confirmed: dict[str, datetime] = field(default_factory=dict)

    def held_back(self, url: str) -> bool:
        """A URL gone on its last tries whose backoff has not ended: logged without a request."""
        gone = self.gone.get(url)
        return gone is not None and datetime.now(timezone.utc) < gone.retry_after

    def not_due(self, url: str, revalidate_after: timedelta | None) -> bool:
        """A document that answered within ``revalidate_after``: not asked for in this run."""
        confirmed = self.confirmed.get(url)
        return (
            bool(revalidate_after)
            and confirmed is not None
            and datetime.now(timezone.utc) - confirmed < revalidate_after
        )
