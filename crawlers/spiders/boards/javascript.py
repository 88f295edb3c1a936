"""JavaScript boards: HTML boards whose notices a script inserts (``javascript: true``), rendered by Debian's
Chromium through scrapy-playwright (:mod:`crawlers.handlers.browser`) — only their pages; everything else
(robots.txt, feeds, static pages, attachments) is plain Scrapy. The page is read once the board says it is ready
(its ``ready`` rule, else its ``board`` rule), not after every load; its rows are read as any HTML board's."""

from __future__ import annotations

from scrapy_playwright.page import PageMethod

from crawlers.handlers.browser import RENDER_TIMEOUT_MS
from crawlers.spiders.boards.html import HtmlBoards
from mendel.crawl.boards.board import Board

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own browser downloads are never used
BROWSER_SLOT = "chromium"  # the download slot of every rendered page
BROWSER_PAGES = 4  # pages Chromium renders at a time


def playwright_selector(rule: str) -> str:
    return f"xpath={rule[6:]}" if rule.startswith("xpath:") else rule


class JavaScriptBoards(HtmlBoards):
    def board_page_meta(self, board: Board) -> dict:
        if not board.javascript:
            return super().board_page_meta(board)
        ready = board.rules.get("ready") or board.rules["board"]
        # The page's HTML, then its script's work: wait for the board to say it is ready, not for every load.
        return {
            "playwright": True,
            "playwright_context": "boards",
            "download_slot": BROWSER_SLOT,
            "autothrottle_dont_adjust_delay": True,
            "playwright_page_goto_kwargs": {"wait_until": "domcontentloaded"},
            "playwright_page_methods": [
                PageMethod("wait_for_selector", playwright_selector(ready), timeout=RENDER_TIMEOUT_MS)
            ],
        }
