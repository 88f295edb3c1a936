"""What every Mendel spider shares: conditional requests, one logged outcome per discovered URL, and the
bookkeeping of complete listings (withdrawn documents).

Every URL a spider sets out to fetch is *discovered* (a document request, a notice read from a feed, or a listing
that could not be read) and ends in exactly one outcome in ``crawl_log``: stored, unchanged, quarantined (with a
reason) or disallowed. When the spider closes, ``crawl_runs`` gets its discovered count (the reconciliation is
:func:`mendel.crawl.crawlstate.run_counts`) and the listings are synced: withdrawn documents a listing names again become
active, and a listing read in full withdraws the documents it no longer names (:func:`mendel.crawl.crawlstate.sync_listing`).
"""

from __future__ import annotations

import inspect
import re
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit, urlunsplit

import psycopg
import scrapy
from scrapy import signals
from scrapy.exceptions import (
    DownloadCancelledError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from crawlers.middlewares import OffLimits, configured_hosts
from mendel.core.config import Settings
from mendel.core.sources import SOURCES, DateWindow
from mendel.crawl import crawlstate
from mendel.crawl.outage import NOT_FETCHED, OutageSpool, describe, is_outage

# Document responses the callbacks see themselves (5xx only once retries are spent).
DOCUMENT_STATUSES = [304, 400, 401, 403, 404, 410, 500, 502, 503, 504]
MAX_REASON = 500


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
        if "base_url" in taken:
            arguments["base_url"] = settings.base_url(next(iter(source.hosts)))
        if "rebase" in taken:
            arguments["rebase"] = settings.rebase_origin() or ""
        return arguments

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_hosts: frozenset[str] = frozenset()
        self.validators: dict[str, tuple[str | None, str | None]] = {}
        self.gone: dict[str, crawlstate.Gone] = {}
        # A spider that sets revalidate_after asks for a document it has again only once it is due (not_due).
        self.revalidate_after: timedelta | None = None
        self.confirmed: dict[str, datetime] = {}
        self.discovered = 0
        self.listings: dict[str, set[str]] = {}  # complete listing → the doc ids it names in this run
        self.incomplete_listings: set[str] = set()
        self.outage: str | None = None  # set when PostgreSQL went away: the crawl stops, writes go to the spool
        self.spool: OutageSpool | None = None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # The hosts this run was pointed at (every spider argument that is a URL); the host guard keeps to them.
        spider.allowed_hosts = configured_hosts(kwargs)
        spool_dir = crawler.settings.get("MENDEL_CRAWL_SPOOL")
        if spool_dir:
            spider.spool = OutageSpool(spool_dir, spider.source, crawler.settings.get("MENDEL_RUN_ID"))
        crawler.signals.connect(spider.finish_run, signal=signals.spider_closed)
        return spider

    def _connect(self) -> psycopg.Connection:
        return psycopg.connect(self.settings.get("MENDEL_DATABASE_URL"), autocommit=True)

    def load_validators(self) -> None:
        with self._connect() as conn:
            self.validators = crawlstate.known_validators(conn, self.source)
            if self.settings.getbool("MENDEL_GONE_BACKOFF", True):
                self.gone = crawlstate.known_gone(conn, self.source)
            if self.revalidate_after:
                self.confirmed = crawlstate.last_confirmed(conn, self.source)

    def held_back(self, url: str) -> bool:
        """A URL gone on its last tries whose backoff has not ended: logged without a request."""
        gone = self.gone.get(url)
        return gone is not None and datetime.now(timezone.utc) < gone.retry_after

    def not_due(self, url: str) -> bool:
        """A document that answered within ``revalidate_after``: not asked for in this run."""
        confirmed = self.confirmed.get(url)
        return (
            bool(self.revalidate_after)
            and confirmed is not None
            and datetime.now(timezone.utc) - confirmed < self.revalidate_after
        )

    def document_request(self, url: str, callback, **kwargs) -> scrapy.Request | None:
        """A request for a document body: conditional on what we saw last time, and counted. None for a URL
        that answered gone on its last tries and whose backoff has not ended (:func:`mendel.crawl.crawlstate.known_gone`):
        it is logged quarantined again, without a request; None too for a document not due for another look
        (:meth:`not_due`): logged unchanged, without a request."""
        self.discovered += 1
        if self.held_back(url):
            self.crawler.stats.inc_value("mendel/held_back")
            self.log_outcome(url, "quarantined", reason=self.gone[url].reason)
            return None
        if self.not_due(url):
            # Logged unchanged with no status: accounted for, and when it is asked for next is in the reason.
            self.crawler.stats.inc_value("mendel/not_due")
            self.log_outcome(
                url,
                "unchanged",
                reason=(
                    f"not due: answered with this document {self.confirmed[url]:%Y-%m-%d %H:%M} UTC; asked again "
                    f"{self.revalidate_after.days} days after"
                ),
            )
            return None
        headers = {}
        etag, last_modified = self.validators.get(url, (None, None))
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        meta = kwargs.pop("meta", {})
        meta["handle_httpstatus_list"] = DOCUMENT_STATUSES
        meta["mendel_document"] = True
        return scrapy.Request(
            url, callback=callback, errback=self.on_error, headers=headers, meta=meta, dont_filter=True, **kwargs
        )

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

    def log_outcome(
        self, url: str, outcome: str, status: int | None = None, reason: str | None = None, **fields
    ) -> None:
        self.crawler.stats.inc_value(f"mendel/outcome/{outcome}")
        if self.outage is None:
            try:
                conn = self._outcome_connection()
                crawlstate.log_outcome(
                    conn,
                    run_id=self.settings.get("MENDEL_RUN_ID"),
                    source=self.source,
                    url=url,
                    outcome=outcome,
                    status=status,
                    reason=reason,
                    **fields,
                )
                if outcome == "unchanged" and status == 304:
                    crawlstate.mark_seen(conn, source=self.source, url=url)
                return
            except psycopg.Error as exc:
                self._close_outcome_connection()
                if not is_outage(exc):
                    raise
                self.database_down(exc)
        self.spool_outcome(url=url, outcome=outcome, status=status, reason=reason, **fields)

    def _outcome_connection(self) -> psycopg.Connection:
        """The connection outcomes are logged on: one for the run (a connection per outcome cost the reactor
        thread ~10 ms each), a new one after an error; closed when the spider closes."""
        conn = getattr(self, "_outcome_conn", None)
        if conn is None or conn.closed:
            conn = self._outcome_conn = self._connect()
        return conn

    def _close_outcome_connection(self) -> None:
        conn, self._outcome_conn = getattr(self, "_outcome_conn", None), None
        if conn is not None:
            try:
                conn.close()
            except psycopg.Error:
                pass

    # ---------------------------------------------------------------- database outage

    def spool_outcome(self, **fields) -> None:
        if self.spool is None:
            raise RuntimeError(f"database outage and no MENDEL_CRAWL_SPOOL: outcome lost {fields}")
        self.spool.outcome(**fields)

    def database_down(self, exc: BaseException) -> None:
        """PostgreSQL went away: say so once, stop the crawl (no request is sent to a crawl that can't record it),
        and account for every URL still waiting as not fetched; from now on writes go to the spool."""
        if self.outage is not None:
            return
        self.outage = describe(exc)
        self.logger.error(
            "database outage: %s; the crawl stops, what it could not write is kept in %s and written by the next crawl",
            self.outage,
            self.spool.path if self.spool else "nowhere",
        )
        self.crawler.stats.set_value("mendel/database_outage", self.outage)
        engine = self.crawler.engine
        slot = getattr(engine, "_slot", None)
        if slot is None or slot.closing is not None:  # already closing (the outage showed at spider_closed)
            return
        while (request := slot.scheduler.next_request()) is not None:
            if request.meta.get("mendel_document"):  # counted as discovered: it needs its outcome
                self.spool_outcome(url=request.url, outcome="quarantined", reason=NOT_FETCHED)
                self.crawler.stats.inc_value("mendel/outcome/quarantined")
        _schedule_close(engine, "database_outage")

    def handle_not_ok(self, response) -> bool:
        """Log 304 as unchanged and errors as quarantined; True when the response has no new body."""
        if response.status == 304:
            etag, last_modified = self.validators.get(response.url, (None, None))
            self.log_outcome(response.url, "unchanged", status=304, etag=etag, last_modified=last_modified)
            return True
        if response.status >= 400:
            self.log_outcome(
                response.url,
                "quarantined",
                status=response.status,
                reason=f"HTTP {response.status}{_retries(response.request)}",
            )
            return True
        return False

    def on_error(self, failure: Failure) -> None:
        """A document request ended in an error (already counted as discovered)."""
        outcome, reason = failure_outcome(failure, self.settings.getint("DOWNLOAD_MAXSIZE"))
        self.log_outcome(failure.request.url, outcome, reason=reason, status=_failure_status(failure))

    def on_listing_error(self, failure: Failure) -> None:
        """A listing (search page, feed, index) failed: nothing below it was discovered; it is logged as a
        discovered URL of its own, and its complete listing is not synced."""
        request = failure.request
        self.logger.error("listing failed: %s (%s: %s)", request.url, failure.type.__name__, failure.value)
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(request.meta.get("mendel_listing"))
        outcome, reason = failure_outcome(failure, self.settings.getint("DOWNLOAD_MAXSIZE"))
        self.discovered += 1
        self.log_outcome(
            request.url, outcome, reason=f"listing: {reason}"[:MAX_REASON], status=_failure_status(failure)
        )

    def reject_listing(self, response, reason: str) -> None:
        """A listing answered but is not what it should be (an error page, the wrong JSON): it is logged as a
        quarantined URL of its own, and its complete listing is not synced."""
        self.logger.error("unusable listing %s: %s", response.url, reason)
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(response.request.meta.get("mendel_listing"))
        self.discovered += 1
        self.log_outcome(response.url, "quarantined", status=response.status, reason=f"listing: {reason}"[:MAX_REASON])

    def on_callback_error(self, response, exception: Exception) -> None:
        """A callback raised while parsing ``response`` (an HTML error page where JSON was expected...)."""
        if is_outage(exception):  # not the page's fault: the database went away while the callback wrote
            self.database_down(exception)
            if response.request.meta.get("mendel_document"):
                self.spool_outcome(url=response.url, outcome="quarantined", status=response.status, reason=NOT_FETCHED)
            return
        kind = _content_type(response) or "no content type"
        reason = f"unparseable ({kind}): {type(exception).__name__}: {exception}"
        if not response.request.meta.get("mendel_document"):
            self.reject_listing(response, reason)
            return
        self.logger.error("could not parse %s: %s", response.url, reason)
        self.log_outcome(response.url, "quarantined", status=response.status, reason=reason[:MAX_REASON])

    def on_redirect_dropped(self, request) -> None:
        """A redirected listing request landed on a URL already fetched in this run (a loop)."""
        chain = [*request.meta.get("redirect_urls", [])]
        self.crawler.stats.inc_value("mendel/listing_failed")
        self.listing_incomplete(request.meta.get("mendel_listing"))
        self.discovered += 1
        self.log_outcome(
            chain[0] if chain else request.url,
            "quarantined",
            reason=f"listing: redirect loop: back to an already fetched URL after {len(chain)} redirects",
        )

    def finish_run(self, spider=None, reason: str = "finished") -> None:
        """Sync the complete listings (only after a finished crawl) and record what this run discovered."""
        self._close_outcome_connection()
        run_id = self.settings.get("MENDEL_RUN_ID")
        if self.outage is None:
            try:
                self._finish_run_in_database(run_id, reason)
                return
            except psycopg.Error as exc:
                if not is_outage(exc):
                    raise
                self.database_down(exc)
        # Listings are not synced after an outage (the run was cut short); the run's record waits in the spool.
        if run_id and self.spool is not None:
            self.spool.run(
                discovered=self.discovered,
                incomplete_listings=sorted(self.incomplete_listings),
                finish_reason="database_outage",
            )

    def _finish_run_in_database(self, run_id: str | None, reason: str) -> None:
        withdrawn = reactivated = 0
        with self._connect() as conn:
            if reason == "finished":
                for listing, doc_ids in self.listings.items():
                    # A listing read only in part proves what is there, never what is gone.
                    gone, back = crawlstate.sync_listing(
                        conn,
                        source=self.source,
                        listing=listing,
                        doc_ids=doc_ids,
                        complete=listing not in self.incomplete_listings,
                    )
                    withdrawn, reactivated = withdrawn + len(gone), reactivated + len(back)
                    if gone or back:
                        self.logger.info("listing %s: %d withdrawn, %d active again", listing, len(gone), len(back))
            if run_id:
                crawlstate.record_run(
                    conn,
                    run_id=run_id,
                    source=self.source,
                    discovered=self.discovered,
                    withdrawn=withdrawn,
                    reactivated=reactivated,
                    incomplete_listings=sorted(self.incomplete_listings),
                    finish_reason=reason,
                )
        self.crawler.stats.set_value("mendel/withdrawn", withdrawn)
        self.crawler.stats.set_value("mendel/reactivated", reactivated)


def _schedule_close(engine, reason: str) -> None:
    from scrapy.utils.defer import deferred_from_coro

    deferred_from_coro(engine.close_spider_async(reason=reason))


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
