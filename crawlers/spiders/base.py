"""What every Mendel spider shares: the requests it makes, and the outcome each discovered URL ends in.

A spider yields items and requests only. Every URL it sets out to fetch is *discovered* (a document request, a
notice read from a feed, or a listing that could not be read) and ends in exactly one outcome: a stored (or
unchanged) document (:class:`crawlers.items.FetchedDocument`), or a :class:`crawlers.items.CrawlOutcome` —
unchanged, quarantined with a reason, or disallowed — which the crawl log pipeline writes. The spider keeps the
run's ledger: what it discovered (``discovered``), the complete listings it read and the documents each names, and
the listings it could not read in full (``listings``, ``incomplete_listings``), which the run record pipeline syncs
when the spider closes (withdrawn documents: :func:`mendel.crawl.crawlstate.sync_listing`).

What the crawl knew when it opened (validators, gone URLs, when documents last answered) is in ``known``
(:class:`crawlers.known_state.KnownState`, read by the crawl's extensions); conditional request headers and the
held-back and not-due checks are the middlewares' (crawlers/middlewares).
"""

from __future__ import annotations

import inspect
import re
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import scrapy
from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from crawlers.items import CrawlOutcome
from crawlers.known_state import KnownState
from crawlers.middlewares.host_guard import OffLimits, configured_hosts
from mendel.core.config import Settings
from mendel.core.sources import SOURCES, DateWindow

# Document responses the callbacks see themselves (5xx only once retries are spent).
DOCUMENT_STATUSES = [304, 400, 401, 403, 404, 410, 500, 502, 503, 504]
MAX_REASON = 500


def spider_flag(value) -> bool:
    """A yes/no spider argument (``-a reread=0``, or a bool from code): anything but 0, false, no or empty is yes."""
    return value if isinstance(value, bool) else str(value).strip().lower() not in ("0", "false", "no", "")


def _retries(request) -> str:
    retries = request.meta.get("retry_times", 0) if request is not None else 0
    return f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""


def failure_outcome(failure: Failure, maxsize: int | None = None) -> tuple[str, str]:
    """(outcome, reason) for a request that ended in an error: disallowed when robots.txt or the host guard
    refused it, otherwise quarantined with what went wrong (``maxsize``: the crawl's DOWNLOAD_MAXSIZE)."""
    exc, request = failure.value, getattr(failure, "request", None)
    message = str(exc)
    retries = _retries(request)
    if isinstance(exc, OffLimits):
        return "disallowed", message[:MAX_REASON]
    if isinstance(exc, HttpError):  # an IgnoreRequest too: a status no callback handles, retries spent
        return "quarantined", f"HTTP {exc.response.status}{retries}"
    if isinstance(exc, IgnoreRequest):
        if "robots.txt" in message.lower():
            return "disallowed", "robots.txt"
        if "max redirections" in message:
            hops = len(request.meta.get("redirect_urls") or []) if request is not None else 0
            return "quarantined", f"redirect loop: gave up after {hops} redirects"
        if type(exc.__cause__).__name__ == "_DecompressionMaxSizeExceeded":
            sizes = re.search(r"\((\d+) B compressed, (\d+) B decompressed so far\)", message)
            detail = f"{sizes.group(1)} compressed bytes expanded past {sizes.group(2)}" if sizes else message
            return "quarantined", f"decompression bomb: {detail} (limit {maxsize or '?'} bytes)"[:MAX_REASON]
        return "quarantined", f"ignored: {message}"[:MAX_REASON]
    if isinstance(exc, DownloadTimeoutError):
        timeout = request.meta.get("download_timeout") if request is not None else None
        return "quarantined", f"timeout: no complete answer within {timeout or '?'} s{retries}"
    if isinstance(exc, DownloadCancelledError):
        announced = re.search(r"Expected to receive (\d+) bytes", message)
        how = f"Content-Length {announced.group(1)}" if announced else "body kept coming"
        return "quarantined", f"too large: {how}, over the {maxsize or '?'}-byte limit"
    if isinstance(exc, ResponseDataLossError):
        return "quarantined", f"truncated body: fewer bytes than its Content-Length{retries}"
    if isinstance(exc, DownloadFailedError):
        causes = getattr(exc.__cause__, "reasons", None) or []
        names = ", ".join(sorted({c.type.__name__ for c in causes if isinstance(c, Failure)})) or message
        return "quarantined", f"connection failed: {names}{retries}"[:MAX_REASON]
    detail = f"{failure.type.__name__}: {message}" if message else failure.type.__name__
    return "quarantined", f"download failed: {detail}{retries}"[:MAX_REASON]


class MendelSpider(scrapy.Spider):
    source: str = ""  # its entry in the source registry (mendel.core.sources)

    @classmethod
    def arguments(cls, settings: Settings) -> dict:
        """The keyword arguments of a crawl in these settings, from the source's registry entry: its options (lists
        joined with commas, as on Scrapy's command line), its date window as date_from/date_to, its production host
        (or the mirror) as base_url and the mirror origin as rebase, for a spider whose __init__ takes them."""
        source = SOURCES[cls.source]
        taken = inspect.signature(cls.__init__).parameters
        arguments = {
            name: ",".join(value) if isinstance(value, tuple) else value
            for name, value in settings.options(cls.source).items()
        }
        if isinstance(source.window, DateWindow):
            arguments["date_from"], arguments["date_to"] = settings.window(cls.source)
            if source.window.incremental and "incremental" in taken:
                # A window set for this run (a backfill, a re-crawl by hand) is read as set.
                arguments["incremental"] = not settings.source_env.get(source.window.from_env, "").strip()
        if "base_url" in taken:
            arguments["base_url"] = settings.base_url(next(iter(source.hosts)))
        if "rebase" in taken:
            arguments["rebase"] = settings.rebase_origin() or ""
        return arguments

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_hosts: frozenset[str] = frozenset()
        self.known = KnownState()
        # A spider that sets revalidate_after asks for a document it has again only once it is due (not due).
        self.revalidate_after: timedelta | None = None
        self.listings: dict[str, set[str]] = {}  # complete listing → the doc ids it names in this run
        self.incomplete_listings: set[str] = set()
        self._discovered = 0  # before the spider has a crawler (its stats keep the count after)

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # The hosts this run was pointed at (every spider argument that is a URL); the host guard keeps to them.
        spider.allowed_hosts = configured_hosts(kwargs)
        return spider

    @property
    def discovered(self) -> int:
        """URLs discovered in this run (documents requested or accounted for, listings that failed, notices read)."""
        crawler = getattr(self, "crawler", None)
        if crawler is None or crawler.stats is None:
            return self._discovered
        return int(crawler.stats.get_value("mendel/discovered", 0))

    @discovered.setter
    def discovered(self, value: int) -> None:
        crawler = getattr(self, "crawler", None)
        if crawler is None or crawler.stats is None:
            self._discovered = value
        else:
            crawler.stats.set_value("mendel/discovered", value)

    # ---------------------------------------------------------------- requests

    def document_request(self, url: str, callback, **kwargs) -> scrapy.Request:
        """A request for a document body: counted as discovered, conditional on what we saw last time, and — for
        a URL gone on its last tries whose backoff has not ended, or a document not due for another look — never
        sent, logged instead (crawlers.middlewares.document_due, crawlers.middlewares.conditional_request)."""
        meta = kwargs.pop("meta", {})
        meta["handle_httpstatus_list"] = DOCUMENT_STATUSES
        meta["mendel_document"] = True
        return scrapy.Request(url, callback=callback, errback=self.on_error, meta=meta, dont_filter=True, **kwargs)

    def listing_request(self, url: str, callback, listing: str | None = None, **kwargs) -> scrapy.Request:
        """A request for a listing (feed, index, search page); ``listing`` names the complete listing it is part
        of, which stays unsynced (nothing withdrawn) when this request fails."""
        meta = kwargs.pop("meta", {})
        if listing:
            meta["mendel_listing"] = listing
        return scrapy.Request(url, callback=callback, errback=self.on_listing_error, meta=meta, **kwargs)

    # ---------------------------------------------------------------- complete listings

    def listing_read(self, listing: str) -> None:
        """``listing`` was fetched and parsed (it may name no document at all)."""
        self.listings.setdefault(listing, set())

    def listed(self, listing: str, doc_id: str) -> None:
        """``listing`` names ``doc_id`` in this run (whatever the fetch of the document itself brings)."""
        self.listings.setdefault(listing, set()).add(doc_id)

    def listing_incomplete(self, listing: str | None) -> None:
        if listing:
            self.incomplete_listings.add(listing)

    # ---------------------------------------------------------------- outcomes

    def outcome(self, url: str, outcome: str, status: int | None = None, reason: str | None = None, **fields):
        """The outcome of a discovered URL that stores no document, for the crawl log."""
        return CrawlOutcome(source=self.source, url=url, outcome=outcome, status=status, reason=reason, **fields)

    def not_ok(self, response) -> CrawlOutcome | None:
        """A 304 (unchanged) or an error status (quarantined): the outcome of a response with no new body."""
        if response.status == 304:
            etag, last_modified = self.known.validators.get(response.url, (None, None))
            return self.outcome(response.url, "unchanged", status=304, etag=etag, last_modified=last_modified)
        if response.status >= 400:
            return self.outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"HTTP {response.status}{_retries(response.request)}",
            )
        return None

    def on_error(self, failure: Failure):
        """A document request ended in an error (already counted as discovered)."""
        outcome, reason = failure_outcome(failure, self.settings.getint("DOWNLOAD_MAXSIZE"))
        yield self.outcome(failure.request.url, outcome, reason=reason, status=_failure_status(failure))

    def on_listing_error(self, failure: Failure):
        """A listing (search page, feed, index) failed: nothing below it was discovered; it is logged as a
        discovered URL of its own, and its complete listing is not synced."""
        request = failure.request
        self.logger.error("listing failed: %s (%s: %s)", request.url, failure.type.__name__, failure.value)
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(request.meta.get("mendel_listing"))
        outcome, reason = failure_outcome(failure, self.settings.getint("DOWNLOAD_MAXSIZE"))
        self.discovered += 1
        yield self.outcome(
            request.url, outcome, reason=f"listing: {reason}"[:MAX_REASON], status=_failure_status(failure)
        )

    def reject_listing(self, response, reason: str) -> CrawlOutcome:
        """A listing answered but is not what it should be (an error page, the wrong JSON): the quarantine of its
        URL, a discovered URL of its own; its complete listing is not synced."""
        self.logger.error("unusable listing %s: %s", response.url, reason)
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(response.request.meta.get("mendel_listing"))
        self.discovered += 1
        return self.outcome(
            response.url, "quarantined", status=response.status, reason=f"listing: {reason}"[:MAX_REASON]
        )

    def on_callback_error(self, response, exception: Exception) -> list:
        """A callback raised while parsing ``response`` (an HTML error page where JSON was expected...)."""
        kind = _content_type(response) or "no content type"
        reason = f"unparseable ({kind}): {type(exception).__name__}: {exception}"
        if not response.request.meta.get("mendel_document"):
            return [self.reject_listing(response, reason)]
        self.logger.error("could not parse %s: %s", response.url, reason)
        return [self.outcome(response.url, "quarantined", status=response.status, reason=reason[:MAX_REASON])]

    def on_redirect_dropped(self, request) -> CrawlOutcome:
        """A redirected listing request landed on a URL already fetched in this run (a loop)."""
        chain = [*request.meta.get("redirect_urls", [])]
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(request.meta.get("mendel_listing"))
        self.discovered += 1
        return self.outcome(
            chain[0] if chain else request.url,
            "quarantined",
            reason=f"listing: redirect loop: back to an already fetched URL after {len(chain)} redirects",
        )


def _failure_status(failure: Failure) -> int | None:
    response = getattr(failure.value, "response", None)
    return getattr(response, "status", None)


def _content_type(response) -> str:
    value = response.headers.get(b"Content-Type")
    return value.decode("latin-1") if value else ""


def rebase_url(url: str, origin: str | None) -> str:
    """Re-root an absolute real-site URL onto ``origin`` (``scheme://host[:port]``), keeping path and query.

    The local mirror serves every source under its real paths on one origin, so in the demo profile the URLs
    a site publishes (feed attachments, file lists) are fetched from the mirror by swapping the origin only.
    With no origin (production) the URL is returned unchanged.
    """
    if not origin:
        return url
    parts, target = urlsplit(url), urlsplit(origin)
    if not parts.scheme or not parts.netloc:
        return url
    return urlunsplit((target.scheme, target.netloc, parts.path or "/", parts.query, ""))


def response_header(response, name: str) -> str | None:
    value = response.headers.get(name.encode("latin-1"))
    return value.decode("latin-1") if value else None


def media_type(response) -> str:
    """The Content-Type without parameters (``text/html; charset=UTF-8`` → ``text/html``); may be empty."""
    return (response_header(response, "Content-Type") or "").split(";")[0].strip().lower()
