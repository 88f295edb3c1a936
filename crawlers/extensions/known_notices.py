"""What the board crawl reads before it starts: the boards the register table names (when no boards file says which),
the stored notices with the listing that owns each (one notice is
one document, whoever lists it), the attachments earlier runs deferred with their links, and — when it revalidates
only after a while — what each listing held when last read and the URLs whose last try failed."""

from __future__ import annotations

from crawlers.extensions.state_loader import KnownStateLoader
from mendel.crawl import known as crawl_known
from mendel.crawl.boards.notice_links import deferred_attachment_links
from mendel.crawl.boards.register import registered_boards


class KnownNoticesExtension(KnownStateLoader):
    def load(self, conn, spider, known) -> None:
        if not getattr(spider, "boards_file", ""):
            known.boards = registered_boards(conn)
        known.notices = conn.execute(
            "SELECT url, doc_id, listing, status FROM documents"
            " WHERE doc_type = 'notice' AND url IS NOT NULL ORDER BY first_seen, doc_id"
        ).fetchall()
        known.deferred = crawl_known.known_deferred(conn, spider.source)
        if known.deferred:
            known.deferred_links = deferred_attachment_links(conn)
        if getattr(spider, "revalidate_after", None):
            known.listing_documents = crawl_known.source_listing_documents(conn, spider.source)
            known.quarantined = crawl_known.open_crawl_quarantine(conn, spider.source)
