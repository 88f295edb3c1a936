"""e-Sbírka: every act of the Sbírka, kept up to date incrementally, through the official public API
(``sample_corpus/esbirka/api/openapi.json``; every request is an operation of that definition, tested).

The register: a first crawl lists the complete register — ``POST /chronologicke-rejstriky/roky`` for the years
that have acts, then ``POST /chronologicke-rejstriky/dokumenty-sbirky-po-mesicich`` for each — and stores every
act; later crawls read the change feed (``/dokumenty-sbirky/zmeny-zneni``) and fetch every act it names, whatever
its year. An operator's backfill names years (``MENDEL_ESBIRKA_YEARS``, the backfill partitions) or acts
(``MENDEL_ESBIRKA_ACTS``), and that selection alone is listed. Each act: its detail, ``odkazy-ke-stazeni`` and the
verified PDF (``overeneZneni.odkazPdf``, the promulgated act with its pages); an act without one is stored as the
wording in force that e-Sbírka gives, its fragments (``/fragmenty`` of the act's stale URL) as plain text, one
fragment a line, nothing added.

Versions: ``zmeny-zneni?datumCasOdberuOd=T`` lists the versions published since the last crawl took the feed in
(every version on the first crawl; ``start`` / ``pocet`` paging). For each act it names,
``/dokumenty-sbirky/{staleUrl}/historie`` gives every version's validity, number and amending acts (written to the
stored versions at once: a new version ends the one before it), and each listed version's fragments are read from
its versioned stale URL. The feed position (``change_feeds``, one per selection) moves only when every page of the
feed, every version below it and — on a first crawl — the whole register were read, so a failed crawl asks again
next time; a crawl with no change fetches the feed and nothing else.

Fragments: ``/dokumenty-sbirky/{staleUrl}/fragmenty?cisloStranky=N`` (pages from 0 as the definition says, 1,000
fragments each, ``pocetStranek`` says how many). Every page of a version is asked for conditionally (the ETags kept
with the stored version); when all answer 304 the version is confirmed unchanged, when page 0 changed every page
is fetched afresh, and when only a later page changed the 304 pages are fetched again without validators, so a
version is always assembled from one consistent set of pages (:func:`mendel.law.act_versions.assemble`). The
assembled version goes to the raw store (canonical JSON) and to ``act_versions`` / ``provisions`` /
``act_references``. Feed, history and fragment pages are listings, not documents: a page that fails or is not a
``FragmentSeznam`` is logged as a quarantined listing URL (with the reason) and that version is left as it was.

Production asks the official hosts (``Source.hosts``: ``www.e-sbirka.cz``, ``api.e-sbirka.cz`` allowed) under the definition's server
path, with the ``esel-api-access-key`` header from ``ESBIRKA_API_KEY``); a redirect between official hosts is
followed, any other host is refused by the host guard.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import scrapy
from scrapy.http import JsonRequest

from crawlers import settings as project
from crawlers.items import ActHistory, ActVersion, ActVersionUnchanged, FetchedDocument
from crawlers.middlewares.host_guard import configured_hosts
from crawlers.spiders.base import MendelSpider
from mendel.core.sources import SOURCES
from mendel.law import act_versions
from mendel.law.identifiers import ActId, parse_act_path, parse_stale_url

API_PREFIX = "/esel-esbir-daver"
CHANGES_PAGE = 500  # versions asked for per zmeny-zneni page
FIRST_PAGE = act_versions.FIRST_PAGE
CONSOLIDATED_TEXT = "text/plain; charset=utf-8"  # an act's wording in force, from its fragments
# Official hosts (with their subdomains): a redirect from one to another is followed in production.
OFFICIAL_HOSTS = configured_hosts(SOURCES["esbirka"].hosts) | {"e-sbirka.cz", "eselpoint.gov.cz"}


def path_segment(value) -> str | None:
    """``value`` as one URL path segment, every reserved character escaped; None for an empty value or a bare "." or
    "..", which a URL's normalisation resolves to the folder or its parent (escaped dots too), leaving the endpoint."""
    segment = quote(str(value), safe="") if value is not None else ""
    return None if segment in ("", ".", "..") else segment


def stale_url_path(stale_url: str) -> str:
    """`/sb/2024/87` → `%2Fsb%2F2024%2F87`, as the API expects it in one path segment."""
    return quote(stale_url, safe="")


def document_id(stale_url: str) -> str:
    """The act's ELI (``/sb/2024/87/2024-04-16`` -> ``/eli/cz/sb/2024/87``); a stale URL that names no act keeps
    its own text, under ``esbirka:``."""
    found = parse_act_path(stale_url)
    return found[0].eli if found else f"esbirka:{stale_url}"


class EsbirkaSpider(MendelSpider):
    name = "esbirka"
    source = "esbirka"
    # What it knew of the act versions, and where they are recorded (crawlers/settings.py).
    custom_settings = {"EXTENSIONS": project.ESBIRKA_EXTENSIONS, "ITEM_PIPELINES": project.ESBIRKA_ITEM_PIPELINES}

    @classmethod
    def arguments(cls, settings) -> dict:
        # Years and acts are Settings fields: a Dagster run can set them (MendelResource).
        return {
            "years": ",".join(str(y) for y in settings.esbirka_years),
            "acts": ",".join(settings.esbirka_acts),
            **super().arguments(settings),
        }

    def __init__(
        self,
        base_url: str,
        years: str = "",
        api_key: str | None = None,
        acts: str = "",
        fragments: bool | str = True,
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.allowed_acts = {a.strip() for a in acts.split(",") if a.strip()}
        self.api = base_url.rstrip("/") + API_PREFIX
        self.years = [int(y) for y in str(years).split(",") if y.strip()]
        self.api_headers = {"esel-api-access-key": api_key} if api_key else {}
        self.fragments = (
            fragments if isinstance(fragments, bool) else str(fragments).strip().lower() in ("1", "true", "yes")
        )
        self.fragment_etags: dict[str, str] = {}
        self.fragment_page_counts: dict[str, int] = {}
        # the change feed of this selection of acts: its own position, moved only after a complete read
        selection = (
            ("|years=" + ",".join(map(str, sorted(self.years))) if self.years else "")
            + ("|acts=" + ",".join(sorted(self.allowed_acts)) if self.allowed_acts else "")
        ) or "|all"
        self.feed = act_versions.FEED + selection
        self.feed_latest: str | None = None
        self.feed_complete = False
        self.feed_failed = False
        self.register_failed = False  # a page of the register listed in this crawl failed
        self.version_jobs: list[FragmentJob] = []

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.allowed_hosts = spider.allowed_hosts | OFFICIAL_HOSTS
        return spider

    async def start(self):
        since = None
        if self.fragments:
            self.fragment_etags = self.known.fragment_etags
            self.fragment_page_counts = self.known.fragment_page_counts
            since = self.known.feed_position
        if self.years:  # a backfill: those years' register
            for year in self.years:
                yield self.register_request(year)
        elif self.allowed_acts:  # the acts asked for, whatever their year
            for stale_url in sorted(self.allowed_acts):
                yield self.act_request(stale_url, {"staleUrl": stale_url})
        elif since is None:  # the first crawl (or one without the feed): the complete register
            yield scrapy.Request(  # the operation takes no body
                f"{self.api}/chronologicke-rejstriky/roky",
                method="POST",
                headers={**self.api_headers, "Accept": "application/json"},
                callback=self.parse_years,
                errback=self.on_register_error,
            )
        if self.fragments:
            yield self.changes_request(since, 0)

    # ---------------------------------------------------------------- the register

    def register_request(self, year: int) -> scrapy.Request:
        return JsonRequest(
            f"{self.api}/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich",
            data=year,
            headers=self.api_headers,
            callback=self.parse_register,
            errback=self.on_register_error,
            cb_kwargs={"year": year},
        )

    def parse_years(self, response):
        """``RokySeznam``: every year of the register that has acts (``deaktivovano`` marks one without)."""
        payload, problem = self.feed_payload(response, "seznam")
        if payload is None:
            self.register_failed = True
            yield self.reject_listing(response, problem)
            return
        for entry in payload["seznam"]:
            year = entry.get("rok") if isinstance(entry, dict) else None
            if isinstance(year, int) and not entry.get("deaktivovano"):
                yield self.register_request(year)

    def on_register_error(self, failure):
        self.register_failed = True
        return self.on_listing_error(failure)

    def act_request(self, stale_url: str, listing: dict) -> scrapy.Request:
        """An act's detail, then its download links and its text (the register and the feed both lead here; the
        duplicate filter keeps one request an act)."""
        return scrapy.Request(
            f"{self.api}/dokumenty-sbirky/{stale_url_path(stale_url)}",
            headers=self.api_headers,
            callback=self.parse_detail,
            errback=self.on_listing_error,
            cb_kwargs={"listing": listing},
        )

    # ---------------------------------------------------------------- versions: change feed → history → fragments

    def changes_request(self, since: str | None, start: int) -> scrapy.Request:
        query = {"start": start, "pocet": CHANGES_PAGE, **({"datumCasOdberuOd": since} if since else {})}
        return scrapy.Request(
            f"{self.api}/dokumenty-sbirky/zmeny-zneni?{urlencode(query)}",
            self.parse_changes,
            headers=self.api_headers,
            cb_kwargs={"since": since, "start": start},
            dont_filter=True,
            errback=self.on_feed_error,
        )

    def wanted(self, act) -> bool:
        """Every act the feed names, unless an operator's selection of acts or years narrows the crawl."""
        if self.allowed_acts:
            return ActId(act.collection, act.year, act.number).stale_url in self.allowed_acts
        return not self.years or act.year in self.years

    def feed_payload(self, response, key: str) -> tuple[dict | None, str | None]:
        """The JSON object of a feed or history page, or (None, the problem): the page is rejected and the feed not
        taken in."""
        try:
            payload = json.loads(response.body)
        except (ValueError, UnicodeDecodeError) as exc:
            payload, problem = None, f"not JSON: {exc}"
        else:
            problem = None if isinstance(payload, dict) and isinstance(payload.get(key), list) else f"no '{key}' list"
        if problem:
            self.feed_failed = True
            return None, problem
        return payload, None

    def parse_changes(self, response, since: str | None, start: int):
        payload, problem = self.feed_payload(response, "seznamZneniPravnichPredpisu")
        if payload is None:
            yield self.reject_listing(response, problem)
            return
        items = [i for i in payload["seznamZneniPravnichPredpisu"] if isinstance(i, dict)]
        changed: dict[str, list[dict]] = {}
        for item in items:
            published = item.get("datumCasPublikaceDokumentu")
            if published and (self.feed_latest is None or published > self.feed_latest):
                self.feed_latest = published
            act = parse_stale_url(item.get("staleUrl"))
            if act is not None and self.wanted(act):
                changed.setdefault(ActId(act.collection, act.year, act.number).stale_url, []).append(item)
        for stale_url, versions in changed.items():
            yield self.act_request(stale_url, {"staleUrl": stale_url})  # its document may have changed too
            yield scrapy.Request(
                f"{self.api}/dokumenty-sbirky/{stale_url_path(stale_url)}/historie",
                self.parse_history,
                headers=self.api_headers,
                dont_filter=True,
                errback=self.on_feed_error,
                cb_kwargs={"stale_url": stale_url, "versions": versions},
            )
        total = payload.get("pocetCelkem")
        if items and isinstance(total, int) and start + len(items) < total:
            yield self.changes_request(since, start + len(items))
        else:
            self.feed_complete = True

    def parse_history(self, response, stale_url: str, versions: list[dict]):
        history, problem = self.feed_payload(response, "historie")
        if history is None:
            yield self.reject_listing(response, problem)
            return
        doc_id = document_id(stale_url)
        yield ActHistory(doc_id=doc_id, history=history)
        entries = {e.get("staleUrl"): e for e in history.get("historie") or [] if isinstance(e, dict)}
        for item in versions:
            entry = entries.get(item.get("staleUrl"), {})
            detail = {
                "zkracenaCitace": parse_stale_url(stale_url).citation,
                **item,
                **entry,
                "staleUrl": item["staleUrl"],
            }
            job = FragmentJob(detail, self.fragments_url(detail["staleUrl"], FIRST_PAGE))
            self.version_jobs.append(job)
            yield self.fragments_request(job, FIRST_PAGE, conditional=True)

    def on_feed_error(self, failure):
        self.feed_failed = True
        return self.on_listing_error(failure)

    def feed_read_in_full(self, reason: str = "finished") -> tuple[str, str | None] | None:
        """(the feed, the latest publication time it named) when the whole feed and every version it named were
        read, for its position to move on (crawlers.pipelines.act_versions); else None."""
        if not self.fragments or reason != "finished" or self.feed_failed or not self.feed_complete:
            return None
        if self.register_failed:  # a first crawl's register is part of what the position vouches for
            return None
        if any(job.failed or not job.done for job in self.version_jobs):
            return None
        return self.feed, self.feed_latest

    def parse_register(self, response, year: int):
        for month in response.json().get("dokumentySbirkyVMesici", []):
            for collection in month.get("sbirkyDokumentuSbirky", []):
                if collection.get("sadaDokumentuKod") not in (None, "sb"):
                    continue
                for act in collection.get("dokumentySbirkyRejstrikInfo", []):
                    stale_url = act["staleUrl"]
                    if self.allowed_acts and stale_url not in self.allowed_acts:
                        continue
                    yield self.act_request(stale_url, act)

    def parse_detail(self, response, listing: dict):
        detail = {**listing, **response.json()}
        yield scrapy.Request(
            f"{self.api}/dokumenty-sbirky/{stale_url_path(detail['staleUrl'])}/odkazy-ke-stazeni",
            headers=self.api_headers,
            callback=self.parse_download_links,
            errback=self.on_listing_error,
            cb_kwargs={"detail": detail},
        )

    # ---------------------------------------------------------------- fragments → act version

    def fragments_url(self, stale_url: str, page: int) -> str:
        return f"{self.api}/dokumenty-sbirky/{stale_url_path(stale_url)}/fragmenty?cisloStranky={page}"

    def fragments_request(self, job: "FragmentJob", page: int, conditional: bool) -> scrapy.Request:
        url = self.fragments_url(job.detail["staleUrl"], page)
        headers = dict(self.api_headers)
        if conditional and self.fragment_etags.get(url):
            headers["If-None-Match"] = self.fragment_etags[url]
        job.waiting.add(page)
        return scrapy.Request(
            url,
            headers=headers,
            callback=self.parse_fragments,
            errback=self.on_fragments_error,
            cb_kwargs={"job": job, "page": page},
            dont_filter=True,
            meta={"handle_httpstatus_list": [304]},
        )

    def parse_fragments(self, response, job: "FragmentJob", page: int):
        job.waiting.discard(page)
        if job.failed:
            return
        if response.status == 304:
            job.pages[page] = None
        else:
            try:
                payload = act_versions.check_page(json.loads(response.body))
            except (ValueError, UnicodeDecodeError) as exc:
                job.failed = True
                self.crawler.stats.inc_value("mendel/fragments/failed")
                yield self.reject_listing(response, f"fragments page {page}: {exc}")
                return
            job.pages[page] = payload
            job.derived = _header(response, b"X-Mirror-Derived") or job.derived
            etag = response.headers.get(b"ETag")
            job.etags[response.url] = etag.decode("latin-1") if etag else None
        if page == FIRST_PAGE:
            yield from self._after_first_page(job)
        yield from self._maybe_finish(job)

    def _after_first_page(self, job: "FragmentJob"):
        first = job.pages[FIRST_PAGE]
        if first is None:  # unchanged: as many pages as last time, each asked for conditionally
            job.page_count = self.fragment_page_counts.get(job.first_url, 1)
            conditional = True
        else:  # changed (or new): every other page afresh, the page boundaries may have moved
            job.page_count = max(first["pocetStranek"], 1)  # an act without fragments still has its page 0
            conditional = False
        for number in range(FIRST_PAGE + 1, job.page_count):
            yield self.fragments_request(job, number, conditional=conditional)

    def _maybe_finish(self, job: "FragmentJob"):
        if job.failed or job.waiting or job.page_count is None or job.done:
            return
        stale = [n for n in range(job.page_count) if job.pages.get(n) is None]
        if len(stale) == job.page_count:
            job.done = True
            yield ActVersionUnchanged(url=job.first_url)
            return
        if stale:  # some pages changed and others did not: fetch the unchanged ones again to assemble one state
            for number in stale:
                yield self.fragments_request(job, number, conditional=False)
            return
        job.done = True
        pages = [job.pages[n] for n in range(job.page_count)]
        try:
            record = act_versions.assemble(job.detail, pages)
        except act_versions.FragmentPageError as exc:
            job.failed = True
            self.crawler.stats.inc_value("mendel/fragments/failed")
            self.discovered += 1
            yield self.outcome(job.first_url, "quarantined", reason=f"listing: fragments: {exc}"[:500])
            return
        if job.as_document:
            yield self.consolidated_document(job, record)
            return
        page_etags = {
            self.fragments_url(job.detail["staleUrl"], n): job.etags.get(self.fragments_url(job.detail["staleUrl"], n))
            for n in range(job.page_count)
        }
        yield ActVersion(
            source=self.source,
            doc_id=document_id(job.detail["staleUrl"]),
            url=job.first_url,
            record=record,
            page_etags=page_etags,
            published=job.detail.get("datumCasPublikaceDokumentu"),
        )

    def on_fragments_error(self, failure):
        job = failure.request.cb_kwargs["job"]
        job.waiting.discard(failure.request.cb_kwargs["page"])
        job.failed = True
        self.crawler.stats.inc_value("mendel/fragments/failed")
        return self.on_listing_error(failure)

    def parse_download_links(self, response, detail: dict):
        links = response.json()
        # The verified (legally binding) PDF of the promulgated act when there is one; otherwise the wording in
        # force, which e-Sbírka gives as the fragments of the act's stale URL.
        link = ((links.get("overeneZneni") or {}) if isinstance(links, dict) else {}).get("odkazPdf")
        # the API's values, not trusted: a document id that is no path segment of its own falls back to the wording
        document = path_segment(link.get("dokumentId")) if isinstance(link, dict) else None
        if link and not document:
            self.logger.warning("download link of %s: document id %r is no path segment", response.url, link)
        if not document:
            job = FragmentJob(detail, self.fragments_url(detail["staleUrl"], FIRST_PAGE), as_document=True)
            yield self.fragments_request(job, FIRST_PAGE, conditional=False)
            return
        name = path_segment(link.get("nazevDokumentu")) or f"{document}.pdf"
        url = f"{self.api}/souborove-dokumenty/{document}/ORIGINAL/STAHNI/{name}"
        yield self.document_request(url, self.parse_document, cb_kwargs={"detail": detail})

    def parse_document(self, response, detail: dict):
        if not_ok := self.not_ok(response):
            yield not_ok
            return
        content_type = response.headers.get("Content-Type", b"").decode("latin-1").split(";")[0].strip()
        if not response.body.startswith(b"%PDF"):
            yield self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"expected PDF, got {content_type or 'unknown type'}",
            )
            return
        yield FetchedDocument(
            source=self.source,
            doc_id=document_id(detail["staleUrl"]),
            url=response.url,
            body=response.body,
            content_type=content_type or "application/pdf",
            title=detail.get("nazev"),
            doc_type="law",
            citation=detail.get("zkracenaCitace"),
            published=_announced(detail),
            http_status=response.status,
            etag=_header(response, b"ETag"),
            last_modified=_header(response, b"Last-Modified"),
        )

    def consolidated_document(self, job: "FragmentJob", record: dict):
        """The act's wording in force as its document: the text of every fragment, one a line, in order."""
        self.discovered += 1
        lines = [f["text"] for f in record["fragments"] if f.get("text")]
        if not lines:
            return self.outcome(job.first_url, "quarantined", reason="no text: the act's fragments are empty")
        detail = job.detail
        return FetchedDocument(
            source=self.source,
            doc_id=document_id(detail["staleUrl"]),
            url=job.first_url,
            body=("\n".join(lines) + "\n").encode("utf-8"),
            content_type=CONSOLIDATED_TEXT,
            title=detail.get("nazev"),
            doc_type="law_consolidated",
            citation=detail.get("zkracenaCitace"),
            published=_announced(detail),
            extra={"version": record.get("versionEli"), **({"derived": job.derived} if job.derived else {})},
        )


def _announced(detail: dict) -> str | None:
    published = detail.get("datumCasVyhlaseni") or detail.get("datum")
    return published[:10] if published else None


class FragmentJob:
    """The fragments pages of one act being collected."""

    def __init__(self, detail: dict, first_url: str, as_document: bool = False):
        self.detail = detail
        self.first_url = first_url
        self.as_document = as_document  # the act's wording in force, stored as its document (not a version)
        self.derived: str | None = None  # what the source says the text was derived from (X-Mirror-Derived)
        self.pages: dict[int, dict | None] = {}  # page → payload, None for a 304
        self.etags: dict[str, str | None] = {}
        self.waiting: set[int] = set()
        self.page_count: int | None = None
        self.failed = False
        self.done = False


def _header(response, name: bytes) -> str | None:
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None
