"""The board crawl: every notice board of the register, each treated as its own site, in one crawl — one module per
kind of board over a shared base (:mod:`~crawlers.spiders.boards.base`): catalogue feeds and exports, HTML boards by
their CMS's rules, JavaScript boards, site APIs. Politeness per board host: one request at a time, a delay apart
(``MENDEL_BOARD_DOWNLOAD_DELAY``: 1 s in production, 0.2 s between the demo mirror's made-up hosts;
:mod:`crawlers.host_pacing`), robots.txt obeyed, and a budget of requests per host
and run (:mod:`crawlers.middlewares.host_budget`)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping

from scrapy import signals

from crawlers import settings as project
from crawlers.handlers.browser import RENDER_TIMEOUT_MS
from crawlers.host_pacing import UNPACED_SLOT
from crawlers.items import ListingBudget
from crawlers.spiders.boards.catalogue import CatalogueBoards
from crawlers.spiders.boards.html import html_notice, html_notice_id, select
from crawlers.spiders.boards.javascript import BROWSER_PAGES, BROWSER_SLOT, CHROMIUM, JavaScriptBoards
from crawlers.spiders.boards.notices import czech_text, notice_document, sniff_document_type
from crawlers.spiders.boards.site_api import SiteApiBoards
from mendel.crawl.boards.register import read_boards_file

# One request per board host a delay apart. Production's is 1 s. In the demo every board host is the local mirror
# under a made-up name (crawlers.demo) and nothing else is reached: its hosts are paced the same way, a shorter
# delay apart (the crawl-scale benchmarks set production's). MENDEL_BOARD_DOWNLOAD_DELAY sets it in either profile.
PRODUCTION_BOARD_DELAY = 1.0
DEMO_BOARD_DELAY = 0.2


def board_delay(environ: Mapping[str, str]) -> float:
    """The delay between two requests to one board host in this environment (seconds)."""
    configured = (environ.get("MENDEL_BOARD_DOWNLOAD_DELAY") or "").strip()
    if configured:
        return float(configured)
    production = environ.get("MENDEL_PROFILE", "demo") == "production"  # as mendel.core.config.Settings reads it
    return PRODUCTION_BOARD_DELAY if production else DEMO_BOARD_DELAY


BOARD_DELAY = board_delay(os.environ)
BOARD_CONCURRENCY = int(os.environ.get("MENDEL_BOARD_CONCURRENCY") or 128)
UNPACED_CONCURRENCY = 8  # requests a profile sends unpaced (the demo's mirror origin) at a time

__all__ = [
    "BoardsSpider",
    "czech_text",
    "html_notice",
    "html_notice_id",
    "notice_document",
    "select",
    "sniff_document_type",
]


class BoardsSpider(SiteApiBoards, JavaScriptBoards, CatalogueBoards):
    name = "boards"
    custom_settings = {
        "EXTENSIONS": project.BOARD_EXTENSIONS,
        "SPIDER_MIDDLEWARES": project.BOARD_SPIDER_MIDDLEWARES,
        "ITEM_PIPELINES": project.BOARD_ITEM_PIPELINES,
        # Playwright only for requests that ask for it (meta "playwright"), started with the first of them; others
        # go through Scrapy's own handler.
        "DOWNLOAD_HANDLERS": project.BOARD_DOWNLOAD_HANDLERS,
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
        # places from the plain requests. A board's robots.txt and attachments keep its host's spacing. Requests a
        # profile marks unpaced (one origin standing in for many hosts) share one slot without delay.
        "DOWNLOAD_SLOTS": {
            BROWSER_SLOT: {"concurrency": BROWSER_PAGES, "delay": 0},
            UNPACED_SLOT: {"concurrency": UNPACED_CONCURRENCY, "delay": 0},
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
        "SCHEDULER_PRIORITY_QUEUE": project.BOARD_SCHEDULER_PRIORITY_QUEUE,
        # Items of one response handled side by side: Scrapy starts this many asyncio tasks for every callback's
        # output, however few items it has; the records themselves go to worker threads (threaded_record).
        "CONCURRENT_ITEMS": 8,
        "REACTOR_THREADPOOL_MAXSIZE": 20,
        # Scrapy re-reads a callback's source (inspect + ast) for every response to warn about a generator that
        # returns a value; bound methods miss its cache, so at scale it cost the reactor more than parsing the
        # feeds. None of this spider's callbacks returns a value (tests/crawlers/middlewares/test_host_budget.py checks).
        "WARN_ON_GENERATOR_RETURN_VALUE": False,
        "LOG_FORMATTER": project.BOARD_LOG_FORMATTER,
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.feeds_unread: Counter = Counter()

    async def start(self):
        self.load_notice_ids()
        self.boards = read_boards_file(self.boards_file) if self.boards_file else list(self.known.boards)
        self.allow_board_hosts(self.boards)
        self.share_provider_hosts(self.boards)
        self.crawler.stats.set_value("mendel/boards/total", len(self.boards))
        # The budget: every board's listing counted first (they always go), then what earlier runs deferred.
        for board in self.boards:
            if board.readable:
                yield ListingBudget(url=board.url, requests=2 if board.javascript else 1)
        for request in self.carried_over_requests():
            yield request
        # An HTML board of a publisher whose feed this run reads waits for that feed: its notices are the feed's
        # (one document each, under the feed's ids), not new ones (see parse_html_board).
        self.feed_boards = {board.url: board for board in self.boards if board.is_catalogue}
        self.feeds_unread = Counter(b.publisher_ico for b in self.feed_boards.values() if b.publisher_ico)
        self.crawler.signals.connect(self.release_waiting_boards, signal=signals.spider_idle)
        # A site's article index leads a chain of requests to one paced host (the index, each article's asset list,
        # its PDFs: obec Blešno's 34, one a second): asked for first, the chain runs beside the feeds' notices
        # instead of waiting behind them (Scrapy takes no more start requests while its downloader and item
        # pipeline are full of the feeds).
        for board in sorted(self.boards, key=lambda board: board.kind != "article_api"):
            if board.is_catalogue:
                yield self.feed_request(board)
            elif board.kind == "article_api":
                yield self.article_index_request(board)
            elif not board.rules:
                yield self.skip_board_without_rules(board)
            elif board.publisher_ico and self.feeds_unread[board.publisher_ico]:
                self.waiting_for_feed.setdefault(board.publisher_ico, []).append(board)
            else:
                yield self.html_board_request(board)
