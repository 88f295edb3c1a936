"""What a crawl that searches file numbers (NALUS's dockets) reads before it starts: when the decision texts held
under each file number last answered (mendel.crawl.known.decisions_confirmed_by_file_number); a file number whose
decision is held and was confirmed recently is not searched again in this run."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.crawl import known as crawl_known


class KnownDocketsExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        if getattr(spider, "dockets", None):
            known.decisions_confirmed = crawl_known.decisions_confirmed_by_file_number(conn, spider.source)
