"""What a day-by-day crawl (the lower courts' open data) reads before it starts: the publication days it has closed,
which it does not ask for again (mendel.crawl.open_data_days)."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.crawl import open_data_days


class KnownDaysExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        known.closed_days = open_data_days.closed_days(conn, spider.source)
