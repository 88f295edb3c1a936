"""Rendering JavaScript boards: scrapy-playwright with Debian's Chromium, bounded and paced like every request.

Only requests that ask for it (meta ``playwright``) are rendered; everything else (robots.txt, feeds, static pages,
attachments) goes through Scrapy's own HTTP handler, paced per host (:mod:`crawlers.host_pacing`).
"""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urlsplit

from playwright.async_api import Request as PlaywrightRequest
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from scrapy.exceptions import DownloadTimeoutError
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

from crawlers.host_pacing import PACE_HOST, UNPACED, crawler_pacer, url_host

RENDER_TIMEOUT_MS = 30_000
# What Chromium need not fetch to show a board's notices (the page, its scripts and their data are fetched).
BROWSER_BLOCKED = frozenset({"image", "media", "font", "stylesheet", "manifest", "texttrack"})


class BoundedPlaywrightDownloadHandler(ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright with the crawl's download timeout on every rendered request, and per-host pacing for
    everything — Scrapy's plain requests and every request Chromium makes. Playwright and Chromium start with the
    first rendered request: a crawl that renders nothing never starts them.

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
        # A profile's own Chromium switches (the demo's host resolver rules) after the crawl's launch options.
        extra = crawler.settings.getlist("MENDEL_CHROMIUM_ARGS")
        if extra:
            options = self.config.launch_options
            options["args"] = [*options.get("args", []), *extra]
        self.pacer = crawler_pacer(crawler, crawler.settings.getfloat("DOWNLOAD_DELAY"))
        self.abort_request = self.admit_browser_request
        self._start_lock = asyncio.Lock()
        # host → (Chromium's request to it still unanswered, set when it is answered)
        self._browser_in_flight: dict[str, tuple[PlaywrightRequest, asyncio.Event]] = {}

    async def _maybe_launch_in_thread(self) -> None:
        """Not when the engine starts: with the first rendered request (:meth:`_start_browser`)."""

    def _engine_started(self):
        return None

    async def _start_browser(self) -> None:
        async with self._start_lock:
            if getattr(self, "browser_provider", None) is None:
                await self._launch()
        await self._maybe_launch_browser()

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
        await self._start_browser()  # starting Chromium (once) is not part of any page's time
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


async def _close_page(page, timeout: float = 30.0) -> None:
    if page is None:
        return
    try:
        await asyncio.wait_for(page.close(), timeout=timeout)
    except Exception as exc:  # a wedged page: nothing more to do than say so
        logging.getLogger(__name__).warning("could not close a Chromium page: %s: %s", type(exc).__name__, exc)
