"""Catalogue boards (NKOD's ``ofn`` and ``export`` boards): the download URL is read whatever it turns out to be
(:func:`crawlers.spiders.boards.exports.read_listing`: the standard's JSON-LD, or a publisher's own JSON, XML or CSV
layout); each notice becomes a document of its own (:func:`crawlers.spiders.boards.notices.notice_document`). An
export notice that lacks what a notice needs is quarantined with its reason. Notices carry no HTTP validators, so a
re-run re-reads the listing and finds them ``unchanged`` by hash. Every listing is complete: what a fully read feed
no longer names (a notice taken down, its attachments) is marked withdrawn, never deleted."""

from __future__ import annotations

from crawlers.items import FetchedDocument, NoticeLinks
from crawlers.spiders.base import media_type
from crawlers.spiders.boards.base import BoardCrawl
from crawlers.spiders.boards.exports import NotABoard, read_listing
from crawlers.spiders.boards.notices import notice_document
from mendel.crawl.boards.board import Board


class CatalogueBoards(BoardCrawl):
    def feed_request(self, board: Board):
        return self.listing_request(
            self.fetch_url(board.url),
            self.parse_feed,
            listing=board.url,
            cb_kwargs={"feed_url": board.url},
            dont_filter=True,
        )

    def feed_notice_id(self, doc: dict) -> str:
        """A feed's notice keeps its IRI — unless an HTML board's row of the same notice page is stored already:
        then that document is the notice (the feed's richer body becomes its next version)."""
        known = self.notice_ids.get(doc["url"])
        doc_id = known[0] if known is not None and not known[1] and doc["url"] != doc["doc_id"] else doc["doc_id"]
        self.notice_ids[doc["url"]] = (doc_id, True)
        return doc_id

    def parse_feed(self, response, feed_url: str):
        try:
            listing = read_listing(response.body, feed_url)
        except NotABoard as exc:
            yield self.reject_listing(
                response, f"not a notice board ({media_type(response) or 'no type'}): {exc}"[:480]
            )
            return
        self.crawler.stats.inc_value(
            "mendel/boards/ofn" if listing.layout == "ofn" else f"mendel/boards/export_{listing.layout}"
        )
        self.listing_read(feed_url)
        feed = listing.feed
        links = []
        for item in listing.items:
            self.discovered += 1
            if item.notice is None:
                yield self.outcome(
                    f"{feed_url}#{item.position}",
                    "quarantined",
                    status=response.status,
                    reason=f"notice {item.position} of the {listing.layout} listing: {item.reason}"[:500],
                )
                continue
            doc = notice_document(feed, item.notice, item.position, feed_url)
            if item.notice_id and not item.notice.get("iri") and not item.notice.get("url"):
                doc["doc_id"] = doc["url"] = item.notice_id
            doc["doc_id"] = self.feed_notice_id(doc)
            self.notice_owners[doc["url"]] = feed_url  # the feed's body is the notice's content
            self.listed(feed_url, doc["doc_id"])
            links.append((doc["doc_id"], [(a["url"], a["name"]) for a in doc["attachments"]]))
            yield FetchedDocument(
                source=self.source,
                doc_id=doc["doc_id"],
                url=doc["url"],
                body=doc["body"],
                content_type="application/ld+json",
                title=doc["title"],
                doc_type="notice",
                citation=doc["citation"],
                published=doc["published"],
                http_status=response.status,
                extra=doc["extra"],
                listing=feed_url,
            )
            yield from self.attachment_requests(doc, feed_url)
        if links:
            yield NoticeLinks(listing=feed_url, links=links)
        yield from self.feed_read(feed_url)

    def feed_read(self, feed_url: str):
        """The HTML boards of the feed's publisher that waited for it, now that no feed of it is unread."""
        board = self.feed_boards.get(feed_url)
        if board is not None and board.publisher_ico and self.feeds_unread[board.publisher_ico] > 0:
            self.feeds_unread[board.publisher_ico] -= 1
            if not self.feeds_unread[board.publisher_ico]:
                for html_board in self.waiting_for_feed.pop(board.publisher_ico, []):
                    yield self.html_board_request(html_board)
