"""What every kind of board shares in the board crawl: its boards and arguments, where a URL a site published is
fetched, who owns a notice (one notice, one document), and a notice's attachments."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from scrapy.exceptions import DontCloseSpider
from scrapy.utils.misc import build_from_crawler, load_object

from crawlers.host_pacing import crawler_pacer, url_host
from crawlers.items import FetchedDocument
from crawlers.middlewares.host_guard import host_allowed
from crawlers.spiders.base import MendelSpider, media_type, response_header
from crawlers.spiders.boards.notices import sniff_document_type
from mendel.crawl.boards.board import BOARD_SOURCE, Board
from mendel.crawl.boards.hosting import politeness_host, shared_providers


def _number(value) -> int | None:
    return int(value) if str(value or "").strip() else None


class BoardCrawl(MendelSpider):
    """The board crawl's shared part.

    - **One notice, one document**: a notice document belongs to the listing that stored it (``documents.listing``,
      while active). A feed takes a notice over from an HTML board; an HTML row of a notice another listing owns
      only confirms it, in this run or any later one. A board owns a notice only once its owner, read in full, no
      longer lists it (withdrawn); then a change the board shows is new.
    - **Attachments**: every attachment (``dokument[].url``) of a notice is requested as a document of its own,
      linked to its notice (:class:`crawlers.items.NoticeLinks`: all of a notice's attachments in order, whether or
      not each could be fetched); each passes the host's budget (:mod:`crawlers.middlewares.host_budget`), and the
      attachments earlier runs deferred are asked for first.

    Arguments: ``boards_file`` (a JSON list of boards, :func:`mendel.crawl.boards.register.write_boards_file`;
    without it the boards the register table names), ``max_attachments`` (per board read; the rest stay listed and
    linked, unfetched and not deferred), ``host_budget`` (requests per host and run), ``revalidate_days`` (a
    document that answered within it is not asked for again: logged unchanged, the reason saying when). A URL is
    fetched as published unless the profile names a rewriter (``MENDEL_URL_REWRITER``: the demo's mirror).
    """

    source = BOARD_SOURCE

    def __init__(
        self,
        boards_file: str = "",
        max_attachments: str = "",
        host_budget: str = "",
        revalidate_days: str = "",
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.boards_file = boards_file or ""
        # Attachments fetched per board; None = all. Those over the limit stay listed and linked, unfetched.
        self.max_attachments = _number(max_attachments)
        # Requests per host in this run; None = no budget.
        budget = _number(host_budget)
        self.host_budget = budget if budget and budget > 0 else None
        days = _number(revalidate_days) or 0
        self.revalidate_after = timedelta(days=days) if days > 0 else None
        self.rewriter = None  # where published URLs are fetched, when not as published (MENDEL_URL_REWRITER)
        self.providers: frozenset[str] = frozenset()  # shared hosting providers among the board hosts
        self.boards: list[Board] = []
        # A notice's own page (its url) → (its document id, whether a feed gave it): one notice is one document,
        # whether a feed or an HTML board names it; and → the listing that owns its document (load_notice_ids).
        self.notice_ids: dict[str, tuple[str, bool]] = {}
        self.notice_owners: dict[str, str] = {}
        self.feed_boards: dict[str, Board] = {}
        self.waiting_for_feed: dict[str, list[Board]] = {}

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        rewriter = crawler.settings.get("MENDEL_URL_REWRITER")
        if rewriter:
            spider.rewriter = build_from_crawler(load_object(rewriter), crawler)
        return spider

    # ---------------------------------------------------------------- where URLs are fetched

    def allow_board_hosts(self, boards) -> None:
        """Production host guard: the board hosts (and the attachment hosts their boards name, added as found: a
        notice's files often live elsewhere — MVČR's on www.mvcr.cz, a town's on its web vendor's host; the guard
        still refuses every non-public address)."""
        self.allowed_hosts = frozenset(self.allowed_hosts | {b.host for b in boards if b.host})

    def share_provider_hosts(self, boards) -> None:
        """Shared hosting providers among the boards' hosts (:func:`mendel.crawl.boards.hosting.shared_providers`):
        each is paced as one host, its requests in one download slot (crawlers.middlewares.provider_slot), its
        requests counted in one budget."""
        extra = tuple(self.settings.getlist("MENDEL_EXTRA_PUBLIC_SUFFIXES"))
        owned = [(b.obec_kod or b.publisher_ico or b.key, b.url) for b in boards if b.url]
        self.providers = shared_providers(owned, extra)
        if self.providers:
            crawler_pacer(self.crawler, self.settings.getfloat("DOWNLOAD_DELAY")).share(self.providers)
            self.crawler.stats.set_value("mendel/boards/shared_hosting_providers", len(self.providers))

    def politeness_host(self, url: str) -> str:
        """The host a request to ``url`` counts against: its shared hosting provider, or its own host."""
        return politeness_host(url_host(url), self.providers)

    def fetch_url(self, url: str) -> str:
        """Where to fetch a URL a site published."""
        return self.rewriter.fetch_url(url) if self.rewriter is not None else url

    def _with_meta(self, url: str, kwargs: dict) -> dict:
        """The rewriter's meta for a request to ``url`` (its download slot, how it is paced)."""
        extra = self.rewriter.request_meta(url) if self.rewriter is not None else {}
        if extra:
            meta = kwargs.setdefault("meta", {})
            for key, value in extra.items():
                if key == "download_slot":
                    meta.setdefault(key, value)
                else:
                    meta[key] = value
        return kwargs

    def listing_request(self, url: str, callback, listing: str | None = None, **kwargs):
        return super().listing_request(url, callback, listing, **self._with_meta(url, kwargs))

    def document_request(self, url: str, callback, **kwargs):
        host = (urlsplit(url).hostname or "").lower()
        if self.allowed_hosts and host and not host_allowed(host, self.allowed_hosts):
            self.allowed_hosts = self.allowed_hosts | {host}  # named by a board this run reads
        return super().document_request(url, callback, **self._with_meta(url, kwargs))

    # ---------------------------------------------------------------- who owns a notice

    def load_notice_ids(self) -> None:
        """The notices already stored (``known.notices``), by their own page, and the listing that owns each: the
        one that last stored it (``documents.listing``), while it is active. A document whose id is not its url
        came from a feed (its IRI); one whose id is its url was read off an HTML board. A feed that took a notice
        over from an HTML board keeps it as the board's id, so the id alone does not tell; its listing does, in
        every later run. A withdrawn notice (its owner, read in full, no longer names it) has no owner: a board
        that shows it takes it."""
        rows = self.known.notices
        for url, doc_id, _, _ in rows:
            known = self.notice_ids.get(url)
            if known is None or (not known[1] and doc_id != url):
                self.notice_ids[url] = (doc_id, doc_id != url)
        for url, doc_id, listing, status in rows:
            known = self.notice_ids.get(url)
            if status == "active" and known is not None and known[0] == doc_id:
                # Stored before documents had a listing: a feed's IRI still tells a feed's notice.
                owner = listing or ("an OFN feed" if known[1] else None)
                if owner:
                    self.notice_owners[url] = owner

    # ---------------------------------------------------------------- boards that are not read, or wait

    def skip_board_without_rules(self, board: Board):
        """An HTML board whose CMS has no rule set (:func:`mendel.crawl.boards.cms_rules.apply_cms_rules`) is not
        fetched; it is logged as quarantined with the reason, so a crawl never skips a board silently. Nothing is
        withdrawn."""
        self.discovered += 1
        self.crawler.stats.inc_value("mendel/boards/without_rules")
        self.crawler.stats.inc_value(f"mendel/boards/without_rules_cms_{board.cms or 'unlisted'}")
        return self.outcome(
            board.url, "quarantined", reason=(board.no_rules or "HTML board not read: it has no extraction rules")[:500]
        )

    def release_waiting_boards(self):
        """Spider idle with HTML boards still waiting (their feed could not be read): crawl them now."""
        waiting = [b for boards in self.waiting_for_feed.values() for b in boards]
        self.waiting_for_feed.clear()
        if waiting:
            for board in waiting:
                self.crawler.engine.crawl(self.html_board_request(board))
            raise DontCloseSpider

    def html_board_request(self, board: Board):
        raise NotImplementedError  # the HTML boards' (crawlers.spiders.boards.html)

    # ---------------------------------------------------------------- attachments

    def attachment_requests(self, doc: dict, listing: str):
        """The requests for a notice's attachments (each listed whether or not it is fetched in this run; the host
        budget decides which go: crawlers.middlewares.host_budget)."""
        for number, attachment in enumerate(doc["attachments"]):
            self.listed(listing, attachment["url"])
            url = self.fetch_url(attachment["url"])
            yield self.document_request(
                url,
                self.parse_attachment,
                meta={"mendel_budget": "attachment", "mendel_board": listing, "mendel_published": attachment["url"]},
                cb_kwargs={"notice": doc, "attachment": attachment, "number": number, "listing": listing},
            )

    def carried_over_requests(self):
        """The attachments earlier runs deferred (``known.deferred``), in the order they were deferred, each with
        what its notice's documents and links say: requested first in this run, within the budget — counted before
        any attachment a listing of this run names; the rest are deferred again."""
        links = self.known.deferred_links
        by_url = {self.fetch_url(published): (published, *link) for published, link in links.items()}
        for url in self.known.deferred:
            link = by_url.get(url)
            if link is None:
                continue  # no notice links it any more: a listing that names it again fetches it as any other
            published, name, position, listing, notice_id, title, citation, day = link
            notice = {
                "doc_id": notice_id,
                "title": title,
                "citation": citation,
                "published": day.isoformat() if day else None,
            }
            yield self.document_request(
                url,
                self.parse_attachment,
                priority=1,
                meta={"mendel_budget": "carried", "mendel_published": published},
                cb_kwargs={
                    "notice": notice,
                    "attachment": {"url": published, "name": name},
                    "number": position,
                    "listing": listing,
                },
            )

    def parse_attachment(self, response, notice: dict, attachment: dict, number: int, listing: str | None = None):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        declared = media_type(response)
        kind = sniff_document_type(response.body, declared)
        if kind is None:
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"expected a document, got {declared or 'unknown type'}",
            )
            return
        name = attachment.get("name")
        title = notice["title"]
        if name:
            title = f"{title} – {name}" if title else name
        yield FetchedDocument(
            source=self.source,
            doc_id=attachment["url"],
            url=response.url,
            body=response.body,
            content_type=kind,
            title=title,
            doc_type="notice_attachment",
            citation=notice["citation"],
            published=notice["published"],
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"notice": notice["doc_id"], "attachment_index": number, "attachment_name": name},
            listing=listing,
        )
