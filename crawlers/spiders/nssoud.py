"""Nejvyšší správní soud (vyhledavac.nssoud.cz): the search form → ``table#tresults`` → UTF-16-LE texts.

The form (``/Home/Index?formular=4``, ``form#findform``) is posted back with ``FormRequest.from_response`` (its
anti-forgery token included) and the decision-date condition: the condition row whose ``TechnickyNazev`` is
``datumvydanirozhodnuti`` gets ``HodnotaDatumACasOd`` / ``Do`` (``DD.MM.YYYY HH:MM:SS``). The answer lists the
first rows in ``table#tresults``; the rest come 20 at a time from ``POST /Home/MyResTRowsCont`` with the page
script's ``currParams`` / ``currViewId`` / ``currSort`` and ``pageNum`` 1, 2, … until an empty answer. Each row
links its text (``DokumentOriginal/Text/{id}``): plain text in UTF-16-LE, with the charset only in the
Content-Type header and usually no BOM. The stored document is those bytes as served; the spider decodes them to
check that they are text and to find an ECLI. Docket, date and decision form come from the result row.
"""

from __future__ import annotations

import codecs
import re
from datetime import date

import scrapy
from parsel import Selector

from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, response_header
from mendel.czech.dates import format_numeric_date, iso, parse_numeric_date
from mendel.law.identifiers import find_ecli, parse_file_number, reference_number

FORM_PATH = "/Home/Index?formular=4"
DATE_CONDITION = "datumvydanirozhodnuti"
COURT_GENITIVE = "Nejvyššího správního soudu"
_JS_VAR = r"var {name}\s*=\s*'((?:[^'\\]|\\.)*)'"
_DOCUMENT_ID = re.compile(r"/DokumentOriginal/(?:Text|Index)/(\d+)")


def condition_datetime(iso_day: str, end_of_day: bool = False) -> str:
    """``2017-01-01`` → ``01.01.2017 00:00:00`` (``23:59:59`` for the end of a range)."""
    day = format_numeric_date(date.fromisoformat(iso_day), separator=".", zero_pad=True)
    return f"{day} {'23:59:59' if end_of_day else '00:00:00'}"


def js_string(html_text: str, name: str) -> str | None:
    """The value of ``var name = '…';`` in a page script, unescaped."""
    m = re.search(_JS_VAR.format(name=re.escape(name)), html_text)
    return re.sub(r"\\(.)", r"\1", m.group(1)) if m else None


def decode_text(body: bytes, content_type: str) -> tuple[str, str]:
    """(text, codec) of a ``DokumentOriginal/Text`` answer: a BOM wins, then NUL-interleaving or a UTF-16 charset
    (little-endian, as the site sends it), then the declared charset, then UTF-8. ValueError when undecodable."""
    for bom, codec in (
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF8, "utf-8"),
    ):
        if body.startswith(bom):
            return body[len(bom) :].decode(codec), codec
    charset = ""
    m = re.search(r"charset=([\w-]+)", content_type or "", re.I)
    if m:
        charset = m.group(1).lower()
    sample = body[:4096]
    odd_nuls = sample[1::2].count(0)
    if charset.startswith("utf-16") or (len(sample) >= 4 and odd_nuls > len(sample) // 4):
        codec = "utf-16-be" if charset == "utf-16be" else "utf-16-le"
        return body.decode(codec), codec
    return body.decode(charset or "utf-8"), charset or "utf-8"


def clean_text(text: str) -> str:
    # The site's converter leaves U+001E where a dash belongs (case numbers) and other control characters.
    text = text.replace("\u001e", "-")
    return re.sub(r"[\u0000-\u0008\u000b\u000c\u000e-\u001f]", " ", text).strip()


def result_row(row) -> dict | None:
    """One ``<tr>`` of the result table: document id, date, docket, decision form, text URL."""
    cells = [
        re.sub(r"\s+", " ", " ".join(td.css("::text").getall()).replace("\u00a0", " ")).strip() for td in row.css("td")
    ]
    text_href = row.css("a[href*='DokumentOriginal/Text/']::attr(href)").get()
    doc_id = row.css("input[name$='.ID']::attr(value)").get()
    if not doc_id and text_href:
        m = _DOCUMENT_ID.search(text_href)
        doc_id = m.group(1) if m else None
    if not text_href or not doc_id:
        return None
    decided = next((iso(day) for day in map(parse_numeric_date, cells) if day), None)
    # "7 Afs 41/2013 - 8"; the special senates have no number ("Konf 4/2003 - 16", "Vol 6/2004").
    docket = next((c for c in cells if parse_file_number(c)), "")
    form = cells[5] if len(cells) > 5 and cells[5] else None
    return {"id": doc_id.strip(), "decided": decided, "docket": docket, "form": form, "href": text_href}


class NssoudSpider(MendelSpider):
    name = "nssoud"
    source = "nssoud"

    def __init__(self, base_url: str, date_from: str, date_to: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.date_from, self.date_to = date_from, date_to
        self.seen: set[str] = set()

    async def start(self):
        yield self.listing_request(self.base_url + FORM_PATH, self.parse_form)

    def parse_form(self, response):
        form = response.css("form#findform")
        prefix = next(
            (
                name[: -len(".TechnickyNazev")]
                for name, value in zip(
                    form.css("input[name$='.TechnickyNazev']::attr(name)").getall(),
                    form.css("input[name$='.TechnickyNazev']::attr(value)").getall(),
                )
                if value == DATE_CONDITION
            ),
            None,
        )
        if not form or prefix is None:
            yield self.reject_listing(response, f"no search form with a '{DATE_CONDITION}' condition")
            return
        value = f"{prefix}.vyhledavaciPodminkaHodnota[0]"
        formdata = {
            f"{value}.HodnotaDatumACasOd": condition_datetime(self.date_from) if self.date_from else "",
            f"{value}.HodnotaDatumACasDo": condition_datetime(self.date_to, True) if self.date_to else "",
        }
        yield scrapy.FormRequest.from_response(
            response,
            formid="findform",
            formdata=formdata,
            clickdata={"name": "btSubmit"},
            callback=self.parse_results,
            errback=self.on_listing_error,
            dont_filter=True,
        )

    def parse_results(self, response):
        table = response.css("table#tresults")
        if not table:
            yield self.reject_listing(response, "no result table (table#tresults)")
            return
        rows = table.css("tbody tr")
        yield from self.follow_rows(response, rows)
        more_url = js_string(response.text, "moreRowsUrl")
        if rows and more_url:
            state = {
                "url": response.urljoin(more_url),
                "vyhledavaciPodminky": js_string(response.text, "currParams") or "",
                "zobrazeniVysledkuId": js_string(response.text, "currViewId") or "",
                "resultOrder": js_string(response.text, "currSort") or "",
            }
            yield self.more_rows_request(state, 1)

    def more_rows_request(self, state: dict, page: int) -> scrapy.Request:
        formdata = {k: v for k, v in state.items() if k != "url"}
        formdata["pageNum"] = str(page)
        return scrapy.FormRequest(
            state["url"],
            formdata=formdata,
            callback=self.parse_more_rows,
            errback=self.on_listing_error,
            cb_kwargs={"state": state, "page": page},
            dont_filter=True,
        )

    def parse_more_rows(self, response, state: dict, page: int):
        # The answer is bare <tr> rows: parse them inside a table, or an HTML parser drops them.
        rows = Selector(text=f"<table><tbody>{response.text}</tbody></table>").css("tbody tr")
        if not rows:
            return
        yield from self.follow_rows(response, rows)
        yield self.more_rows_request(state, page + 1)

    def follow_rows(self, response, rows):
        for row in rows:
            listed = result_row(row)
            if listed is None:
                continue
            url = response.urljoin(listed["href"])
            if url in self.seen:
                continue
            self.seen.add(url)
            yield self.document_request(url, self.parse_text, cb_kwargs={"listed": listed})

    def parse_text(self, response, listed: dict):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        content_type = response_header(response, "Content-Type") or ""
        try:
            raw_text, codec = decode_text(response.body, content_type)
            text = clean_text(raw_text)
        except (UnicodeDecodeError, LookupError) as exc:
            yield self.outcome(response.url, "quarantined", status=response.status, reason=f"undecodable text: {exc}")
            return
        if not text:
            yield self.outcome(response.url, "quarantined", status=response.status, reason="empty decision text")
            return
        ecli = find_ecli(text, "NSS")
        # "7 Afs 41/2013 - 8" as the search shows it -> "7 Afs 41/2013-8" as decisions cite it
        docket = reference_number(listed["docket"]) if listed.get("docket") else None
        kind = (listed.get("form") or "Rozhodnutí").strip()
        yield FetchedDocument(
            source=self.source,
            doc_id=ecli or f"nssoud:{listed['id']}",
            url=response.url,
            body=response.body,
            # The bytes stay as served; the charset names the encoding they were read in (explicit byte order).
            content_type=f"text/plain; charset={codec}",
            title=f"{kind[:1].upper()}{kind[1:].lower()} {COURT_GENITIVE} sp. zn. {docket or listed['id']}",
            doc_type="decision",
            citation=docket,
            published=listed.get("decided"),
            http_status=response.status,
            etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={
                "court": "Nejvyšší správní soud",
                "ecli": ecli,
                "decision_type": listed.get("form"),
                "nss_document_id": listed["id"],
            },
        )
