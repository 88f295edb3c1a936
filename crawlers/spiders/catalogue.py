"""The register crawl: the national catalogue's notice-board datasets (NKOD's SPARQL endpoint, paged with
LIMIT/OFFSET: mendel.crawl.boards.catalogue.nkod_query), and the maintained list of boards when a URL names it —
fetched like every other byte, with the crawl's politeness, retries and (in production) host guard.

Each page's rows become a :class:`crawlers.items.CataloguePage` (``last`` on the page after which none follows), the
list a :class:`crawlers.items.BoardList`; ``python -m crawlers.register_crawl`` exports them as JSON lines for the
register step. A page or list that can't be read ends the crawl as failed, with the reason (nothing is registered
from half a register).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import scrapy
from scrapy.exceptions import CloseSpider

from crawlers import settings as project
from crawlers.items import BoardList, CataloguePage
from crawlers.middlewares.host_guard import configured_hosts
from mendel.crawl.boards.board import RegistryError
from mendel.crawl.boards.catalogue import NKOD_PAGE_SIZE, nkod_query, page_bindings

FAILED = "mendel/register/failed"  # the stat that says why the register could not be read


class CatalogueSpider(scrapy.Spider):
    name = "board_register"
    custom_settings = {"EXTENSIONS": project.CATALOGUE_EXTENSIONS, "ITEM_PIPELINES": project.CATALOGUE_ITEM_PIPELINES}

    def __init__(self, sparql_url: str, board_list: str = "", page_size: int | str = NKOD_PAGE_SIZE, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sparql_url = sparql_url
        self.board_list = board_list or ""
        self.page_size = int(page_size)
        self.allowed_hosts = configured_hosts({"sparql_url": sparql_url, "board_list": self.board_list})

    async def start(self):
        yield self.page_request(0)
        if self.board_list:
            yield scrapy.Request(self.board_list, callback=self.parse_list, errback=self.failed, dont_filter=True)

    def page_request(self, offset: int) -> scrapy.Request:
        query = urlencode({"query": nkod_query(self.page_size, offset)})
        return scrapy.Request(
            f"{self.sparql_url}?{query}",
            headers={"Accept": "application/sparql-results+json"},
            callback=self.parse_page,
            errback=self.failed,
            cb_kwargs={"offset": offset},
            dont_filter=True,
        )

    def parse_page(self, response, offset: int):
        try:
            rows = page_bindings(json.loads(response.body))
        except (ValueError, UnicodeDecodeError, RegistryError) as exc:
            self.fail(f"NKOD query failed at offset {offset}: {type(exc).__name__}: {exc}")
        last = len(rows) < self.page_size
        yield CataloguePage(offset=offset, rows=rows, last=last)
        if not last:
            yield self.page_request(offset + self.page_size)

    def parse_list(self, response):
        try:
            text = response.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(f"HTML board list {self.board_list}: {exc}")
        yield BoardList(location=self.board_list, text=text)

    def failed(self, failure) -> None:
        request = failure.request
        what = "HTML board list" if request.url == self.board_list else "NKOD query"
        self.fail(f"{what} failed: {request.url}: {failure.type.__name__}: {failure.value}")

    def fail(self, reason: str) -> None:
        self.logger.error("the register could not be read: %s", reason)
        self.crawler.stats.set_value(FAILED, reason[:1000])
        raise CloseSpider("register_failed")
