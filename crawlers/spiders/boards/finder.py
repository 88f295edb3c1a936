"""The board finder: a municipality's website → the page it labels as its notice board, the CMS the site runs, and a
first read of the board with that CMS's rule set. Yields one :class:`crawlers.items.BoardCandidate` per site (the
choices are :mod:`mendel.crawl.boards.finding`'s; what becomes of a candidate, :mod:`mendel.crawl.boards.candidates`'s).

Per site: its home page (or the board page a registry already names), the link labelled as the board, that page.
Politeness as the board crawl's: robots.txt, one request at a time per host a delay apart
(``MENDEL_BOARD_DOWNLOAD_DELAY``), shared hosting providers paced as one host. Run by ``python -m
crawlers.board_finder``; the sites come as a JSON list (``sites_file``) or, in the demo, from the mirror's list
(``sites_url``); ``skip_file`` names the list keys not to search (confirmed, or searched lately).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.http import TextResponse
from scrapy.utils.misc import build_from_crawler, load_object

from crawlers import settings as project
from crawlers.host_pacing import crawler_pacer, url_host
from crawlers.items import BoardCandidate
from crawlers.spiders.base import failure_outcome
from crawlers.spiders.boards import BOARD_DELAY
from crawlers.spiders.boards.html import html_notice, select
from mendel.crawl.boards.cms_rules import load_cms_rules, load_websites
from mendel.crawl.boards.finding import BoardLink, PageSigns, board_link, confidence, detect_cms, footer_pieces
from mendel.crawl.boards.hosting import shared_providers

FAILED = "mendel/finder/failed"  # the stat that says why the finder could not start
FOOTERS = "footer, #footer, .footer, #paticka, .paticka, #pata, .pata"


def page_signs(response) -> PageSigns:
    """A page's generator and author meta, and its footer's text with the hosts its links point to."""

    def meta(name: str) -> str:
        found = response.xpath(
            f"//meta[translate(@name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = '{name}']/@content"
        ).get()
        return " ".join((found or "").split())

    footer = response.css(FOOTERS)
    hosts = {url_host(response.urljoin(h)) for h in footer.css("a::attr(href)").getall()} - {url_host(response.url)}
    return PageSigns(
        generator=meta("generator"),
        author=meta("author"),
        footer=footer_pieces(footer.css("::text").getall(), sorted(h.removeprefix("www.") for h in hosts if h)),
    )


class BoardFinderSpider(scrapy.Spider):
    name = "board_finder"
    custom_settings = {
        "EXTENSIONS": project.FINDER_EXTENSIONS,
        "ITEM_PIPELINES": project.FINDER_ITEM_PIPELINES,
        "DOWNLOAD_HANDLERS": project.BOARD_DOWNLOAD_HANDLERS,  # paced per host (the board crawl's handler)
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": BOARD_DELAY,
        "AUTOTHROTTLE_ENABLED": BOARD_DELAY > 0,
        "AUTOTHROTTLE_START_DELAY": BOARD_DELAY,
        "DOWNLOAD_MAXSIZE": 16 * 1024 * 1024,  # a home page or a board page, never a file
        "RETRY_TIMES": 1,
    }

    def __init__(self, sites_file: str = "", sites_url: str = "", skip_file: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sites_file, self.sites_url, self.skip_file = sites_file, sites_url, skip_file
        self.rewriter = None
        self.allowed_hosts: frozenset[str] = frozenset()
        self.providers: frozenset[str] = frozenset()  # shared hosting providers, each one host to politeness
        self.cms_rules = load_cms_rules()
        self.websites = load_websites()

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        rewriter = crawler.settings.get("MENDEL_URL_REWRITER")
        if rewriter:
            spider.rewriter = build_from_crawler(load_object(rewriter), crawler)
        return spider

    # ---------------------------------------------------------------- requests

    def site_request(self, url: str, callback, site: dict, **cb_kwargs) -> scrapy.Request:
        host = url_host(url)
        self.allowed_hosts = self.allowed_hosts | {host}  # the sites' hosts and the boards they link to
        fetched = self.rewriter.fetch_url(url) if self.rewriter is not None else url
        meta = self.rewriter.request_meta(fetched) if self.rewriter is not None else {}
        return scrapy.Request(
            fetched,
            callback=callback,
            errback=self.unreachable,
            meta=dict(meta),
            cb_kwargs={"site": site, **cb_kwargs},
            dont_filter=True,
        )

    async def start(self):
        if self.sites_url:
            yield scrapy.Request(
                self.rewriter.fetch_url(self.sites_url) if self.rewriter else self.sites_url,
                callback=self.parse_site_list,
                errback=self.list_failed,
                dont_filter=True,
            )
            return
        for request in self.site_requests(json.loads(Path(self.sites_file).read_text(encoding="utf-8"))):
            yield request

    def parse_site_list(self, response):
        try:
            sites = json.loads(response.text)["sites"]
        except (ValueError, KeyError, TypeError) as exc:
            self.fail(f"site list {self.sites_url}: {type(exc).__name__}: {exc}")
        yield from self.site_requests(sites)

    def site_requests(self, sites: list[dict]):
        skip = set(json.loads(Path(self.skip_file).read_text(encoding="utf-8"))) if self.skip_file else set()
        sites = [s for s in sites if s["list_key"] not in skip]
        extra = tuple(self.settings.getlist("MENDEL_EXTRA_PUBLIC_SUFFIXES"))
        self.providers = shared_providers([(s["obec_kod"] or s["list_key"], s["start_url"]) for s in sites], extra)
        crawler_pacer(self.crawler, self.settings.getfloat("DOWNLOAD_DELAY")).share(self.providers)
        self.crawler.stats.set_value("mendel/finder/sites", len(sites))
        for site in sites:
            yield self.site_request(site["start_url"], self.parse_start, site)

    def list_failed(self, failure):
        self.fail(f"site list {self.sites_url}: {failure_outcome(failure)[1]}")

    def fail(self, reason: str):
        self.crawler.stats.set_value(FAILED, reason[:1000])
        raise CloseSpider("finder_failed")

    # ---------------------------------------------------------------- one site

    def parse_start(self, response, site: dict):
        if not isinstance(response, TextResponse):
            yield self.candidate(site, "unreachable", f"not an HTML page: {response.headers.get('Content-Type')}")
            return
        if site.get("known_board"):
            yield from self.parse_board(response, site, BoardLink(site["start_url"], "known", ""), [])
            return
        links = [
            (" ".join(a.css("::text").getall() + a.css("::attr(title)").getall()), a.attrib.get("href", ""))
            for a in response.css("a[href]")
        ]
        link = board_link(links, site["start_url"])
        if link is None:
            yield self.candidate(
                site,
                "no_board_link",
                f"none of the {len(links)} links of its home page is labelled as its notice board",
            )
            return
        yield self.site_request(link.url, self.parse_board, site, link=link, home=[page_signs(response)])

    def parse_board(self, response, site: dict, link: BoardLink, home: list[PageSigns]):
        if not isinstance(response, TextResponse):
            yield self.candidate(site, "unreachable", "the board link is not an HTML page", board_url=link.url)
            return
        cms, named_by = detect_cms([page_signs(response), *home], self.cms_rules, self.websites.get(site["site"]))
        system = self.cms_rules.system(cms)
        found = {
            "board_url": link.url,
            "cms": cms,
            "evidence": {"link": link.how, "label": link.label, "cms_named_by": named_by},
        }
        if system is None or not system.rules:
            why = f"no rule set for its CMS {system.name} ({cms})" if system else f"its CMS is not known: {named_by}"
            yield self.candidate(site, "no_rule_set", why, confidence=confidence(link.how, named_by, 0, 0), **found)
            return
        rules, rules_from = system.rules, f"cms:{cms}@{self.cms_rules.version}"
        if not select(response, rules["board"]):
            yield self.candidate(
                site,
                "layout_unknown",
                f"the {system.name} rule set's board list {rules['board']!r} is not on the page: its layout changed"
                " or is another",
                rules_from=rules_from,
                confidence=confidence(link.how, named_by, 0, 0),
                **found,
            )
            return
        notices = [html_notice(row, rules, link.url) for row in select(response, rules["row"])]
        read = [n for n in notices if n is not None]
        dated = [n for n in read if n.get("vyvěšení")]
        yield self.candidate(
            site,
            "confirmed" if dated else "no_dated_notices",
            f"{len(dated)} of {len(notices)} rows read with a title and a posting date",
            rules_from=rules_from,
            confidence=confidence(link.how, named_by, len(notices), len(dated)),
            notices_read=len(read),
            notices_dated=len(dated),
            **found,
        )

    def unreachable(self, failure):
        request = failure.request
        site = request.cb_kwargs["site"]
        link = request.cb_kwargs.get("link")
        what = "its board page" if link is not None else "its start page"
        yield self.candidate(
            site,
            "unreachable",
            f"{what} {urlsplit(request.url).path or '/'}: {failure_outcome(failure)[1]}",
            board_url=link.url if link is not None else None,
        )

    def candidate(self, site: dict, outcome: str, reason: str, **found) -> BoardCandidate:
        self.crawler.stats.inc_value(f"mendel/finder/{outcome}")
        return BoardCandidate(
            list_key=site["list_key"],
            site=site["site"],
            start_url=site["start_url"],
            name=site.get("name"),
            obec_kod=site.get("obec_kod"),
            outcome=outcome,
            reason=reason[:500],
            **found,
        )
