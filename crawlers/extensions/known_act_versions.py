"""What e-Sbírka's crawl reads before it starts: the ETag of every stored version's fragments page, how many pages
each version had, and how far its change feed was taken in (mendel.law.act_versions)."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.law import act_versions


class KnownActVersionsExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        if not getattr(spider, "fragments", False):
            return
        known.fragment_etags = act_versions.page_validators(conn)
        known.fragment_page_counts = act_versions.page_counts(conn)
        known.feed_position = act_versions.feed_position(conn, spider.feed)
