"""What every crawl reads before it asks for anything (mendel.crawl.known): the validators its URLs last answered
with (conditional requests), the URLs gone on their last tries (``MENDEL_GONE_BACKOFF``, on by default) and, for a
spider that revalidates only after a while (``revalidate_after``), when each document last answered."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.crawl import known as crawl_known


class KnownDocumentsExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        known.validators = crawl_known.known_validators(conn, spider.source)
        if self.crawler.settings.getbool("MENDEL_GONE_BACKOFF", True):
            known.gone = crawl_known.known_gone(conn, spider.source)
        if getattr(spider, "revalidate_after", None):
            known.confirmed = crawl_known.last_confirmed(conn, spider.source)
