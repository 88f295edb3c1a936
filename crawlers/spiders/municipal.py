"""Municipal notice boards (úřední desky) and municipal documents.

Two kinds of source:

- **OFN feeds** (the open formal norm "Úřední desky" 2021-07-20): one JSON-LD document per board listing its
  notices (``informace[]``). Each notice is stored as a document of its own: the notice's JSON object (with the
  feed's ``@context`` added when the notice has none, so it stands alone as JSON-LD), UTF-8,
  ``application/ld+json``; ``doc_id`` = the notice ``iri`` (or ``{feed iri}#{index}``). Every attachment
  (``dokument[].url``) is requested as a document of its own, linked to its notice in ``notice_attachments``
  (all of a notice's attachments in order, written once per feed read, whether or not each could be fetched).
  Notices carry no HTTP validators, so a re-run re-reads the feed and finds them ``unchanged`` by hash;
  attachments are conditional requests.
- **obec Blešno's site** (tomkre/obec-blesno: an Angular front end over a Spring REST backend): article ids
  (``/articles/ids?prefix=``) → each article's asset list (``/articles/{id}/assets?type=references``) → its
  PDFs, ``doc_id`` = ``blesno:{article}/{file}``.

A feed and Blešno's article index are complete listings: what a fully read listing no longer names (a notice
taken down, its attachments, a removed PDF) is marked withdrawn, never deleted (``crawlstate.sync_listing``).

URLs published by the sites (feed attachments, asset links) are absolute; ``rebase`` re-roots them onto the
local mirror in the demo profile (see :func:`crawlers.spiders.base.rebase_url`).
"""

from __future__ import annotations

import json
from urllib.parse import quote, unquote, urlsplit

from crawlers.items import FetchedDocument
from crawlers.mirror_hosts import fetch_url
from crawlers.spiders.base import MendelSpider, media_type, rebase_url, response_header
from mendel.boards import record_notice_links
from mendel.czech_dates import iso, ofn_instant_date

BLESNO_LISTING = "blesno:articles"  # obec Blešno's article index, one complete listing
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


def notice_document(feed: dict, notice: dict, index: int, feed_url: str) -> dict:
    """What to store for one notice of an OFN feed: ``doc_id``, ``url``, ``body`` and metadata."""
    feed_key = feed.get("iri") if isinstance(feed.get("iri"), str) and feed.get("iri") else feed_url
    iri = notice.get("iri")
    doc_id = iri if isinstance(iri, str) and iri else f"{feed_key}#{index}"
    documents = notice.get("dokument") if isinstance(notice.get("dokument"), list) else []
    operator = feed.get("provozovatel") if isinstance(feed.get("provozovatel"), dict) else {}
    body = notice if "@context" in notice or "@context" not in feed else {"@context": feed["@context"], **notice}
    attachments = [{"url": d["url"], "name": czech_text(d.get("název"))}
                   for d in documents if isinstance(d, dict) and isinstance(d.get("url"), str)]
    return {
        "doc_id": doc_id,
        "url": notice.get("url") if isinstance(notice.get("url"), str) else doc_id,
        "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        "title": czech_text(notice.get("název")),
        "published": iso(ofn_instant_date(notice.get("vyvěšení"))),
        "citation": notice.get("číslo_jednací") if isinstance(notice.get("číslo_jednací"), str) else None,
        "attachments": attachments,
        "extra": {"feed": feed_key, "index": index, "board": feed.get("stránka"),
                  "publisher_ico": operator.get("ičo"),
                  "relevant_until": iso(ofn_instant_date(notice.get("relevantní_do"))),
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
    # Attachments fetched per board (feed); None = all. Those over the limit stay listed and linked, unfetched.
    max_attachments: int | None = None

    @classmethod
    def arguments(cls, settings) -> dict:
        arguments = super().arguments(settings)
        # The Blešno site's public host is not known: production crawls it only when told where it is.
        arguments["blesno_url"] = arguments["blesno_url"].rstrip("/") or arguments["rebase"]
        return arguments

    def __init__(self, feeds: str = "", blesno_url: str = "", rebase: str = "", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.feeds = [f.strip() for f in str(feeds).split(",") if f.strip()]
        self.blesno_url = (blesno_url or "").rstrip("/")
        self.rebase = rebase or None
        self.seen: set[str] = set()
        # A notice's own page (its url) → (its document id, whether an OFN feed gave it): one notice is one
        # document, whether a feed or an HTML board names it (crawlers/spiders/boards.py reads the boards).
        self.notice_ids: dict[str, tuple[str, bool]] = {}

    async def start(self):
        self.load_validators()
        self.load_notice_ids()
        for feed in self.feeds:
            # A feed is a complete listing: notices (and attachments) it no longer names are withdrawn.
            yield self.listing_request(self.fetch_url(feed), self.parse_feed, listing=feed,
                                       cb_kwargs={"feed_url": feed}, dont_filter=True)
        if self.blesno_url:
            yield self.listing_request(f"{self.blesno_url}/articles/ids?prefix=", self.parse_article_ids,
                                       listing=BLESNO_LISTING)

    # ---------------------------------------------------------------- OFN feeds

    def parse_feed(self, response, feed_url: str):
        try:
            feed = response.json()
        except ValueError:
            feed = None
        if not isinstance(feed, dict) or not isinstance(feed.get("informace"), list):
            self.reject_listing(response, f"not an OFN notice-board feed ({media_type(response) or 'no type'})")
            return
        self.listing_read(feed_url)
        links, fetched = [], 0
        for index, notice in enumerate(feed["informace"]):
            self.discovered += 1
            if not isinstance(notice, dict):
                self.log_outcome(f"{feed_url}#{index}", "quarantined", status=response.status,
                                 reason="notice is not a JSON object")
                continue
            doc = notice_document(feed, notice, index, feed_url)
            doc["doc_id"] = self.feed_notice_id(doc)
            self.listed(feed_url, doc["doc_id"])
            links.append((doc["doc_id"], [(a["url"], a["name"]) for a in doc["attachments"]]))
            yield FetchedDocument(
                source=self.source, doc_id=doc["doc_id"], url=doc["url"], body=doc["body"],
                content_type="application/ld+json", title=doc["title"], doc_type="notice",
                citation=doc["citation"], published=doc["published"], http_status=response.status,
                extra=doc["extra"], listing=feed_url,
            )
            for number, attachment in enumerate(doc["attachments"]):
                self.listed(feed_url, attachment["url"])
                url = self.fetch_url(attachment["url"])
                if url in self.seen:
                    continue
                if self.max_attachments is not None and fetched >= self.max_attachments:
                    self.crawler.stats.inc_value("mendel/attachments_over_limit")
                    continue
                fetched += 1
                self.seen.add(url)
                yield self.document_request(url, self.parse_attachment, cb_kwargs={
                    "notice": doc, "attachment": attachment, "number": number, "listing": feed_url})
        self.record_links(feed_url, links)

    def load_notice_ids(self) -> list[tuple]:
        """The notices already stored, by their own page. A document whose id is not its url came from a feed
        (its IRI); one whose id is its url was read off an HTML board. Returns the rows read, (url, doc_id,
        listing, status), for what a subclass keeps of them."""
        with self._connect() as conn:
            rows = conn.execute("SELECT url, doc_id, listing, status FROM documents"
                                " WHERE doc_type = 'notice' AND url IS NOT NULL ORDER BY first_seen, doc_id").fetchall()
        for url, doc_id, _, _ in rows:
            known = self.notice_ids.get(url)
            if known is None or (not known[1] and doc_id != url):
                self.notice_ids[url] = (doc_id, doc_id != url)
        return rows

    def feed_notice_id(self, doc: dict) -> str:
        """A feed's notice keeps its IRI — unless an HTML board's row of the same notice page is stored already:
        then that document is the notice (the feed's richer body becomes its next version)."""
        known = self.notice_ids.get(doc["url"])
        doc_id = known[0] if known is not None and not known[1] and doc["url"] != doc["doc_id"] else doc["doc_id"]
        self.notice_ids[doc["url"]] = (doc_id, True)
        return doc_id

    def fetch_url(self, url: str) -> str:
        """Where to fetch a URL the site published (the mirror in the demo profile; mendel mirror hosts keep
        their names)."""
        return fetch_url(url, self.rebase)

    def record_links(self, listing: str, links) -> None:
        """Notice → attachment links of one board read (``notice_attachments``)."""
        with self._connect() as conn:
            record_notice_links(conn, listing, links)

    def parse_attachment(self, response, notice: dict, attachment: dict, number: int, listing: str | None = None):
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
            extra={"notice": notice["doc_id"], "attachment_index": number, "attachment_name": name}, listing=listing,
        )

    # ---------------------------------------------------------------- obec Blešno

    def parse_article_ids(self, response):
        ids = response.json()
        if not isinstance(ids, list):
            self.reject_listing(response, "article ids are not a JSON list")
            return
        self.listing_read(BLESNO_LISTING)
        for article in ids:
            if isinstance(article, str) and article:
                yield self.listing_request(f"{self.blesno_url}/articles/{quote(article)}/assets?type=references",
                                           self.parse_article_assets, listing=BLESNO_LISTING,
                                           cb_kwargs={"article": article})

    def parse_article_assets(self, response, article: str):
        refs = response.json()
        if not isinstance(refs, list):
            self.reject_listing(response, "article assets are not a JSON list")
            return
        for ref in refs:
            if not isinstance(ref, dict) or not str(ref.get("name", "")).lower().endswith(".pdf"):
                continue
            url = rebase_url(response.urljoin(ref.get("url") or ""), self.rebase)
            if not ref.get("url") or url in self.seen:
                continue
            self.seen.add(url)
            file_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or ref["name"]
            self.listed(BLESNO_LISTING, f"blesno:{article}/{file_name}")
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
            extra={"article": article, "municipality": "Blešno"}, listing=BLESNO_LISTING,
        )
