"""Municipal notice boards (úřední desky) and municipal documents.

Two kinds of source:

- **OFN feeds** (the open formal norm "Úřední desky" 2021-07-20): one JSON-LD document per board listing its
  notices (``informace[]``). Each notice is stored as a document of its own: the notice's JSON object (with the
  feed's ``@context`` added when the notice has none, so it stands alone as JSON-LD), UTF-8,
  ``application/ld+json``; ``doc_id`` = the notice ``iri`` (or ``{feed iri}#{index}``). Every attachment
  (``dokument[].url``) is requested as a document of its own, linked to its notice in ``extra``.
  Notices carry no HTTP validators, so a re-run re-reads the feed and finds them ``unchanged`` by hash;
  attachments are conditional requests.
- **obec Blešno's site** (tomkre/obec-blesno: an Angular front end over a Spring REST backend): article ids
  (``/articles/ids?prefix=``) → each article's asset list (``/articles/{id}/assets?type=references``) → its
  PDFs, ``doc_id`` = ``blesno:{article}/{file}``.

URLs published by the sites (feed attachments, asset links) are absolute; ``rebase`` re-roots them onto the
local mirror in the demo profile (see :func:`crawlers.spiders.base.rebase_url`).
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, unquote, urlsplit

import scrapy

from crawlers.items import FetchedDocument
from crawlers.spiders.base import MendelSpider, media_type, rebase_url, response_header

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
DOCUMENT_MAGIC = {
    b"%PDF": "application/pdf",
    b"PK\x03\x04": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    b"\xd0\xcf\x11\xe0": "application/msword",
}


def czech_text(value) -> str | None:
    """An OFN multilingual text (``{"cs": "...", "en": ...}``) or a plain string → the Czech text."""
    if isinstance(value, dict):
        value = value.get("cs") or next((v for v in value.values() if isinstance(v, str) and v.strip()), None)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def ofn_date(value) -> str | None:
    """An OFN time instant (``{"typ": "Časový okamžik", "datum": "2020-06-29"}`` or ``datum_a_čas``) → ISO date."""
    if isinstance(value, dict):
        value = value.get("datum") or value.get("datum_a_čas")
    if isinstance(value, str) and _DATE.match(value):
        return value[:10]
    return None


def notice_document(feed: dict, notice: dict, index: int, feed_url: str) -> dict:
    """What to store for one notice of an OFN feed: ``doc_id``, ``url``, ``body`` and metadata."""
    feed_key = feed.get("iri") or feed_url
    doc_id = notice.get("iri") or f"{feed_key}#{index}"
    body = notice if "@context" in notice or "@context" not in feed else {"@context": feed["@context"], **notice}
    attachments = [{"url": d["url"], "name": czech_text(d.get("název"))}
                   for d in notice.get("dokument") or [] if isinstance(d, dict) and isinstance(d.get("url"), str)]
    return {
        "doc_id": doc_id,
        "url": notice.get("url") if isinstance(notice.get("url"), str) else doc_id,
        "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        "title": czech_text(notice.get("název")),
        "published": ofn_date(notice.get("vyvěšení")),
        "citation": notice.get("číslo_jednací") if isinstance(notice.get("číslo_jednací"), str) else None,
        "attachments": attachments,
        "extra": {"feed": feed_key, "index": index, "board": feed.get("stránka"),
                  "publisher_ico": (feed.get("provozovatel") or {}).get("ičo"),
                  "relevant_until": ofn_date(notice.get("relevantní_do")),
                  "file_mark": notice.get("spisová_značka"),
                  "attachments": [a["url"] for a in attachments]},
    }


def humanise_file_name(name: str) -> str:
    """``oznameni-o-cene-stocneho-pro-rok-2018.pdf`` → ``Oznameni o cene stocneho pro rok 2018``."""
    stem = unquote(name).rsplit(".", 1)[0].replace("-", " ").replace("_", " ").strip()
    return stem[:1].upper() + stem[1:]


def sniff_document_type(body: bytes, declared: str) -> str | None:
    """The media type of an attachment body, or None when it is not a document (an HTML error page...)."""
    for magic, kind in DOCUMENT_MAGIC.items():
        if body.startswith(magic):
            return declared if declared and declared not in ("application/octet-stream", "text/html") else kind
    head = body[:512].lstrip().lower()
    if declared == "text/html" or head.startswith((b"<!doctype html", b"<html")):
        return None
    return declared or "application/octet-stream"


class MunicipalSpider(MendelSpider):
    name = "municipal"
    source = "municipal"

    def __init__(self, feeds: str = "", blesno_url: str = "", rebase: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.feeds = [f.strip() for f in str(feeds).split(",") if f.strip()]
        self.blesno_url = (blesno_url or "").rstrip("/")
        self.rebase = rebase or None
        self.seen: set[str] = set()

    async def start(self):
        self.load_validators()
        for feed in self.feeds:
            yield scrapy.Request(rebase_url(feed, self.rebase), callback=self.parse_feed,
                                 errback=self.on_listing_error, cb_kwargs={"feed_url": feed}, dont_filter=True)
        if self.blesno_url:
            yield scrapy.Request(f"{self.blesno_url}/articles/ids?prefix=", callback=self.parse_article_ids,
                                 errback=self.on_listing_error)

    # ---------------------------------------------------------------- OFN feeds

    def parse_feed(self, response, feed_url: str):
        try:
            feed = response.json()
        except ValueError:
            feed = None
        if not isinstance(feed, dict) or not isinstance(feed.get("informace"), list):
            self.logger.error("not an OFN notice-board feed: %s", response.url)
            self.crawler.stats.inc_value("mendel/listing_failed")
            return
        for index, notice in enumerate(feed["informace"]):
            self.discovered += 1
            if not isinstance(notice, dict):
                self.log_outcome(f"{feed_url}#{index}", "quarantined", status=response.status,
                                 reason="notice is not a JSON object")
                continue
            doc = notice_document(feed, notice, index, feed_url)
            yield FetchedDocument(
                source=self.source, doc_id=doc["doc_id"], url=doc["url"], body=doc["body"],
                content_type="application/ld+json", title=doc["title"], doc_type="notice",
                citation=doc["citation"], published=doc["published"], http_status=response.status,
                extra=doc["extra"],
            )
            for number, attachment in enumerate(doc["attachments"]):
                url = rebase_url(attachment["url"], self.rebase)
                if url in self.seen:
                    continue
                self.seen.add(url)
                yield self.document_request(url, self.parse_attachment, cb_kwargs={
                    "notice": doc, "attachment": attachment, "number": number})

    def parse_attachment(self, response, notice: dict, attachment: dict, number: int):
        if self.handle_not_ok(response):
            return
        declared = media_type(response)
        kind = sniff_document_type(response.body, declared)
        if kind is None:
            self.log_outcome(response.url, "quarantined", status=response.status,
                             reason=f"expected a document, got {declared or 'unknown type'}")
            return
        name = attachment.get("name")
        title = notice["title"]
        if name:
            title = f"{title} – {name}" if title else name
        yield FetchedDocument(
            source=self.source, doc_id=attachment["url"], url=response.url, body=response.body, content_type=kind,
            title=title, doc_type="notice_attachment", citation=notice["citation"], published=notice["published"],
            http_status=response.status, etag=response_header(response, "ETag"),
            last_modified=response_header(response, "Last-Modified"),
            extra={"notice": notice["doc_id"], "attachment_index": number, "attachment_name": name},
        )

    # ---------------------------------------------------------------- obec Blešno

    def parse_article_ids(self, response):
        ids = response.json()
        for article in ids if isinstance(ids, list) else []:
            if isinstance(article, str) and article:
                yield scrapy.Request(f"{self.blesno_url}/articles/{quote(article)}/assets?type=references",
                                     callback=self.parse_article_assets, errback=self.on_listing_error,
                                     cb_kwargs={"article": article})

    def parse_article_assets(self, response, article: str):
        refs = response.json()
        for ref in refs if isinstance(refs, list) else []:
            if not isinstance(ref, dict) or not str(ref.get("name", "")).lower().endswith(".pdf"):
                continue
            url = rebase_url(response.urljoin(ref.get("url") or ""), self.rebase)
            if not ref.get("url") or url in self.seen:
                continue
            self.seen.add(url)
            file_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or ref["name"]
            yield self.document_request(url, self.parse_blesno_pdf, cb_kwargs={"article": article, "file": file_name})

    def parse_blesno_pdf(self, response, article: str, file: str):
        if self.handle_not_ok(response):
            return
        if not response.body.startswith(b"%PDF"):
            self.log_outcome(response.url, "quarantined", status=response.status,
                             reason=f"expected a PDF, got {media_type(response) or 'unknown type'}")
            return
        yield FetchedDocument(
            source=self.source, doc_id=f"blesno:{article}/{file}", url=response.url, body=response.body,
            content_type="application/pdf", title=f"{humanise_file_name(file)} (obec Blešno)",
            doc_type="municipal_document", http_status=response.status,
            etag=response_header(response, "ETag"), last_modified=response_header(response, "Last-Modified"),
            extra={"article": article, "municipality": "Blešno"},
        )
