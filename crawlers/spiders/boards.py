"""The board crawl: every notice board of the register (:mod:`mendel.crawl.boards.register`), each treated as its own site, in one
crawl path — a notice is one document, owned by the board that lists it.

- **Catalogue boards** (NKOD's ``ofn`` and ``export`` boards): the download URL is read whatever it turns out to be
  (:func:`crawlers.board_exports.read_listing`: the standard's JSON-LD, or a publisher's own JSON, XML or CSV
  layout); each notice becomes a document of its own — the notice's JSON object (with the feed's ``@context`` added
  when the notice has none, so it stands alone as JSON-LD), UTF-8, ``application/ld+json``; ``doc_id`` = the notice
  ``iri``, else its own page, else the export's id for it (an OFN notice without either: ``{feed iri}#{index}``).
  An export notice that lacks what a notice needs is quarantined with its reason. Every attachment
  (``dokument[].url``) is requested as a document of its own, linked to its notice in ``notice_attachments`` (all
  of a notice's attachments in order, written once per read, whether or not each could be fetched). Notices carry
  no HTTP validators, so a re-run re-reads the listing and finds them ``unchanged`` by hash; attachments are
  conditional requests.
- **HTML boards** (the maintained list): the board page is read with the board's rules (CSS or XPath: the rule
  set of its site's CMS, or the list entry's own; a board whose CMS has none is not fetched and is logged as
  quarantined with that reason — :func:`mendel.crawl.boards.register.apply_cms_rules`); each
  notice row becomes a notice document in OFN form (``application/ld+json``, the fields the page shows, nothing
  invented) and its attachment links are fetched like a feed's. Boards marked ``javascript: true`` are rendered by
  Debian's Chromium through scrapy-playwright — only those requests; everything else (robots.txt, feeds, static
  pages, attachments) is plain Scrapy.
- **Article APIs** (the maintained list, ``article_api``: obec Blešno's site, an Angular front end over a Spring REST
  backend, tomkre/obec-blesno): article ids (``…/articles/ids?prefix=``) → each article's asset list
  (``/articles/{id}/assets?type=references``) → its PDFs, ``doc_id`` = ``{board id}:{article}/{file}``,
  ``doc_type`` ``municipal_document``. An article already read whose asset list answered within
  ``revalidate_days`` (below) is not read again: its PDFs stay listed (nothing withdrawn) and are logged not due.
- **One notice, one document**: a notice document belongs to the listing that stored it (``documents.listing``,
  while active). A feed takes a notice over from an HTML board; an HTML row of a notice another listing owns only
  confirms it, in this run or any later one, so a board never adds a version to a feed's notice. A board owns a
  notice only once its owner, read in full, no longer lists it (withdrawn); then a change the board shows is new.

Every listing is complete: what a fully read listing no longer names (a notice taken down, its attachments, a
removed PDF) is marked withdrawn, never deleted (``crawlstate.sync_listing``).

Politeness per board host: one request at a time, ``MENDEL_BOARD_DOWNLOAD_DELAY`` seconds apart (default 1: one
request a second per domain) — counted from the previous request's start *and* its answer, for every request to the
host: robots.txt, feeds, attachments, and what Chromium fetches for a rendered board (:mod:`crawlers.host_pacing`;
Chromium skips images, fonts and style sheets) —, no random jitter, AutoThrottle on top, robots.txt obeyed (project
settings), the ready host with the longest queue first in the scheduler (:mod:`crawlers.host_queue`).
In the demo profile the mirror's own origin, which stands in for every real host the boards name (their URLs
re-rooted onto it), is not paced as one host: the per-host delay applies to the hosts a production crawl would
meet and to the mirror's ``*.mirror.test`` board hosts — unless ``MENDEL_BOARD_PACE_PUBLISHED_HOSTS`` is set (the
crawl-scale benchmark): then each re-rooted request is paced as the host that published its URL.

A budget per host and run (``host_budget``, ``MENDEL_BOARD_HOST_BUDGET``, default 200 requests): the crawl sends
one host at most that many requests in one run — counted by the host that published the URL (in the demo profile,
the real host a re-rooted URL stands for). Its robots.txt and every listing on the host (feed, board page — a
rendered one counts its page and its data —, article index) are counted first and always go: a board is never
starved by attachments, and a listing is never deferred. Attachments take what is left; one over the budget is not
requested but **deferred**: listed and linked as ever, logged in ``crawl_log`` as ``deferred`` with its reason (not
an outcome of the run, not discovered in it), counted (``deferred`` in the crawl's counts), and the next run
requests the deferred attachments of earlier runs (:func:`mendel.crawl.crawlstate.known_deferred`) before any other
attachment — so a host with more files than its budget gets them all over successive runs. 0 = no budget.

Spider arguments: ``boards_file`` — a JSON list of boards (:func:`mendel.crawl.boards.register.write_boards_file`; without it the
whole register is read), ``rebase`` — the mirror's origin in the demo profile, ``max_attachments`` — at most this
many attachments fetched per board (the rest stay listed and linked, unfetched and not deferred; default all),
``host_budget`` — requests per host and run (above), ``revalidate_days`` — an attachment (or an article's PDF)
that answered with its document within this many days is not asked for again (``MENDEL_BOARD_REVALIDATE_DAYS``,
default 7; logged ``unchanged`` without a status, the reason saying when it answered): a posted notice's files
rarely change, and asking for each every night would spend the host's politeness on 304s. The same holds for an
article's asset list (obec Blešno: a request a second for each of its articles every night): one that answered
within the window — each PDF it named has its document and answered within it, and nothing of it failed on its last
try — is not read; it is logged like a not-due attachment and the PDFs it named still count as listed
(:meth:`BoardsSpider.article_not_due`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from urllib.parse import quote, unquote, urljoin, urlsplit

import psycopg
from playwright.async_api import Request as PlaywrightRequest
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.exceptions import DontCloseSpider, DownloadTimeoutError
from scrapy.logformatter import LogFormatter
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
from scrapy_playwright.page import PageMethod

from crawlers.board_exports import NOTICE_TYPES, OFN_CONTEXT, NotABoard, read_listing
from crawlers.board_pipelines import with_threaded_records
from crawlers.host_pacing import crawler_pacer, url_host
from crawlers.items import FetchedDocument
from crawlers.middlewares import host_allowed
from crawlers.mirror_hosts import CHROMIUM_HOST_RULE, fetch_url
from crawlers.spiders.base import MendelSpider, media_type, response_header
from mendel.core.config import get_settings
from mendel.crawl import crawlstate
from mendel.crawl.boards.register import (
    API_KEY_PREFIX,
    Board,
    RegistryError,
    load_registry,
    read_boards_file,
    record_notice_links,
)
from mendel.czech.dates import find_date, iso, ofn_instant_date

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own browser downloads are never used
BOARD_DELAY = float(os.environ.get("MENDEL_BOARD_DOWNLOAD_DELAY") or 1.0)
BOARD_CONCURRENCY = int(os.environ.get("MENDEL_BOARD_CONCURRENCY") or 128)
RENDER_TIMEOUT_MS = 30_000
BROWSER_SLOT = "chromium"  # the download slot of every rendered page
BROWSER_PAGES = 4  # pages Chromium renders at a time
MIRROR_SLOT = "mirror-origin"  # demo profile: the mirror's origin, standing in for many real hosts
MIRROR_CONCURRENCY = 8
UNPACED = "mendel_unpaced"  # request meta: not paced per host (the mirror's origin in the demo profile)
PACE_HOST = "mendel_pace_host"  # request meta: the host a request is paced as (when not its URL's own)
# Demo profile, for benchmarks: a URL re-rooted onto the mirror's origin is paced as the host that published it
# (opendata-test.mvcr.cz, www.mvcr.cz …), as a production crawl would be, instead of going unpaced.
PACE_PUBLISHED_HOSTS = (os.environ.get("MENDEL_BOARD_PACE_PUBLISHED_HOSTS") or "").strip().lower() in (
    "1",
    "true",
    "yes",
)
# What Chromium need not fetch to show a board's notices (the page, its scripts and their data are fetched).
BROWSER_BLOCKED = frozenset({"image", "media", "font", "stylesheet", "manifest", "texttrack"})
PACED_HANDLERS = {
    "http": "crawlers.spiders.boards.PacedHTTPDownloadHandler",
    "https": "crawlers.spiders.boards.PacedHTTPDownloadHandler",
}
DOCUMENT_MAGIC = {
    b"%PDF": "application/pdf",
    b"PK\x03\x04": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    b"\xd0\xcf\x11\xe0": "application/msword",
}


def czech_text(value) -> str | None:
    """An OFN multilingual text (``{"cs": "...", "en": ...}``) or a plain string → the Czech text."""
    if isinstance(value, dict):
        value = value.get("cs") or next((v for v in value.values() if isinstance(v, str) and v.strip()), None)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def notice_document(feed: dict, notice: dict, index: int, feed_url: str) -> dict:
    """What to store for one notice of a feed: ``doc_id``, ``url``, ``body`` and metadata."""
    feed_key = feed.get("iri") if isinstance(feed.get("iri"), str) and feed.get("iri") else feed_url
    iri = notice.get("iri")
    doc_id = iri if isinstance(iri, str) and iri else f"{feed_key}#{index}"
    documents = notice.get("dokument") if isinstance(notice.get("dokument"), list) else []
    operator = feed.get("provozovatel") if isinstance(feed.get("provozovatel"), dict) else {}
    body = notice if "@context" in notice or "@context" not in feed else {"@context": feed["@context"], **notice}
    attachments = [
        {"url": d["url"], "name": czech_text(d.get("název"))}
        for d in documents
        if isinstance(d, dict) and isinstance(d.get("url"), str)
    ]
    return {
        "doc_id": doc_id,
        "url": notice.get("url") if isinstance(notice.get("url"), str) else doc_id,
        "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        "title": czech_text(notice.get("název")),
        "published": iso(ofn_instant_date(notice.get("vyvěšení"))),
        "citation": notice.get("číslo_jednací") if isinstance(notice.get("číslo_jednací"), str) else None,
        "attachments": attachments,
        "extra": {
            "feed": feed_key,
            "index": index,
            "board": feed.get("stránka"),
            "publisher_ico": operator.get("ičo"),
            "relevant_until": iso(ofn_instant_date(notice.get("relevantní_do"))),
            "file_mark": notice.get("spisová_značka"),
            "attachments": [a["url"] for a in attachments],
        },
    }


def humanise_file_name(name: str) -> str:
    """``oznameni-o-cene-stocneho-pro-rok-2018.pdf`` → ``Oznameni o cene stocneho pro rok 2018``."""
    stem = unquote(name).rsplit(".", 1)[0].replace("-", " ").replace("_", " ").strip()
    return stem[:1].upper() + stem[1:]


def sniff_document_type(body: bytes, declared: str) -> str | None:
    """The media type of an attachment body, or None when it is not a document (an HTML error page...)."""
    for magic, kind in DOCUMENT_MAGIC.items():
        if body.startswith(magic):
            return declared if declared and declared not in ("application/octet-stream", "text/html") else kind
    head = body[:512].lstrip().lower()
    if declared == "text/html" or head.startswith((b"<!doctype html", b"<html")):
        return None
    return declared or "application/octet-stream"


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
            documents.append(
                {
                    "typ": "Digitální objekt",
                    "název": {
                        "cs": first_text(link, rules.get("attachment_name") or "xpath:normalize-space(.)")
                        or url.rsplit("/", 1)[-1]
                    },
                    "url": urljoin(base_url, url),
                }
            )
    if documents:
        notice["dokument"] = documents
    return notice


def html_notice_id(board: Board, notice: dict) -> str:
    """The notice's own page when the board links one; else the board page plus a digest of what identifies it."""
    if isinstance(notice.get("url"), str):
        return notice["url"]
    basis = "|".join(
        str(x)
        for x in (
            czech_text(notice.get("název")),
            notice.get("vyvěšení"),
            notice.get("číslo_jednací"),
            notice.get("spisová_značka"),
        )
    )
    return f"{board.url}#{hashlib.sha256(basis.encode('utf-8')).hexdigest()[:16]}"


class PacedHTTPDownloadHandler(HTTP11DownloadHandler):
    """Scrapy's HTTP handler, each request in its host's turn (:class:`crawlers.host_pacing.HostPacer`)."""

    def __init__(self, crawler):
        super().__init__(crawler)
        self.pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))

    async def download_request(self, request):
        if request.meta.get(UNPACED):
            return await super().download_request(request)
        host = request.meta.get(PACE_HOST) or url_host(request.url)
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
        host = request.meta.get(PACE_HOST) or url_host(request.url)
        if not request.meta.get("playwright") and request.meta.get(UNPACED):
            return await super().download_request(request)
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
            "requestfinished": self.browser_request_answered,
            "requestfailed": self.browser_request_answered,
        }
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


class QuietLogFormatter(LogFormatter):
    """Scrapy's log formatter without its DEBUG line per response ("Crawled") and per item ("Scraped from") when
    the crawl logs above DEBUG: Scrapy builds their log records before the handler drops them, ~60,000 at the
    benchmark's scale, seconds of the reactor thread for nothing shown."""

    @staticmethod
    def _shown(spider) -> bool:
        level = spider.settings.get("LOG_LEVEL") if spider is not None else None
        level = logging.getLevelName(level) if isinstance(level, str) else level
        return not isinstance(level, int) or level <= logging.DEBUG

    def crawled(self, request, response, spider):
        return super().crawled(request, response, spider) if self._shown(spider) else None

    def scraped(self, item, response, spider):
        return super().scraped(item, response, spider) if self._shown(spider) else None


class BoardsSpider(MendelSpider):
    name = "boards"
    source = "boards"
    custom_settings = {
        # Playwright only for requests that ask for it (meta "playwright"); others go through Scrapy's own handler.
        "DOWNLOAD_HANDLERS": {
            "http": "crawlers.spiders.boards.BoundedPlaywrightDownloadHandler",
            "https": "crawlers.spiders.boards.BoundedPlaywrightDownloadHandler",
        },
        "PLAYWRIGHT_BROWSER_TYPE": "chromium",
        # No images: a board's notices are text (what else a page needs not is aborted in the route handler).
        "PLAYWRIGHT_LAUNCH_OPTIONS": {
            "executable_path": CHROMIUM,
            "headless": True,
            "args": ["--blink-settings=imagesEnabled=false"],
        },
        "PLAYWRIGHT_MAX_CONTEXTS": 1,
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": BROWSER_PAGES,
        # Rendered pages queue in a download slot of their own, as many at a time as Chromium has pages: they never
        # wait inside the browser handler (where the download timeout already runs) nor take the downloader's
        # places from the plain requests. A board's robots.txt and attachments keep its host's spacing.
        # The demo mirror's origin (every real host's URLs re-rooted onto it) is one slot without delay.
        "DOWNLOAD_SLOTS": {
            BROWSER_SLOT: {"concurrency": BROWSER_PAGES, "delay": 0},
            MIRROR_SLOT: {"concurrency": MIRROR_CONCURRENCY, "delay": 0},
        },
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
        # The ready host with the most requests waiting goes first (busiest hosts start early), busy ones wait.
        "SCHEDULER_PRIORITY_QUEUE": "crawlers.host_queue.LongestReadyHostPriorityQueue",
        # Items of one response handled side by side: Scrapy starts this many asyncio tasks for every callback's
        # output, however few items it has; the records themselves go to worker threads (board_pipelines).
        "CONCURRENT_ITEMS": 8,
        "REACTOR_THREADPOOL_MAXSIZE": 20,
        # Scrapy re-reads a callback's source (inspect + ast) for every response to warn about a generator that
        # returns a value; bound methods miss its cache, so at scale it cost the reactor more than parsing the
        # feeds. None of this spider's callbacks returns a value (tests/crawlers/boards/test_boards_budget.py checks).
        "WARN_ON_GENERATOR_RETURN_VALUE": False,
        "LOG_FORMATTER": "crawlers.spiders.boards.QuietLogFormatter",
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

    def __init__(
        self,
        boards_file: str = "",
        rebase: str = "",
        max_attachments: str = "",
        host_budget: str = "",
        revalidate_days: str = "",
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.boards_file = boards_file or ""
        self.rebase = rebase or None
        self.mirror_origin_host = url_host(self.rebase) if self.rebase else None
        self.published_hosts: dict[str, str] = {}  # re-rooted URL → the host that published it (pacing)
        # Attachments fetched per board; None = all. Those over the limit stay listed and linked, unfetched.
        self.max_attachments = int(max_attachments) if str(max_attachments or "").strip() else None
        # Requests per host in this run (published host → requests counted); None = no budget.
        self.host_budget = int(host_budget) if str(host_budget or "").strip() and int(host_budget) > 0 else None
        days = int(revalidate_days) if str(revalidate_days or "").strip() else 0
        self.revalidate_after = timedelta(days=days) if days > 0 else None
        self.host_requests: Counter = Counter()
        self.deferred: set[str] = set()  # attachment URLs put off to the next run by this one
        self.hosts_over_budget: set[str] = set()
        self._deferred_rows: list[tuple[str, str]] = []  # (url, reason) to log, with the next links written
        self.boards: list[Board] = []
        self.seen: set[str] = set()
        self.quarantined: set[str] = set()  # URLs that failed on their last try (article_not_due)
        self.quarantined_folders: set[str] = set()
        self._links_executor: ThreadPoolExecutor | None = None
        self._links_conn = None
        # A notice's own page (its url) → (its document id, whether a feed gave it): one notice is one document,
        # whether a feed or an HTML board names it; and → the listing that owns its document (load_notice_ids).
        self.notice_ids: dict[str, tuple[str, bool]] = {}
        self.notice_owners: dict[str, str] = {}

    async def start(self):
        self.load_validators()
        self.load_notice_ids()
        self.boards = read_boards_file(self.boards_file) if self.boards_file else load_registry(get_settings())
        self.allow_board_hosts(self.boards)
        self.crawler.stats.set_value("mendel/boards/total", len(self.boards))
        # The budget: every board's listing counted first (they always go), then what earlier runs deferred.
        for board in self.boards:
            if board.kind in ("ofn", "export", "article_api") or board.rules:
                self.count_request(board.url, 2 if board.javascript else 1)
        carried = self.carried_over_requests()
        self.record_deferred()  # those deferred again
        for request in carried:
            yield request
        # An HTML board of a publisher whose feed this run reads waits for that feed: its notices are the feed's
        # (one document each, under the feed's ids), not new ones (see parse_html_board).
        feeds = {board.url: board for board in self.boards if board.kind in ("ofn", "export")}
        self.feeds_unread = Counter(b.publisher_ico for b in feeds.values() if b.publisher_ico)
        self.feed_boards = feeds
        self.waiting_for_feed: dict[str, list[Board]] = {}
        self.crawler.signals.connect(self.release_waiting_boards, signal=signals.spider_idle)
        # A site's article index leads a chain of requests to one paced host (the index, each article's asset list,
        # its PDFs: obec Blešno's 34, one a second): asked for first, the chain runs beside the feeds' notices
        # instead of waiting behind them (Scrapy takes no more start requests while its downloader and item
        # pipeline are full of the feeds).
        for board in sorted(self.boards, key=lambda board: board.kind != "article_api"):
            if board.kind in ("ofn", "export"):
                yield self.listing_request(
                    self.fetch_url(board.url),
                    self.parse_feed,
                    listing=board.url,
                    cb_kwargs={"feed_url": board.url},
                    dont_filter=True,
                )
            elif board.kind == "article_api":
                yield self.listing_request(
                    self.fetch_url(board.url),
                    self.parse_article_ids,
                    listing=board.url,
                    cb_kwargs={"board": board},
                    dont_filter=True,
                )
            elif not board.rules:
                self.skip_board_without_rules(board)
            elif board.publisher_ico and self.feeds_unread[board.publisher_ico]:
                self.waiting_for_feed.setdefault(board.publisher_ico, []).append(board)
            else:
                yield self.html_board_request(board)

    def skip_board_without_rules(self, board: Board) -> None:
        """An HTML board whose CMS has no rule set (:func:`mendel.crawl.boards.register.apply_cms_rules`) is not fetched; it is
        logged as quarantined with the reason, so a crawl never skips a board silently. Nothing is withdrawn."""
        self.discovered += 1
        self.crawler.stats.inc_value("mendel/boards/without_rules")
        self.crawler.stats.inc_value(f"mendel/boards/without_rules_cms_{board.cms or 'unlisted'}")
        self.log_outcome(
            board.url, "quarantined", reason=(board.no_rules or "HTML board not read: it has no extraction rules")[:500]
        )

    def allow_board_hosts(self, boards) -> None:
        """Production host guard: the board hosts (and the attachment hosts their boards name, added as found: a
        notice's files often live elsewhere — MVČR's on www.mvcr.cz, a town's on its web vendor's host; the guard
        still refuses every non-public address)."""
        self.allowed_hosts = frozenset(self.allowed_hosts | {b.host for b in boards if b.host})

    def release_waiting_boards(self):
        """Spider idle with HTML boards still waiting (their feed could not be read): crawl them now."""
        waiting = [b for boards in self.waiting_for_feed.values() for b in boards]
        self.waiting_for_feed.clear()
        if waiting:
            for board in waiting:
                self.crawler.engine.crawl(self.html_board_request(board))
            raise DontCloseSpider

    def fetch_url(self, url: str) -> str:
        """Where to fetch a URL a site published (the mirror in the demo profile; mirror hosts keep their names)."""
        fetched = fetch_url(url, self.rebase)
        if PACE_PUBLISHED_HOSTS and self.mirror_origin_host and url_host(fetched) == self.mirror_origin_host:
            self.published_hosts[fetched] = url_host(url)
        return fetched

    def _unpaced(self, url: str, kwargs: dict) -> dict:
        """Requests to the demo mirror's own origin go to its slot, without the per-host delay — or, with
        ``MENDEL_BOARD_PACE_PUBLISHED_HOSTS``, to the slot of the host that published the URL, paced as that host."""
        if self.mirror_origin_host and url_host(url) == self.mirror_origin_host:
            meta = kwargs.setdefault("meta", {})
            published = self.published_hosts.get(url)
            if published:
                meta.setdefault("download_slot", published)
                meta[PACE_HOST] = published
                return kwargs
            meta.setdefault("download_slot", MIRROR_SLOT)
            meta[UNPACED] = True
            meta["autothrottle_dont_adjust_delay"] = True  # AutoThrottle would raise the slot's delay again
        return kwargs

    def listing_request(self, url: str, callback, listing: str | None = None, **kwargs):
        return super().listing_request(url, callback, listing, **self._unpaced(url, kwargs))

    def html_board_request(self, board: Board):
        meta = {}
        if board.javascript:
            ready = board.rules.get("ready") or board.rules["board"]
            # The page's HTML, then its script's work: wait for the board to say it is ready, not for every load.
            meta = {
                "playwright": True,
                "playwright_context": "boards",
                "download_slot": BROWSER_SLOT,
                "autothrottle_dont_adjust_delay": True,
                "playwright_page_goto_kwargs": {"wait_until": "domcontentloaded"},
                "playwright_page_methods": [
                    PageMethod("wait_for_selector", playwright_selector(ready), timeout=RENDER_TIMEOUT_MS)
                ],
            }
        return self.listing_request(
            self.fetch_url(board.url),
            self.parse_html_board,
            listing=board.url,
            meta=meta,
            cb_kwargs={"board": board},
            dont_filter=True,
        )

    def document_request(self, url: str, callback, **kwargs):
        host = (urlsplit(url).hostname or "").lower()
        if self.allowed_hosts and host and not host_allowed(host, self.allowed_hosts):
            self.allowed_hosts = self.allowed_hosts | {host}  # named by a board this run reads
        return super().document_request(url, callback, **self._unpaced(url, kwargs))

    # ---------------------------------------------------------------- notice links

    def record_links(self, listing: str, links) -> None:
        """Notice → attachment links of one board read, and the attachments deferred meanwhile, written on a
        thread of their own (one connection for the whole crawl): the reactor keeps downloading meanwhile. Waited
        for when the spider closes."""
        self._in_background(listing, list(links), self._take_deferred())

    def record_deferred(self) -> None:
        """The attachments deferred and not written yet (with the next links, or now)."""
        deferred = self._take_deferred()
        if deferred:
            self._in_background(None, [], deferred)

    def _take_deferred(self) -> list[tuple[str, str]]:
        deferred, self._deferred_rows = self._deferred_rows, []
        return deferred

    def _in_background(self, listing: str | None, links: list, deferred: list[tuple[str, str]]) -> None:
        if self._links_executor is None:
            self._links_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mendel-links")
            self.crawler.signals.connect(self.finish_links, signal=signals.spider_closed)
        future = self._links_executor.submit(self._record_links_now, listing, links, deferred)
        future.add_done_callback(lambda done: self._links_failed(listing or "deferred attachments", done))

    def _record_links_now(self, listing: str | None, links, deferred) -> None:
        if self._links_conn is None:
            self._links_conn = psycopg.connect(self.settings.get("MENDEL_DATABASE_URL"), autocommit=True)
        if listing is not None:
            record_notice_links(self._links_conn, listing, links)
        if deferred:
            crawlstate.log_deferred(
                self._links_conn, run_id=self.settings.get("MENDEL_RUN_ID"), source=self.source, rows=deferred
            )

    def _links_failed(self, listing: str, done) -> None:
        if done.exception() is not None:
            self.logger.error("notice links or deferred attachments of %s not recorded: %s", listing, done.exception())
            self.crawler.stats.inc_value("mendel/boards/links_failed")

    def finish_links(self, spider=None) -> None:
        self.record_deferred()
        self._links_executor.shutdown(wait=True)
        if self._links_conn is not None:
            self._links_conn.close()

    # ---------------------------------------------------------------- who owns a notice

    def load_notice_ids(self) -> list[tuple]:
        """The notices already stored, by their own page, and the listing that owns each: the one that last
        stored it (``documents.listing``), while it is active. A document whose id is not its url came from a
        feed (its IRI); one whose id is its url was read off an HTML board. A feed that took a notice over from an
        HTML board keeps it as the board's id, so the id alone does not tell; its listing does, in every later
        run. A withdrawn notice (its owner, read in full, no longer names it) has no owner: a board that shows it
        takes it. Returns the rows read, (url, doc_id, listing, status)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT url, doc_id, listing, status FROM documents"
                " WHERE doc_type = 'notice' AND url IS NOT NULL ORDER BY first_seen, doc_id"
            ).fetchall()
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
        return rows

    def feed_notice_id(self, doc: dict) -> str:
        """A feed's notice keeps its IRI — unless an HTML board's row of the same notice page is stored already:
        then that document is the notice (the feed's richer body becomes its next version)."""
        known = self.notice_ids.get(doc["url"])
        doc_id = known[0] if known is not None and not known[1] and doc["url"] != doc["doc_id"] else doc["doc_id"]
        self.notice_ids[doc["url"]] = (doc_id, True)
        return doc_id

    # ---------------------------------------------------------------- catalogue boards: feeds and exports

    def parse_feed(self, response, feed_url: str):
        try:
            listing = read_listing(response.body, feed_url)
        except NotABoard as exc:
            self.reject_listing(response, f"not a notice board ({media_type(response) or 'no type'}): {exc}"[:480])
            return
        self.crawler.stats.inc_value(
            "mendel/boards/ofn" if listing.layout == "ofn" else f"mendel/boards/export_{listing.layout}"
        )
        self.listing_read(feed_url)
        feed = listing.feed
        links, fetched = [], 0
        for item in listing.items:
            self.discovered += 1
            if item.notice is None:
                self.log_outcome(
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
            for request in self.attachment_requests(doc, feed_url, fetched):
                fetched += 1
                yield request
        self.record_links(feed_url, links)
        board = self.feed_boards.get(feed_url)
        if board is not None and board.publisher_ico and self.feeds_unread[board.publisher_ico] > 0:
            self.feeds_unread[board.publisher_ico] -= 1
            if not self.feeds_unread[board.publisher_ico]:
                for html_board in self.waiting_for_feed.pop(board.publisher_ico, []):
                    yield self.html_board_request(html_board)

    def attachment_requests(self, doc: dict, listing: str, fetched: int):
        """The requests for a notice's attachments not fetched (nor deferred) yet in this run (each listed either
        way), at most ``max_attachments`` per board (``fetched`` so far), each within its host's budget (else
        deferred)."""
        for number, attachment in enumerate(doc["attachments"]):
            self.listed(listing, attachment["url"])
            url = self.fetch_url(attachment["url"])
            if url in self.seen or url in self.deferred:
                continue
            if self.max_attachments is not None and fetched >= self.max_attachments:
                self.crawler.stats.inc_value("mendel/attachments_over_limit")
                continue
            if not self.held_back(url) and not self.not_due(url) and not self.within_budget(attachment["url"]):
                self.defer(url, attachment["url"])
                continue
            fetched += 1
            self.seen.add(url)
            yield self.document_request(
                url,
                self.parse_attachment,
                cb_kwargs={"notice": doc, "attachment": attachment, "number": number, "listing": listing},
            )

    # ---------------------------------------------------------------- the budget per host and run

    def count_request(self, published_url: str, requests: int = 1) -> None:
        """Count requests to the host that published ``published_url`` (its robots.txt too, on the first)."""
        host = url_host(published_url)
        self.host_requests[host] += requests + (0 if host in self.host_requests else 1)

    def within_budget(self, published_url: str) -> bool:
        """Whether one more request to the URL's host fits this run's budget (counted when it does)."""
        host = url_host(published_url)
        if (
            self.host_budget is not None
            and self.host_requests[host] + (host not in self.host_requests) >= self.host_budget
        ):
            return False
        self.count_request(published_url)
        return True

    def defer(self, url: str, published_url: str) -> None:
        """An attachment over its host's budget: not requested in this run; logged deferred, the next run asks
        for it first."""
        self.deferred.add(url)
        host = url_host(published_url)
        self.crawler.stats.inc_value("mendel/boards/attachments_deferred")
        if host not in self.hosts_over_budget:
            self.hosts_over_budget.add(host)
            self.crawler.stats.inc_value("mendel/boards/hosts_over_budget")
        # Logged off the reactor thread, with the board's links (record_links): a row each, in one transaction.
        self.crawler.stats.inc_value(f"mendel/outcome/{crawlstate.DEFERRED}")
        self._deferred_rows.append(
            (
                url,
                f"deferred: {host} had its budget of {self.host_budget} requests in this "
                "run; the next run asks for it first"[:500],
            )
        )

    def carried_over_requests(self) -> list:
        """The attachments earlier runs deferred, in the order they were deferred, each with what its notice's
        documents and links say (``notice_attachments``): requested first in this run, within the budget —
        counted before any attachment a listing of this run names; the rest are deferred again."""
        with self._connect() as conn:
            waiting = crawlstate.known_deferred(conn, self.source)
            if not waiting:
                return []
            rows = conn.execute(
                "SELECT DISTINCT ON (a.attachment_doc_id) a.attachment_doc_id, a.name, a.position, a.board,"
                " n.doc_id, n.title, n.citation, n.published FROM notice_attachments a"
                " JOIN documents n ON n.doc_id = a.notice_doc_id ORDER BY a.attachment_doc_id, a.seen_at DESC"
            ).fetchall()
        by_url = {fetch_url(row[0], self.rebase): row for row in rows}
        requests = []
        for url in waiting:
            row = by_url.get(url)
            if row is None or url in self.seen or url in self.deferred:
                continue  # no notice links it any more: a listing that names it again fetches it as any other
            published, name, position, listing, notice_id, title, citation, day = row
            self.fetch_url(published)  # paced as the host that published it
            if self.held_back(url):  # gone meanwhile: logged as held back, no request
                self.seen.add(url)
                self.document_request(url, self.parse_attachment)
                continue
            if not self.within_budget(published):
                self.defer(url, published)
                continue
            self.seen.add(url)
            self.crawler.stats.inc_value("mendel/boards/attachments_carried_over")
            notice = {
                "doc_id": notice_id,
                "title": title,
                "citation": citation,
                "published": day.isoformat() if day else None,
            }
            requests.append(
                self.document_request(
                    url,
                    self.parse_attachment,
                    priority=1,
                    cb_kwargs={
                        "notice": notice,
                        "attachment": {"url": published, "name": name},
                        "number": position,
                        "listing": listing,
                    },
                )
            )
        return requests

    def parse_attachment(self, response, notice: dict, attachment: dict, number: int, listing: str | None = None):
        if self.handle_not_ok(response):
            return
        declared = media_type(response)
        kind = sniff_document_type(response.body, declared)
        if kind is None:
            self.log_outcome(
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

    # ---------------------------------------------------------------- HTML boards

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
        feed = {
            "@context": OFN_CONTEXT,
            "stránka": board.url,
            "provozovatel": {"typ": "Osoba", "ičo": board.publisher_ico},
        }
        links, fetched = [], 0
        for index, row in enumerate(select(response, rules["row"])):
            self.discovered += 1
            notice = html_notice(row, rules, board.url)
            if notice is None:
                self.log_outcome(
                    f"{board.url}#{index}",
                    "quarantined",
                    status=response.status,
                    reason=f"notice row {index} has no title ({rules['title']!r})",
                )
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
                self.log_outcome(
                    doc["url"], "unchanged", status=response.status, reason=f"the notice of {owner}: {known[0]}"[:500]
                )
                self.crawler.stats.inc_value("mendel/boards/notices_confirmed")
                if known[1] or owner in self.feed_boards:
                    self.crawler.stats.inc_value("mendel/boards/notices_from_feed")
                continue
            if known is not None:
                doc["doc_id"] = known[0]
            self.notice_ids[doc["url"]] = (doc["doc_id"], False)
            self.notice_owners[doc["url"]] = board.url
            doc["extra"]["board_key"] = board.key
            doc["extra"]["rules_from"] = board.rules_from  # "cms:{system}@{version}" or the list entry's own
            self.listed(board.url, doc["doc_id"])
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
                listing=board.url,
            )
            for request in self.attachment_requests(doc, board.url, fetched):
                fetched += 1
                yield request
        self.record_links(board.url, links)

    # ---------------------------------------------------------------- article APIs (obec Blešno)

    def parse_article_ids(self, response, board: Board):
        self.crawler.stats.inc_value("mendel/boards/article_api")
        ids = response.json()
        if not isinstance(ids, list):
            self.reject_listing(response, "article ids are not a JSON list")
            return
        self.listing_read(board.url)
        base = urljoin(board.url, "/")
        articles = list(dict.fromkeys(a for a in ids if isinstance(a, str) and a))
        known = self.known_article_pdfs(board, articles)
        for article in articles:
            url = self.fetch_url(f"{base}articles/{quote(article)}/assets?type=references")
            if self.article_not_due(board, url, known.get(article, [])):
                continue
            self.count_request(board.url)  # a listing: counted, never deferred
            yield self.listing_request(
                url, self.parse_article_assets, listing=board.url, cb_kwargs={"board": board, "article": article}
            )

    def known_article_pdfs(self, board: Board, articles: list[str]) -> dict[str, list[tuple[str, str]]]:
        """Article → (doc_id, url) of the PDFs its asset list named when it was last read — the board's active
        documents ``{site}:{article}/{file}`` —, when the crawl revalidates (``revalidate_days``); else nothing."""
        if not self.revalidate_after or not articles:
            return {}
        prefix = board.key.removeprefix(API_KEY_PREFIX) + ":"
        with self._connect() as conn:
            rows = crawlstate.listing_documents(conn, self.source, board.url)
            self.quarantined = crawlstate.open_crawl_quarantine(conn, self.source)
        self.quarantined_folders = {url.rsplit("/", 1)[0] for url in self.quarantined}
        names, known = set(articles), {}
        for doc_id, url in rows:
            if not doc_id.startswith(prefix):
                continue
            rest = doc_id[len(prefix) :]
            # {article}/{file}: the longest article of the index the id starts with (an article id may hold "/")
            cuts = [i for i, char in enumerate(rest) if char == "/" and rest[:i] in names]
            if cuts:
                known.setdefault(rest[: cuts[-1]], []).append((doc_id, url))
        return known

    def article_not_due(self, board: Board, url: str, pdfs: list[tuple[str, str]]) -> bool:
        """Whether an article's asset list is not due: it answered within ``revalidate_after`` — every PDF it named
        when last read has its document and answered within it (the list is read with them: it is due when the
        first of them is) — and neither the list nor a URL beside its PDFs failed on its last try (a PDF of the list
        that is no document yet). Then it is not read in this run: logged ``unchanged`` without a status, the
        reason saying when it answered; its PDFs stay listed (the board's listing still names them: nothing is
        withdrawn) and are logged not due, as when the list is read."""
        if (
            not pdfs
            or url in self.quarantined
            or not all(self.not_due(pdf_url) for _, pdf_url in pdfs)
            or any(pdf_url.rsplit("/", 1)[0] in self.quarantined_folders for _, pdf_url in pdfs)
        ):
            return False
        answered = min(self.confirmed[pdf_url] for _, pdf_url in pdfs)
        self.discovered += 1
        self.crawler.stats.inc_value("mendel/boards/article_lists_not_due")
        self.log_outcome(
            url,
            "unchanged",
            reason=(
                f"not due: the article's asset list answered with its {len(pdfs)} PDF(s) {answered:%Y-%m-%d %H:%M} UTC;"
                f" read again {self.revalidate_after.days} days after"
            ),
        )
        for doc_id, pdf_url in pdfs:
            self.listed(board.url, doc_id)
            self.seen.add(pdf_url)
            self.document_request(pdf_url, self.parse_site_pdf)  # not due: logged unchanged, no request
        return True

    def parse_article_assets(self, response, board: Board, article: str):
        refs = response.json()
        if not isinstance(refs, list):
            self.reject_listing(response, "article assets are not a JSON list")
            return
        if response.url in self.quarantined and self.outage is None:
            # It failed on its last try and answers again: not held for a failed list any more (article_not_due).
            self.quarantined.discard(response.url)
            crawlstate.resolve_crawl_quarantine(
                self._outcome_connection(),
                run_id=self.settings.get("MENDEL_RUN_ID"),
                source=self.source,
                urls=[response.url],
            )
        site = board.key.removeprefix(API_KEY_PREFIX)
        for ref in refs:
            if not isinstance(ref, dict) or not str(ref.get("name", "")).lower().endswith(".pdf"):
                continue
            url = self.fetch_url(response.urljoin(ref.get("url") or ""))
            if not ref.get("url") or url in self.seen:
                continue
            self.seen.add(url)
            if not self.not_due(url):
                self.count_request(board.url)  # an article's PDF: counted, not deferred (no notice links it)
            file_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or ref["name"]
            doc_id = f"{site}:{article}/{file_name}"
            self.listed(board.url, doc_id)
            yield self.document_request(
                url, self.parse_site_pdf, cb_kwargs={"board": board, "doc_id": doc_id, "file": file_name}
            )

    def parse_site_pdf(self, response, board: Board, doc_id: str, file: str):
        if self.handle_not_ok(response):
            return
        if not response.body.startswith(b"%PDF"):
            self.log_outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"expected a PDF, got {media_type(response) or 'unknown type'}",
            )
            return
        title = humanise_file_name(file)
        yield FetchedDocument(
            source=self.source,
            doc_id=doc_id,
            url=response.url,
            body=response.body,
            content_type="application/pdf",
            title=f"{title} ({board.name})" if board.name else title,
            doc_type="municipal_document",
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"board_key": board.key},
            listing=board.url,
        )
