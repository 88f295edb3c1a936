"""What every Mendel spider shares: conditional requests and one logged outcome per discovered URL."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import psycopg
import scrapy
from scrapy.exceptions import IgnoreRequest
from twisted.python.failure import Failure

from crawlers.middlewares import configured_hosts
from mendel import crawlstate


class MendelSpider(scrapy.Spider):
    source: str = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_hosts: frozenset[str] = frozenset()
        self.validators: dict[str, tuple[str | None, str | None]] = {}
        self.discovered = 0

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # The hosts this run was pointed at (every spider argument that is a URL); the host guard keeps to them.
        spider.allowed_hosts = configured_hosts(kwargs)
        return spider

    def _connect(self) -> psycopg.Connection:
        return psycopg.connect(self.settings.get("MENDEL_DATABASE_URL"), autocommit=True)

    def load_validators(self) -> None:
        with self._connect() as conn:
            self.validators = crawlstate.known_validators(conn, self.source)

    def document_request(self, url: str, callback, **kwargs) -> scrapy.Request:
        """A request for a document body: conditional on what we saw last time, and counted."""
        self.discovered += 1
        headers = {}
        etag, last_modified = self.validators.get(url, (None, None))
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        meta = kwargs.pop("meta", {})
        meta["handle_httpstatus_list"] = [304, 400, 401, 403, 404, 410, 500, 502, 503]
        return scrapy.Request(url, callback=callback, errback=self.on_error, headers=headers, meta=meta,
                              dont_filter=True, **kwargs)

    def log_outcome(self, url: str, outcome: str, status: int | None = None, reason: str | None = None,
                    **fields) -> None:
        with self._connect() as conn:
            crawlstate.log_outcome(conn, run_id=self.settings.get("MENDEL_RUN_ID"), source=self.source, url=url,
                                   outcome=outcome, status=status, reason=reason, **fields)
        self.crawler.stats.inc_value(f"mendel/outcome/{outcome}")

    def handle_not_ok(self, response) -> bool:
        """Log 304 as unchanged and errors as failed; True when the response has no new body."""
        if response.status == 304:
            etag, last_modified = self.validators.get(response.url, (None, None))
            self.log_outcome(response.url, "unchanged", status=304, etag=etag, last_modified=last_modified)
            return True
        if response.status >= 400:
            self.log_outcome(response.url, "failed", status=response.status, reason=f"HTTP {response.status}")
            return True
        return False

    def on_error(self, failure: Failure) -> None:
        request = failure.request
        if failure.check(IgnoreRequest) and "robots" in str(failure.value).lower():
            self.log_outcome(request.url, "disallowed", reason="robots.txt")
        elif failure.check(IgnoreRequest):
            self.log_outcome(request.url, "disallowed", reason=str(failure.value)[:500])
        else:
            self.log_outcome(request.url, "failed", reason=f"{failure.type.__name__}: {failure.value}"[:500])

    def on_listing_error(self, failure: Failure) -> None:
        """A listing (search page, feed, index) failed: nothing below it was discovered; count it and say so."""
        request = failure.request
        self.logger.error("listing failed: %s (%s: %s)", request.url, failure.type.__name__, failure.value)
        self.crawler.stats.inc_value("mendel/listing_failed")


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
