"""Česká národní banka (www.cnb.cz): regulatory listing pages (``.page-cnt``) → the documents they link.

Each configured listing (vyhlášky, úřední sdělení, dohledová sdělení a benchmarky, pravomocná rozhodnutí) is a
complete listing: every link in its ``div.page-cnt`` is a document, fetched conditionally — a PDF (checked by its
signature) or an HTML page — with the link text as its title, the ``span.date`` next to it as its date (a full
``d. m. yyyy`` date becomes ``published``; a bare year is kept as ``year``) and the item's ``data-category``.
Further pages of a listing (``a[rel=next]``) are followed. A document that disappears from a listing read in
full is marked withdrawn. ``doc_id`` is ``cnb:`` + the document's path on cnb.cz, the same in the mirror.
A link that answers 404 is logged (quarantined, ``HTTP 404``), never dropped.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, media_type, rebase_url, response_header
from mendel.czech.dates import find_numeric_date

DOCUMENT_SUFFIXES = (".pdf", ".docx", ".xlsx", ".zip")
_YEAR = re.compile(r"\b(19|20)\d\d\b")


def listing_date(text: str | None) -> tuple[str | None, int | None]:
    """(ISO date, year) from a listing's date text: ``20. 1. 2025`` → both; ``2025`` → (None, 2025)."""
    text = (text or "").strip()
    day = find_numeric_date(text)
    if day:
        return day.isoformat(), day.year
    year = _YEAR.search(text)
    return None, int(year.group(0)) if year else None


def document_id(url: str) -> str:
    return "cnb:" + urlsplit(url).path


class CnbSpider(MendelSpider):
    name = "cnb"
    source = "cnb"

    def __init__(self, listings: str, rebase: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.listing_urls = [u.strip() for u in str(listings).split(",") if u.strip()]
        self.rebase = rebase or None
        self.seen: set[str] = set()

    async def start(self):
        for listing in self.listing_urls:
            yield self.listing_request(
                rebase_url(listing, self.rebase), self.parse_listing, listing=listing, cb_kwargs={"listing": listing}
            )

    def parse_listing(self, response, listing: str):
        content = response.css("div.page-cnt, .page-cnt")
        if not content:
            yield self.reject_listing(response, "no page content (.page-cnt)")
            return
        self.listing_read(listing)
        for link in content[0].css("a[href]"):
            href = link.attrib["href"].strip()
            if not href or href.startswith(("#", "mailto:", "javascript:")) or link.attrib.get("rel") == "next":
                continue
            url = response.urljoin(href)
            if url in self.seen:
                continue
            self.seen.add(url)
            item = link.xpath("ancestor::li[1]")
            published, year = listing_date(" ".join(item.css(".date ::text").getall()) if item else "")
            meta = {
                "title": re.sub(r"\s+", " ", " ".join(link.css("::text").getall())).strip() or None,
                "published": published,
                "year": year,
                "listing": listing,
                "category": item.attrib.get("data-category") if item else None,
            }
            self.listed(listing, document_id(url))
            yield self.document_request(url, self.parse_document, cb_kwargs={"listed": meta})
        next_page = response.css("a[rel=next]::attr(href)").get()
        if next_page:
            yield self.listing_request(
                response.urljoin(next_page), self.parse_listing, listing=listing, cb_kwargs={"listing": listing}
            )

    def parse_document(self, response, listed: dict):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        declared = media_type(response)
        is_pdf = response.body.startswith(b"%PDF")
        expects_pdf = urlsplit(response.url).path.lower().endswith(".pdf") or declared == "application/pdf"
        if expects_pdf and not is_pdf:
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"expected a PDF, got {declared or 'an unknown type'}",
            )
            return
        if (
            not is_pdf
            and declared not in ("text/html", "application/xhtml+xml")
            and not urlsplit(response.url).path.lower().endswith(DOCUMENT_SUFFIXES)
        ):
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"not a document: {declared or 'unknown type'}",
            )
            return
        yield FetchedDocument(
            source=self.source,
            doc_id=document_id(response.url),
            url=response.url,
            body=response.body,
            content_type="application/pdf" if is_pdf else (declared or "application/octet-stream"),
            title=listed.get("title"),
            doc_type="regulatory_document",
            published=listed.get("published"),
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"category": listed.get("category"), "year": listed.get("year"), "publisher": "Česká národní banka"},
            listing=listed.get("listing"),
        )
