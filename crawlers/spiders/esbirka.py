"""e-Sbírka: the chronological register per year → act detail → download links → the verified PDF.

Uses the public REST layout (`/esel-esbir-daver/...`); the base URL comes from settings, so the
same spider crawls the local mirror (demo) or the real host (production, with an API key header).
"""

from __future__ import annotations

from urllib.parse import quote

import scrapy
from scrapy.http import JsonRequest

from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider

API_PREFIX = "/esel-esbir-daver"
DEFAULT_CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


def stale_url_path(stale_url: str) -> str:
    """`/sb/2024/87` → `%2Fsb%2F2024%2F87`, as the API expects it in one path segment."""
    return quote(stale_url, safe="")


def eli_for_stale_url(stale_url: str) -> str:
    parts = stale_url.strip("/").split("/")
    return "/eli/cz/" + "/".join(parts[:3])


class EsbirkaSpider(MendelSpider):
    name = "esbirka"
    source = "esbirka"

    def __init__(self, base_url: str, years: str = "2024,2025", api_key: str | None = None, acts: str = "",
                 *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_acts = {a.strip() for a in acts.split(",") if a.strip()}
        self.api = base_url.rstrip("/") + API_PREFIX
        self.years = [int(y) for y in str(years).split(",") if y.strip()]
        self.api_headers = {"esel-api-access-key": api_key} if api_key else {}

    async def start(self):
        self.load_validators()
        for year in self.years:
            yield JsonRequest(
                f"{self.api}/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich",
                data=year, headers=self.api_headers, callback=self.parse_register, cb_kwargs={"year": year},
            )

    def parse_register(self, response, year: int):
        for month in response.json().get("dokumentySbirkyVMesici", []):
            for collection in month.get("sbirkyDokumentuSbirky", []):
                if collection.get("sadaDokumentuKod") not in (None, "sb"):
                    continue
                for act in collection.get("dokumentySbirkyRejstrikInfo", []):
                    stale_url = act["staleUrl"]
                    if self.allowed_acts and stale_url not in self.allowed_acts:
                        continue
                    yield scrapy.Request(
                        f"{self.api}/dokumenty-sbirky/{stale_url_path(stale_url)}", headers=self.api_headers,
                        callback=self.parse_detail, cb_kwargs={"listing": act},
                    )

    def parse_detail(self, response, listing: dict):
        detail = {**listing, **response.json()}
        yield scrapy.Request(
            f"{self.api}/dokumenty-sbirky/{stale_url_path(detail['staleUrl'])}/odkazy-ke-stazeni",
            headers=self.api_headers, callback=self.parse_download_links, cb_kwargs={"detail": detail},
        )

    def parse_download_links(self, response, detail: dict):
        links = response.json()
        # The verified (legally binding) PDF when there is one; otherwise the consolidated DOCX export.
        link = (links.get("overeneZneni") or {}).get("odkazPdf")
        expected = "pdf"
        if not link:
            link, expected = links.get("informativniZneniDocx"), "docx"
        if not link:
            self.discovered += 1
            self.log_outcome(response.url, "quarantined", status=response.status, reason="no downloadable text")
            return
        file_name = link.get("nazevDokumentu") or f"{link['dokumentId']}.{expected}"
        url = f"{self.api}/souborove-dokumenty/{link['dokumentId']}/ORIGINAL/STAHNI/{quote(file_name)}"
        yield self.document_request(url, self.parse_document, cb_kwargs={"detail": detail, "expected": expected})

    def parse_document(self, response, detail: dict, expected: str = "pdf"):
        if self.handle_not_ok(response):
            return
        content_type = response.headers.get("Content-Type", b"").decode("latin-1").split(";")[0].strip()
        magic = b"%PDF" if expected == "pdf" else b"PK\x03\x04"
        if not response.body.startswith(magic):
            self.log_outcome(response.url, "quarantined", status=response.status,
                             reason=f"expected {expected.upper()}, got {content_type or 'unknown type'}")
            return
        published = detail.get("datumCasVyhlaseni") or detail.get("datum")
        yield FetchedDocument(
            source=self.source,
            doc_id=eli_for_stale_url(detail["staleUrl"]),
            url=response.url,
            body=response.body,
            content_type=content_type or DEFAULT_CONTENT_TYPES[expected],
            title=detail.get("nazev"),
            doc_type="law" if expected == "pdf" else "law_consolidated",
            citation=detail.get("zkracenaCitace"),
            published=published[:10] if published else None,
            http_status=response.status,
            etag=_header(response, b"ETag"),
            last_modified=_header(response, b"Last-Modified"),
        )


def _header(response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None
