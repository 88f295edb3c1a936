"""The board crawl: municipal notice boards from the register (:mod:`mendel.boards`), each treated as its own site.

- **OFN boards** (from NKOD): the feed is read exactly as the municipal spider reads one (a notice is a
  document, every attachment another, linked in ``notice_attachments``).
- **HTML boards** (the maintained list): the board page is read with the board's rules (CSS or XPath); each
  notice row becomes a notice document in OFN form (``application/ld+json``, the fields the page shows, nothing
  invented) and its attachment links are fetched like a feed's. Boards marked ``javascript: true`` are rendered by
  Debian's Chromium through scrapy-playwright — only those requests; everything else (robots.txt, feeds, static
  pages, attachments) is plain Scrapy.

Politeness per board host: one request at a time, ``MENDEL_BOARD_DOWNLOAD_DELAY`` seconds apart (default 1: one
request a second per domain), AutoThrottle on top, robots.txt obeyed (project settings), Scrapy's
downloader-aware queue spreading the crawl over the many hosts.

Spider arguments: ``boards_file`` — a JSON list of boards (:func:`mendel.boards.write_boards_file`; without it the
whole register is read), ``rebase`` — the mirror's origin in the demo profile, ``max_attachments`` — at most this
many attachments fetched per board (the rest stay listed and linked; default all).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
from datetime import date
from urllib.parse import urljoin, urlsplit

from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from scrapy.exceptions import DownloadTimeoutError
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
from scrapy_playwright.page import PageMethod

from crawlers.board_pipelines import with_threaded_records
from crawlers.items import FetchedDocument
from crawlers.mirror_hosts import CHROMIUM_HOST_RULE
from crawlers.middlewares import host_allowed
from crawlers.spiders.municipal import MunicipalSpider, czech_text, notice_document
from mendel.boards import Board, RegistryError, load_registry, read_boards_file
from mendel.config import get_settings

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own browser downloads are never used
OFN_CONTEXT = "https://ofn.gov.cz/úřední-desky/2021-07-20/kontexty/úřední-deska.jsonld"
NOTICE_TYPES = ["Digitální objekt", "Informace na úřední desce"]
BOARD_DELAY = float(os.environ.get("MENDEL_BOARD_DOWNLOAD_DELAY") or 1.0)
BOARD_CONCURRENCY = int(os.environ.get("MENDEL_BOARD_CONCURRENCY") or 128)
RENDER_TIMEOUT_MS = 30_000
BROWSER_SLOT = "chromium"  # the download slot of every rendered page
BROWSER_PAGES = 4  # pages Chromium renders at a time
_CZECH_DATE = re.compile(r"(\d{1,2})\.\s*(\d{1,2})\.\s*(\d{4})")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def board_date(value: str | None) -> str | None:
    """``2020-06-29``, ``29. 6. 2020`` or ``29.6.2020 10:00`` → ISO date; None when there is no valid date."""
    if not value:
        return None
    m = _ISO_DATE.search(value)
    parts = (m.group(1), m.group(2), m.group(3)) if m else None
    if parts is None:
        m = _CZECH_DATE.search(value)
        parts = (m.group(3), m.group(2), m.group(1)) if m else None
    if parts is None:
        return None
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2])).isoformat()
    except ValueError:
        return None


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
        day = board_date(first_text(row, rules.get(rule)))
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


class BoundedPlaywrightDownloadHandler(ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright with the crawl's download timeout on every rendered request.

    A page can wedge Chromium (at scale, under load, a navigation that never answers and a page that never closes);
    scrapy-playwright then never returns, and the crawl could not finish. Here a rendered request that takes
    longer than ``download_timeout`` — or that Playwright itself times out — fails as Scrapy's own download timeout:
    retried with backoff like any other timeout, then quarantined with its reason.
    """

    async def download_request(self, request):
        if not request.meta.get("playwright"):
            return await super().download_request(request)
        # The page is handed to us (playwright_include_page) so that it is closed whatever happens: a page left
        # open would hold one of the context's page slots for the rest of the crawl.
        request.meta["playwright_include_page"] = True
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
        # No images: a board's notices are text. (Chromium's own switch; request interception would cost a
        # round trip to this process for every request the page makes.)
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
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
        "REACTOR_THREADPOOL_MAXSIZE": 20,
    }

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        # Document records from worker threads: the crawl keeps downloading while PostgreSQL commits.
        settings.set("ITEM_PIPELINES", with_threaded_records(settings.getdict("ITEM_PIPELINES")), priority="spider")
        if not needs_browser(os.environ.get("MENDEL_BOARDS_FILE")):
            # No JavaScript board in this run: no Playwright driver either.
            settings.set("DOWNLOAD_HANDLERS", {}, priority="spider")
            return
        if not settings.getbool("MENDEL_HOST_GUARD"):
            # Demo profile: Chromium resolves the mirror's board hosts as Scrapy does (crawlers.mirror_hosts).
            options = dict(settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"))
            options["args"] = [*options.get("args", []), CHROMIUM_HOST_RULE]
            settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", options, priority="spider")

    def __init__(self, boards_file: str = "", rebase: str = "", max_attachments: str = "", *args, **kwargs):
        super().__init__("", "", rebase, *args, **kwargs)
        self.boards_file = boards_file or ""
        self.max_attachments = int(max_attachments) if str(max_attachments or "").strip() else None
        self.boards: list[Board] = []

    async def start(self):
        self.load_validators()
        self.boards = read_boards_file(self.boards_file) if self.boards_file else load_registry(get_settings())
        # Production host guard: the board hosts (and the attachment hosts their boards name, added as found).
        self.allowed_hosts = frozenset(self.allowed_hosts | {b.host for b in self.boards if b.host})
        self.crawler.stats.set_value("mendel/boards/total", len(self.boards))
        for board in self.boards:
            if board.kind == "ofn":
                yield self.listing_request(self.fetch_url(board.url), self.parse_feed, listing=board.url,
                                           cb_kwargs={"feed_url": board.url}, dont_filter=True)
            else:
                yield self.html_board_request(board)

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

    def parse_feed(self, response, feed_url: str):
        self.crawler.stats.inc_value("mendel/boards/ofn")
        yield from super().parse_feed(response, feed_url)

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
