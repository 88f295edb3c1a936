"""The board crawl: municipal notice boards from the register (:mod:`mendel.boards`), each treated as its own site.

- **OFN boards** (from NKOD): the feed is read exactly as the municipal spider reads one (a notice is a
  document, every attachment another, linked in ``notice_attachments``).
- **HTML boards** (the maintained list): the board page is read with the board's rules (CSS or XPath); each
  notice row becomes a notice document in OFN form (``application/ld+json``, the fields the page shows, nothing
  invented) and its attachment links are fetched like a feed's. Boards marked ``javascript: true`` are rendered by
  Debian's Chromium through scrapy-playwright — only those requests; everything else (robots.txt, feeds, static
  pages, attachments) is plain Scrapy.
- **One notice, one document**: a notice document belongs to the listing that stored it (``documents.listing``,
  while active). A feed takes a notice over from an HTML board; an HTML row of a notice another listing owns only
  confirms it, in this run or any later one, so a board never adds a version to a feed's notice. A board owns a
  notice only once its owner, read in full, no longer lists it (withdrawn); then a change the board shows is new.

Politeness per board host: one request at a time, ``MENDEL_BOARD_DOWNLOAD_DELAY`` seconds apart (default 1: one
request a second per domain) — counted from the previous request's start *and* its answer, for every request to the
host: robots.txt, feeds, attachments, and what Chromium fetches for a rendered board (:mod:`crawlers.host_pacing`;
Chromium skips images, fonts and style sheets) —, no random jitter, AutoThrottle on top, robots.txt obeyed (project
settings), hosts taking turns in the scheduler (:mod:`crawlers.host_queue`) so the crawl spreads over many hosts.

Spider arguments: ``boards_file`` — a JSON list of boards (:func:`mendel.boards.write_boards_file`; without it the
whole register is read), ``rebase`` — the mirror's origin in the demo profile, ``max_attachments`` — at most this
many attachments fetched per board (the rest stay listed and linked; default all).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin, urlsplit

import psycopg
from playwright.async_api import Request as PlaywrightRequest
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.exceptions import DontCloseSpider, DownloadTimeoutError
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
from scrapy_playwright.page import PageMethod

from crawlers.board_pipelines import with_threaded_records
from crawlers.host_pacing import crawler_pacer, url_host
from crawlers.items import FetchedDocument
from crawlers.mirror_hosts import CHROMIUM_HOST_RULE
from crawlers.middlewares import host_allowed
from crawlers.spiders.municipal import MunicipalSpider, czech_text, notice_document
from mendel.boards import Board, RegistryError, load_registry, read_boards_file, record_notice_links
from mendel.config import get_settings
from mendel.czech_dates import find_date, iso

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own browser downloads are never used
OFN_CONTEXT = "https://ofn.gov.cz/úřední-desky/2021-07-20/kontexty/úřední-deska.jsonld"
NOTICE_TYPES = ["Digitální objekt", "Informace na úřední desce"]
BOARD_DELAY = float(os.environ.get("MENDEL_BOARD_DOWNLOAD_DELAY") or 1.0)
BOARD_CONCURRENCY = int(os.environ.get("MENDEL_BOARD_CONCURRENCY") or 128)
RENDER_TIMEOUT_MS = 30_000
BROWSER_SLOT = "chromium"  # the download slot of every rendered page
BROWSER_PAGES = 4  # pages Chromium renders at a time
# What Chromium need not fetch to show a board's notices (the page, its scripts and their data are fetched).
BROWSER_BLOCKED = frozenset({"image", "media", "font", "stylesheet", "manifest", "texttrack"})
PACED_HANDLERS = {"http": "crawlers.spiders.boards.PacedHTTPDownloadHandler",
                  "https": "crawlers.spiders.boards.PacedHTTPDownloadHandler"}


def select(selector, rule: str):
    """A rule is CSS (parsel, with ::text / ::attr()) or, prefixed with ``xpath:``, XPath."""
    return selector.xpath(rule[6:]) if rule.startswith("xpath:") else selector.css(rule)


def first_text(selector, rule: str | None) -> str | None:
    if not rule:
        return None
    for value in select(selector, rule).getall():
        text = " ".join(str(value).split())
        if text:
            return text
    return None


def playwright_selector(rule: str) -> str:
    return f"xpath={rule[6:]}" if rule.startswith("xpath:") else rule


def needs_browser(boards_file: str | None) -> bool:
    """Whether a run may meet a JavaScript board: its boards file names one, or it reads the whole register."""
    if not boards_file:
        return True
    try:
        return any(b.javascript for b in read_boards_file(boards_file))
    except (OSError, ValueError, TypeError, RegistryError):
        return True  # the spider itself reports an unreadable file


def html_notice(row, rules: dict, base_url: str) -> dict | None:
    """One notice row of an HTML board → an OFN notice (only what the page shows); None without a title."""
    title = first_text(row, rules["title"])
    if not title:
        return None
    notice: dict = {"typ": list(NOTICE_TYPES)}
    href = first_text(row, rules.get("url"))
    if href:
        notice["url"] = urljoin(base_url, href)
    notice["název"] = {"cs": title}
    for key, rule in (("vyvěšení", "posted"), ("relevantní_do", "until")):
        day = iso(find_date(first_text(row, rules.get(rule))))  # ISO, d. m. yyyy or worded
        if day:
            notice[key] = {"typ": "Časový okamžik", "datum": day}
    for key, rule in (("číslo_jednací", "reference"), ("spisová_značka", "file_mark")):
        value = first_text(row, rules.get(rule))
        if value:
            notice[key] = value
    documents = []
    for link in select(row, rules["attachments"]) if rules.get("attachments") else []:
        url = first_text(link, rules.get("attachment_url") or "xpath:@href")
        if url:
            documents.append({"typ": "Digitální objekt",
                              "název": {"cs": first_text(link, rules.get("attachment_name") or "xpath:normalize-space(.)")
                                        or url.rsplit("/", 1)[-1]},
                              "url": urljoin(base_url, url)})
    if documents:
        notice["dokument"] = documents
    return notice


def html_notice_id(board: Board, notice: dict) -> str:
    """The notice's own page when the board links one; else the board page plus a digest of what identifies it."""
    if isinstance(notice.get("url"), str):
        return notice["url"]
    basis = "|".join(str(x) for x in (czech_text(notice.get("název")), notice.get("vyvěšení"),
                                      notice.get("číslo_jednací"), notice.get("spisová_značka")))
    return f"{board.url}#{hashlib.sha256(basis.encode('utf-8')).hexdigest()[:16]}"


class PacedHTTPDownloadHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP handler, each request in its host's turn (:class:`crawlers.host_pacing.HostPacer`)."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))

    async def download_request(self, request):
        host = url_host(request.url)
        await self.pacer.wait_turn(host)
        try:
            return await super().download_request(request)
        finally:
            self.pacer.answered(host)


class BoundedPlaywrightDownloadHandler(ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright with the crawl's download timeout on every rendered request, and per-host pacing for
    everything — Scrapy's plain requests and every request Chromium makes.

    A page can wedge Chromium (at scale, under load, a navigation that never answers and a page that never closes);
    scrapy-playwright then never returns, and the crawl could not finish. Here a rendered request that takes
    longer than ``download_timeout`` — or that Playwright itself times out — fails as Scrapy's own download timeout:
    retried with backoff like any other timeout, then quarantined with its reason.

    Chromium's requests all pass scrapy-playwright's route handler; its abort hook (``abort_request``) here blocks
    what a board's text does not need (images, fonts, style sheets, media, the favicon) and holds each other
    request — the page itself, its script, the script's data — until its host's turn, so a rendered board is as
    polite as a fetched one.
    """

    def __init__(self, crawler):
        super().__init__(crawler)
        self.pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))
        self.abort_request = self.admit_browser_request
        # host → (Chromium's request to it still unanswered, set when it is answered)
        self._browser_in_flight: dict[str, tuple[PlaywrightRequest, asyncio.Event]] = {}

    async def admit_browser_request(self, browser_request) -> bool:
        """True aborts the request Chromium is about to send; otherwise it goes in its host's turn: after Chromium's
        previous request to the host has its answer, and a delay after that."""
        url = browser_request.url
        if browser_request.resource_type in BROWSER_BLOCKED or urlsplit(url).path == "/favicon.ico":
            return True
        if not url.startswith(("http:", "https:")):
            return False
        host = url_host(url)
        while (pending := self._browser_in_flight.get(host)) is not None:
            try:
                await asyncio.wait_for(pending[1].wait(), timeout=RENDER_TIMEOUT_MS / 1000)
            except asyncio.TimeoutError:  # its answer never came (a page closed meanwhile)
                self.stats.inc_value("mendel/boards/browser_unanswered")
                if self._browser_in_flight.get(host) is pending:
                    del self._browser_in_flight[host]
        self._browser_in_flight[host] = (browser_request, asyncio.Event())
        await self.pacer.wait_turn(host)
        self.stats.inc_value("mendel/boards/browser_requests")
        return False

    def browser_request_answered(self, browser_request) -> None:
        if not browser_request.url.startswith(("http:", "https:")):
            return
        host = url_host(browser_request.url)
        pending = self._browser_in_flight.get(host)
        if pending is not None and (pending[0] is browser_request or pending[0].url == browser_request.url):
            del self._browser_in_flight[host]
            self.pacer.answered(host)
            pending[1].set()

    async def download_request(self, request):
        host = url_host(request.url)
        if not request.meta.get("playwright"):
            await self.pacer.wait_turn(host)
            try:
                return await super().download_request(request)
            finally:
                self.pacer.answered(host)
        try:
            return await self._render(request)
        finally:
            self.pacer.answered(host)
            # The page is done (or given up and closing): a request of it still unanswered holds nobody back.
            pending = self._browser_in_flight.pop(host, None)
            if pending is not None:
                pending[1].set()

    async def _render(self, request):
        # The page is handed to us (playwright_include_page) so that it is closed whatever happens: a page left
        # open would hold one of the context's page slots for the rest of the crawl.
        request.meta["playwright_include_page"] = True
        # Chromium's answers count too: its next request to the host waits a full delay after the last answer.
        request.meta["playwright_page_event_handlers"] = {
            **(request.meta.get("playwright_page_event_handlers") or {}),
            "requestfinished": self.browser_request_answered, "requestfailed": self.browser_request_answered}
        timeout = float(request.meta.get("download_timeout") or 60)
        await self._maybe_launch_browser()  # starting Chromium (once) is not part of any page's time
        try:
            response = await asyncio.wait_for(super().download_request(request), timeout=timeout)
        except (asyncio.TimeoutError, PlaywrightTimeoutError) as exc:
            asyncio.ensure_future(_close_page(request.meta.pop("playwright_page", None)))
            raise DownloadTimeoutError(f"Chromium gave no page for {request.url} within {timeout:.0f} s") from exc
        except Exception:
            asyncio.ensure_future(_close_page(request.meta.pop("playwright_page", None)))
            raise
        await _close_page(request.meta.pop("playwright_page", None))
        return response


async def _close_page(page, timeout: float = 30.0) -> None:
    if page is None:
        return
    try:
        await asyncio.wait_for(page.close(), timeout=timeout)
    except Exception as exc:  # a wedged page: nothing more to do than say so
        logging.getLogger(__name__).warning("could not close a Chromium page: %s: %s", type(exc).__name__, exc)


class BoardsSpider(MunicipalSpider):
    name = "boards"
    source = "boards"
    custom_settings = {
        # Playwright only for requests that ask for it (meta "playwright"); others go through Scrapy's own handler.
        "DOWNLOAD_HANDLERS": {"http": "crawlers.spiders.boards.BoundedPlaywrightDownloadHandler",
                              "https": "crawlers.spiders.boards.BoundedPlaywrightDownloadHandler"},
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        # No images: a board's notices are text (what else a page needs not is aborted in the route handler).
        "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": CHROMIUM, "headless": True,
                                      "args": ["--blink-settings=imagesEnabled=false"]},
        "PLAYWRIGHT_MAX_CONTEXTS": 1,
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": BROWSER_PAGES,
        # Rendered pages queue in a download slot of their own, as many at a time as Chromium has pages: they never
        # wait inside the browser handler (where the download timeout already runs) nor take the downloader's
        # places from the plain requests. A board's robots.txt and attachments keep its host's spacing.
        "DOWNLOAD_SLOTS": {BROWSER_SLOT: {"concurrency": BROWSER_PAGES, "delay": 0}},
        "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": RENDER_TIMEOUT_MS,
        # Politeness per board host; many hosts crawled side by side.
        "CONCURRENT_REQUESTS": BOARD_CONCURRENCY,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": BOARD_DELAY,
        "DOWNLOAD_DELAY_JITTER": 0,  # never faster than one request per DOWNLOAD_DELAY
        # AutoThrottle on top of the delay; off when no delay is asked for (tests): it never lowers its delay after
        # a non-200 answer, so a slow first response would slow a run of 304s and 404s for good.
        "AUTOTHROTTLE_ENABLED": BOARD_DELAY > 0,
        "AUTOTHROTTLE_START_DELAY": BOARD_DELAY,
        # Hosts take turns, busy ones wait (Scrapy's downloader-aware queue, minus its scan of every host per request).
        "SCHEDULER_PRIORITY_QUEUE": "crawlers.host_queue.HostTurnsPriorityQueue",
        # Items of one response handled side by side: Scrapy starts this many asyncio tasks for every callback's
        # output, however few items it has; the records themselves go to worker threads (board_pipelines).
        "CONCURRENT_ITEMS": 8,
        "REACTOR_THREADPOOL_MAXSIZE": 20,
    }

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        # Document records from worker threads: the crawl keeps downloading while PostgreSQL commits.
        settings.set("ITEM_PIPELINES", with_threaded_records(settings.getdict("ITEM_PIPELINES")), priority="spider")
        if not needs_browser(os.environ.get("MENDEL_BOARDS_FILE")):
            # No JavaScript board in this run: no Playwright driver either.
            settings.set("DOWNLOAD_HANDLERS", PACED_HANDLERS, priority="spider")
            return
        if not settings.getbool("MENDEL_HOST_GUARD"):
            # Demo profile: Chromium resolves the mirror's board hosts as Scrapy does (crawlers.mirror_hosts).
            options = dict(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"))
            options["args"] = [*options.get("args", []), CHROMIUM_HOST_RULE]
            settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", options, priority="spider")

    @classmethod
    def arguments(cls, settings) -> dict:
        return super(MunicipalSpider, cls).arguments(settings)  # the registry's, without the feeds' Blešno site

    def __init__(self, boards_file: str = "", rebase: str = "", max_attachments: str = "", *args, **kwargs):
        super().__init__("", "", rebase, *args, **kwargs)
        self.boards_file = boards_file or ""
        self.max_attachments = int(max_attachments) if str(max_attachments or "").strip() else None
        self.boards: list[Board] = []
        self._links_executor: ThreadPoolExecutor | None = None
        self._links_conn = None
        # A notice's own page → the listing that owns its document (see load_notice_ids).
        self.notice_owners: dict[str, str] = {}

    async def start(self):
        self.load_validators()
        self.load_notice_ids()
        self.boards = read_boards_file(self.boards_file) if self.boards_file else load_registry(get_settings())
        # Production host guard: the board hosts (and the attachment hosts their boards name, added as found).
        self.allowed_hosts = frozenset(self.allowed_hosts | {b.host for b in self.boards if b.host})
        self.crawler.stats.set_value("mendel/boards/total", len(self.boards))
        # An HTML board of a publisher whose OFN feed this run reads waits for that feed: its notices are the
        # feed's (one document each, under the feed's ids), not new ones (see parse_html_board).
        feeds = {board.url: board for board in self.boards if board.kind == "ofn"}
        self.feeds_unread = Counter(b.publisher_ico for b in feeds.values() if b.publisher_ico)
        self.feed_boards = feeds
        self.waiting_for_feed: dict[str, list[Board]] = {}
        self.crawler.signals.connect(self.release_waiting_boards, signal=signals.spider_idle)
        for board in self.boards:
            if board.kind == "ofn":
                yield self.listing_request(self.fetch_url(board.url), self.parse_feed, listing=board.url,
                                           cb_kwargs={"feed_url": board.url}, dont_filter=True)
            elif board.publisher_ico and self.feeds_unread[board.publisher_ico]:
                self.waiting_for_feed.setdefault(board.publisher_ico, []).append(board)
            else:
                yield self.html_board_request(board)

    def release_waiting_boards(self):
        """Spider idle with HTML boards still waiting (their feed could not be read): crawl them now."""
        waiting = [b for boards in self.waiting_for_feed.values() for b in boards]
        self.waiting_for_feed.clear()
        if waiting:
            for board in waiting:
                self.crawler.engine.crawl(self.html_board_request(board))
            raise DontCloseSpider

    def html_board_request(self, board: Board):
        meta = {}
        if board.javascript:
            ready = board.rules.get("ready") or board.rules["board"]
            # The page's HTML, then its script's work: wait for the board to say it is ready, not for every load.
            meta = {"playwright": True, "playwright_context": "boards", "download_slot": BROWSER_SLOT,
                    "autothrottle_dont_adjust_delay": True,
                    "playwright_page_goto_kwargs": {"wait_until": "domcontentloaded"},
                    "playwright_page_methods": [PageMethod("wait_for_selector", playwright_selector(ready),
                                                           timeout=RENDER_TIMEOUT_MS)]}
        return self.listing_request(self.fetch_url(board.url), self.parse_html_board, listing=board.url, meta=meta,
                                    cb_kwargs={"board": board}, dont_filter=True)

    def document_request(self, url: str, callback, **kwargs):
        host = (urlsplit(url).hostname or "").lower()
        if self.allowed_hosts and host and not host_allowed(host, self.allowed_hosts):
            self.allowed_hosts = self.allowed_hosts | {host}  # named by a board this run reads
        return super().document_request(url, callback, **kwargs)

    def record_links(self, listing: str, links) -> None:
        """Notice → attachment links of one board read, written on a thread of their own (one connection for the
        whole crawl): the reactor keeps downloading meanwhile. Waited for when the spider closes."""
        links = list(links)
        if self._links_executor is None:
            self._links_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mendel-links")
            self.crawler.signals.connect(self.finish_links, signal=signals.spider_closed)
        future = self._links_executor.submit(self._record_links_now, listing, links)
        future.add_done_callback(lambda done: self._links_failed(listing, done))

    def _record_links_now(self, listing: str, links) -> None:
        if self._links_conn is None:
            self._links_conn = psycopg.connect(self.settings.get("MENDEL_DATABASE_URL"), autocommit=True)
        record_notice_links(self._links_conn, listing, links)

    def _links_failed(self, listing: str, done) -> None:
        if done.exception() is not None:
            self.logger.error("notice links of %s not recorded: %s", listing, done.exception())
            self.crawler.stats.inc_value("mendel/boards/links_failed")

    def finish_links(self, spider=None) -> None:
        self._links_executor.shutdown(wait=True)
        if self._links_conn is not None:
            self._links_conn.close()

    def load_notice_ids(self) -> list[tuple]:
        """The stored notices (:meth:`MunicipalSpider.load_notice_ids`), and the listing that owns each: the one
        that last stored it (``documents.listing``), while it is active. A feed that took a notice over from an HTML
        board keeps it as the board's id, so the id alone does not tell; its listing does, in every later run. A
        withdrawn notice (its owner, read in full, no longer names it) has no owner: a board that shows it takes it."""
        rows = super().load_notice_ids()
        for url, doc_id, listing, status in rows:
            known = self.notice_ids.get(url)
            if status == "active" and known is not None and known[0] == doc_id:
                # Stored before documents had a listing: a feed's IRI still tells a feed's notice.
                owner = listing or ("an OFN feed" if known[1] else None)
                if owner:
                    self.notice_owners[url] = owner
        return rows

    def parse_feed(self, response, feed_url: str):
        self.crawler.stats.inc_value("mendel/boards/ofn")
        for output in super().parse_feed(response, feed_url):
            if isinstance(output, FetchedDocument) and output.doc_type == "notice":
                self.notice_owners[output.url] = feed_url  # the feed's body is the notice's content
            yield output
        board = self.feed_boards.get(feed_url)
        if board is not None and board.publisher_ico and self.feeds_unread[board.publisher_ico] > 0:
            self.feeds_unread[board.publisher_ico] -= 1
            if not self.feeds_unread[board.publisher_ico]:
                for html_board in self.waiting_for_feed.pop(board.publisher_ico, []):
                    yield self.html_board_request(html_board)

    def parse_html_board(self, response, board: Board):
        rules = board.rules
        if board.javascript:
            self.crawler.stats.inc_value("mendel/boards/javascript")
        else:
            self.crawler.stats.inc_value("mendel/boards/html")
        if not select(response, rules["board"]):
            self.reject_listing(response, f"board layout changed: {rules['board']!r} not on the page")
            return
        self.listing_read(board.url)
        feed = {"@context": OFN_CONTEXT, "stránka": board.url,
                "provozovatel": {"typ": "Osoba", "ičo": board.publisher_ico}}
        links, fetched = [], 0
        for index, row in enumerate(select(response, rules["row"])):
            self.discovered += 1
            notice = html_notice(row, rules, board.url)
            if notice is None:
                self.log_outcome(f"{board.url}#{index}", "quarantined", status=response.status,
                                 reason=f"notice row {index} has no title ({rules['title']!r})")
                continue
            doc = notice_document(feed, notice, index, board.url)
            doc["doc_id"] = html_notice_id(board, notice)
            if not notice.get("url"):
                doc["url"] = doc["doc_id"]
            known = self.notice_ids.get(doc["url"])
            owner = self.notice_owners.get(doc["url"])
            if known is not None and owner is not None and owner != board.url:
                # A notice another listing owns (a feed, in this run or an earlier one; or another board): that
                # document is the notice, the row only confirms it — the owner's body, attachments and links stay.
                self.listed(board.url, known[0])
                for attachment in doc["attachments"]:
                    self.listed(board.url, attachment["url"])
                self.log_outcome(doc["url"], "unchanged", status=response.status,
                                 reason=f"the notice of {owner}: {known[0]}"[:500])
                self.crawler.stats.inc_value("mendel/boards/notices_confirmed")
                if known[1] or owner in self.feed_boards:
                    self.crawler.stats.inc_value("mendel/boards/notices_from_feed")
                continue
            if known is not None:
                doc["doc_id"] = known[0]
            self.notice_ids[doc["url"]] = (doc["doc_id"], False)
            self.notice_owners[doc["url"]] = board.url
            doc["extra"]["board_key"] = board.key
            self.listed(board.url, doc["doc_id"])
            links.append((doc["doc_id"], [(a["url"], a["name"]) for a in doc["attachments"]]))
            yield FetchedDocument(
                source=self.source, doc_id=doc["doc_id"], url=doc["url"], body=doc["body"],
                content_type="application/ld+json", title=doc["title"], doc_type="notice",
                citation=doc["citation"], published=doc["published"], http_status=response.status,
                extra=doc["extra"], listing=board.url,
            )
            for number, attachment in enumerate(doc["attachments"]):
                self.listed(board.url, attachment["url"])
                url = self.fetch_url(attachment["url"])
                if url in self.seen:
                    continue
                if self.max_attachments is not None and fetched >= self.max_attachments:
                    self.crawler.stats.inc_value("mendel/attachments_over_limit")
                    continue
                fetched += 1
                self.seen.add(url)
                yield self.document_request(url, self.parse_attachment, cb_kwargs={
                    "notice": doc, "attachment": attachment, "number": number, "listing": board.url})
        self.record_links(board.url, links)
