"""Ústavní soud (NALUS, nalus.usoud.cz): the ASP.NET search form → result pages → ``GetText.aspx`` decision pages.

The search is a WebForms postback: the spider loads ``/Search/Search.aspx`` (which sets the ``ASP.NET_SessionId``
cookie and carries ``__VIEWSTATE`` / ``__EVENTVALIDATION``), posts the form back with ``FormRequest.from_response``
and the decision dates ``decidedFrom`` / ``decidedTo``, and follows the redirect to ``Results.aspx``. The hits
live in the session, so this spider keeps cookies (the project default is off). The banner
``Výsledky 1 - 20 z celkem 41`` gives the page count; pages are ``Results.aspx?page=N`` from 0. Each hit names
its text page in a ``ShowLink("…/Search/GetText.aspx?sz=2-866-16_2", …)`` call; that page is the stored document
(``lblRegistrySign`` = docket and date, ``lblDecisionForm`` = the decision form, ``td.DocContent`` = the text: the
výrok in ``<b>``, a dissent after ``<hr/>``; read into sections by mendel.extract.court_pages).
``doc_id`` is the ECLI listed with the hit, else ``nalus:{sz}``. Besides the date window, each file number of
``dockets`` is searched for on its own (the form's Spisová značka, in a session of its own) — unless its decision
text is held and answered less than ``docket_recheck_days`` ago (``known.decisions_confirmed``, read when the spider
opens): a first night, a file number not held (or held as a citation record only) and ``whole_listing`` search it.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta, timezone
from urllib.parse import parse_qs, urlsplit

import scrapy

from crawlers import settings as project
from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, media_type, response_header, spider_flag
from mendel.core.sources import NALUS_DOCKET_RECHECK_DAYS
from mendel.czech.dates import NUMERIC_DATE_PATTERN, date_of_match, format_numeric_date, iso
from mendel.law.identifiers import file_number, find_ecli

SEARCH_PATH = "/Search/Search.aspx"
FIELD = "ctl00$MainContent$"
COURT = "Ústavní soud"
_BANNER = re.compile(r"Výsledky\s+(\d+)\s*-\s*(\d+)\s+z\s+celkem\s+(\d+)")
_SHOW_LINK = re.compile(r"ShowLink\(\s*[\"']([^\"']*GetText\.aspx\?sz=[^\"']+)[\"']")
_SIGN = re.compile(r"^\s*(?P<docket>.+?)(?:\s+#\d+)?\s+ze dne\s+" + NUMERIC_DATE_PATTERN)


def form_date(iso_day: str) -> str:
    """``2018-09-18`` → ``18.9.2018``, as the NALUS form takes it."""
    return format_numeric_date(date.fromisoformat(iso_day), separator=".")


def decision_kind(form: str | None, sz: str) -> str | None:
    """The decision form shown by NALUS; a plenary opinion (``St-`` key) is one by its key alone."""
    if form and form.strip():
        return form.strip()
    return "Stanovisko pléna" if sz.startswith("St-") else None


def decision_title(kind: str | None, docket: str) -> str:
    label = (kind or "Rozhodnutí").strip()
    return f"{label[:1].upper()}{label[1:].lower()} Ústavního soudu sp. zn. {docket}"


def text_key(url: str) -> str:
    return (parse_qs(urlsplit(url).query).get("sz") or [""])[0]


class NalusSpider(MendelSpider):
    name = "nalus"
    source = "nalus"
    custom_settings = {
        "COOKIES_ENABLED": True,  # the hits live in the ASP.NET session
        "EXTENSIONS": project.DOCKETS_EXTENSIONS,
    }

    def __init__(
        self,
        base_url: str,
        date_from: str,
        date_to: str = "",
        page_size: int | str = 20,
        dockets: str | tuple = "",
        docket_recheck_days: int | str = NALUS_DOCKET_RECHECK_DAYS,
        whole_listing: bool | str = False,
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.date_from, self.date_to = date_from, date_to
        self.page_size = int(page_size)
        self.dockets = [d.strip() for d in (dockets.split(",") if isinstance(dockets, str) else dockets) if d.strip()]
        self.docket_recheck = timedelta(days=int(docket_recheck_days))
        self.whole_listing = spider_flag(whole_listing)
        self.seen: set[str] = set()

    def dockets_due(self, now: datetime | None = None) -> list[str]:
        """The file numbers this run searches for: every one with ``whole_listing``; else those whose decision text
        is not held, or last answered ``docket_recheck`` ago or more."""
        if self.whole_listing:
            return list(self.dockets)
        now = now or datetime.now(timezone.utc)
        due = []
        for docket in self.dockets:
            confirmed = self.known.decisions_confirmed.get(file_number(docket))
            if confirmed is None or now - confirmed >= self.docket_recheck:
                due.append(docket)
        return due

    async def start(self):
        dockets = self.dockets_due()
        self.crawler.stats.set_value("mendel/dockets_searched", len(dockets))
        self.crawler.stats.set_value("mendel/dockets_not_due", len(self.dockets) - len(dockets))
        # One search per session (the hits live in it): the date window in jar 0, each file number in a jar of its own.
        for jar, docket in enumerate([None, *dockets]):
            yield self.listing_request(
                self.base_url + SEARCH_PATH,
                self.parse_form,
                meta={"cookiejar": jar},
                cb_kwargs={"docket": docket},
                dont_filter=True,
            )

    def parse_form(self, response, docket: str | None = None):
        if not response.css("input[name=__VIEWSTATE]"):
            yield self.reject_listing(response, "no ASP.NET search form (__VIEWSTATE missing)")
            return
        by_date = docket is None
        formdata = {
            FIELD + "decidedFrom": form_date(self.date_from) if by_date and self.date_from else "",
            FIELD + "decidedTo": form_date(self.date_to) if by_date and self.date_to else "",
            FIELD + "citace": docket or "",
            FIELD + "resultsPageSize": str(self.page_size),
            FIELD + "nalezy": "on",
            FIELD + "usneseni": "on",
            FIELD + "stanoviska_plena": "on",
        }
        yield scrapy.FormRequest.from_response(
            response,
            formid="form1",
            formdata=formdata,
            clickdata={"name": FIELD + "but_search"},
            callback=self.parse_results,
            errback=self.on_listing_error,
            cb_kwargs={"page": 0},
            meta={"cookiejar": response.meta.get("cookiejar", 0)},
            dont_filter=True,
        )

    def parse_results(self, response, page: int):
        if response.css("#ctl00_MainContent_lbError"):
            return  # "no records for these criteria"
        banner = _BANNER.search(" ".join(response.css("body ::text").getall()))
        if banner is None:
            yield self.reject_listing(response, "no result banner (Výsledky … z celkem …)")
            return
        listed = None
        for row in response.css("tr"):
            detail = row.css("a[href*='ResultDetail.aspx']")
            if detail:
                cell = " ".join(t.strip() for t in row.css("td ::text").getall() if t.strip())
                listed = {
                    "docket": re.sub(r"\s+#\d+$", "", detail.css("::text").get("").strip()),
                    "ecli": find_ecli(cell, "US"),
                }
                continue
            link = _SHOW_LINK.search(row.get())
            if link is None:
                continue
            url = response.urljoin(link.group(1))
            if url in self.seen:
                continue
            self.seen.add(url)
            yield self.document_request(url, self.parse_decision, cb_kwargs={"listed": listed or {}})
            listed = None
        first, last, total = (int(g) for g in banner.groups())
        if page == 0 and last >= first:
            pages = math.ceil(total / (last - first + 1))
            for number in range(1, pages):
                yield self.listing_request(
                    response.urljoin(f"Results.aspx?page={number}"),
                    self.parse_results,
                    cb_kwargs={"page": number},
                    meta={"cookiejar": response.meta.get("cookiejar", 0)},
                    dont_filter=True,
                )

    def parse_decision(self, response, listed: dict):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        sz = text_key(response.url)
        sign = _SIGN.match(" ".join(response.css("#lblRegistrySign ::text").getall()))
        text = " ".join(t.strip() for t in response.css("td.DocContent ::text").getall() if t.strip())
        if not sign or not text:
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason="no decision on the page (lblRegistrySign or DocContent missing)",
            )
            return
        docket = file_number(sign.group("docket"))  # NALUS's "II.ÚS 866/16" -> "II. ÚS 866/16"
        kind = decision_kind(response.css("#lblDecisionForm ::text").get(), sz)
        ecli = listed.get("ecli")
        yield FetchedDocument(
            source=self.source,
            doc_id=ecli or f"nalus:{sz}",
            url=response.url,
            body=response.body,
            content_type=media_type(response) or "text/html",
            title=decision_title(kind, docket),
            doc_type="decision",
            citation=docket,
            published=iso(date_of_match(sign)),
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"court": COURT, "ecli": ecli, "decision_type": kind, "sz": sz},
        )
