"""Nejvyšší soud (rozhodnuti.nsoud.cz): search by date → result pages → decision pages.

The search is the Domino full-text view ``$$WebSearch1?SearchView&Query=...`` with a date range on
``[datum_predani_na_web]`` (the day a decision was put on the web, so a nightly run asks for the last days only) or
on ``[datum_rozhodnuti]`` (a decision the site gives no web date). Results sit in ``table#tabl`` (``a.odk``
links), further pages behind a "Další" link. Each decision page (``WebSearch/{UNID}?openDocument``) is the stored
document: its HTML carries the header (``td.left-part`` / ``td.right-part``: court, file number, dates, type,
keywords, the provisions it names, category; the site's labels or the Sbírka's) and the full text; ``doc_id`` is
the ECLI where the page gives one, else ``nsoud:{UNID}`` — an ECLI is never built from the file number.

A night without a window of its own searches from the last complete search minus the production look-back
(mendel.crawl.listing_windows): the whole window only on a first night or with ``MENDEL_NSOUD_WHOLE``.
"""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import quote

from crawlers import settings as project
from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, media_type, response_header, spider_flag
from mendel.core.sources import SOURCES
from mendel.crawl.listing_windows import incremental_start
from mendel.czech.dates import find_numeric_date, format_numeric_date, iso
from mendel.extract.court_pages import keyword_values, listed_values

NSF = "/Judikatura/judikatura_ns.nsf"
COURT = "Nejvyšší soud"
COURT_GENITIVE = "Nejvyššího soudu"
_UNID = re.compile(r"/WebSearch/([0-9A-Fa-f]{32})")


def domino_date(iso_day: str) -> str:
    """``2025-01-20`` → ``20/01/2025``, the form Domino's query language expects."""
    return format_numeric_date(date.fromisoformat(iso_day), separator="/", zero_pad=True)


def search_query(date_from: str, date_to: str = "") -> str:
    """Decisions put on the web in the window, or decided in it (a decision the site gives no web date is found by
    its decision date)."""

    def window(field: str) -> str:
        clauses = [f"[{field}]>={domino_date(date_from)}"]
        if date_to:
            clauses.append(f"[{field}]<={domino_date(date_to)}")
        return "(" + " AND ".join(clauses) + ")"

    return f"{window('datum_predani_na_web')} OR {window('datum_rozhodnuti')}"


def search_url(base_url: str, query: str, start: int = 1, count: int = 20) -> str:
    return (
        f"{base_url.rstrip('/')}{NSF}/$$WebSearch1?SearchView&Query={quote(query, safe='')}"
        f"&SearchMax=1000&SearchOrder=4&Start={start}&Count={count}&pohled=1"
    )


def decision_title(decision_type: str | None, file_number: str, court: str = COURT) -> str:
    """``USNESENÍ``, ``29 NSČR 123/2024`` → ``Usnesení Nejvyššího soudu sp. zn. 29 NSČR 123/2024``; a decision of
    another court the site publishes: ``Rozsudek (Vrchní soud v Praze) sp. zn. 13 Cmo 115/2002``."""
    kind = (decision_type or "Rozhodnutí").strip().lower()
    kind = f"{kind[:1].upper()}{kind[1:]}"
    of_court = COURT_GENITIVE if court == COURT else f"({court})"
    return f"{kind} {of_court} sp. zn. {file_number}"


def header_fields(meta: dict[str, str]) -> dict:
    """What the decision's header says about it, under stable names (the NS site's labels, or the Sbírka's)."""
    return {
        "keywords": keyword_values(meta.get("Heslo") or meta.get("Hesla")),
        "provisions": listed_values(meta.get("Dotčené předpisy") or meta.get("Předpisy")),
        "category": meta.get("Kategorie rozhodnutí") or None,
        "decision_type": meta.get("Typ rozhodnutí") or None,
        "collection": meta.get("Publikováno ve sbírce pod číslem") or meta.get("Číslo") or None,
    }


def decision_metadata(response) -> dict[str, str]:
    """The ``td.left-part`` / ``td.right-part`` rows of a decision page, labels without the colon; a value shown on
    several lines keeps them."""
    meta = {}
    for row in response.css("tr"):
        label = " ".join(row.css("td.left-part ::text").getall()).strip().rstrip(":").strip()
        value = "\n".join(" ".join(t.split()) for t in row.css("td.right-part ::text").getall() if t.strip())
        if label and value:
            meta[label] = value
    return meta


SEARCH_LISTING = "nsoud:search"  # the search's result pages: one failed, the read is incomplete
OVERLAP_DAYS = SOURCES["nsoud"].window.production_lookback_days


class NsoudSpider(MendelSpider):
    name = "nsoud"
    source = "nsoud"
    custom_settings = {
        "EXTENSIONS": project.LISTING_WINDOW_EXTENSIONS,
        "ITEM_PIPELINES": project.LISTING_WINDOW_ITEM_PIPELINES,
    }

    def __init__(
        self,
        base_url: str,
        date_from: str,
        date_to: str = "",
        page_size: int | str = 20,
        incremental: bool | str = False,
        whole_listing: bool | str = False,
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.date_from, self.date_to = date_from, date_to
        # No window set for the run: search from the last complete search minus the look-back (listing_windows).
        self.incremental = spider_flag(incremental) and not spider_flag(whole_listing) and not date_to
        self.page_size = int(page_size)
        self.seen: set[str] = set()
        self.listing_window_read: tuple[str, str, date] | None = None  # what the search asked for, once started

    async def start(self):
        date_from = self.date_from
        if self.incremental:
            date_from = incremental_start(self.date_from, self.known.listing_covered_to, OVERLAP_DAYS)
        self.listing_window_read = (date_from, self.date_to, date.today())
        self.crawler.stats.set_value("mendel/listing_from", date_from)
        self.query = search_query(date_from, self.date_to)
        yield self.listing_request(
            search_url(self.base_url, self.query, 1, self.page_size), self.parse_results, listing=SEARCH_LISTING
        )

    def parse_results(self, response):
        for row in response.css("table#tabl tr"):
            href = row.css("a.odk::attr(href)").get()
            if not href:
                continue
            url = response.urljoin(href)
            if url in self.seen:
                continue
            self.seen.add(url)
            cells = [" ".join(t.strip() for t in td.css("::text").getall() if t.strip()) for td in row.css("td")]
            yield self.document_request(url, self.parse_decision, cb_kwargs={"listing": cells})
        next_href = response.xpath("//a[normalize-space(.)='Další']/@href").get()
        if next_href:
            yield self.listing_request(response.urljoin(next_href), self.parse_results, listing=SEARCH_LISTING)

    def parse_decision(self, response, listing: list[str]):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        meta = decision_metadata(response)
        file_number = meta.get("Spisová značka") or (listing[0] if listing else "")
        text = response.css("div#obsah ::text").getall()
        if not file_number or not text:
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason="no decision on the page (file number or text missing)",
            )
            return
        unid = _UNID.search(response.url)
        ecli = meta.get("ECLI") or ""
        court = meta.get("Soud") or COURT
        yield FetchedDocument(
            source=self.source,
            doc_id=ecli or f"nsoud:{unid.group(1).upper() if unid else file_number}",
            url=response.url,
            body=response.body,
            content_type=media_type(response) or "text/html",
            title=decision_title(meta.get("Typ rozhodnutí"), file_number, court),
            doc_type="decision",
            citation=file_number,
            published=iso(find_numeric_date(meta.get("Datum rozhodnutí"))),
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={
                "court": court,
                "ecli": ecli or None,  # only the court's own: never built from the file number
                "web_published": iso(find_numeric_date(meta.get("Zveřejněno na webu"))),
                "unid": unid.group(1).upper() if unid else None,
                **header_fields(meta),
            },
        )
