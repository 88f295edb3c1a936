"""Scrapy settings shared by every Mendel spider: polite by default.

Limits that tests and operators tune come from the environment (read when a crawl process starts):

- ``MENDEL_DOWNLOAD_TIMEOUT``   seconds before a download is abandoned (default 60)
- ``MENDEL_DOWNLOAD_MAXSIZE``   largest body accepted, after decompression, in bytes (default 200 MiB); bigger
  files and decompression bombs are quarantined
- ``MENDEL_RETRY_TIMES``        retries after the first try for 5xx/408/429, timeouts, resets and truncated
  bodies (default 3)
- ``MENDEL_RETRY_BACKOFF``      seconds before the first retry, doubled for each next one (default 1.0), capped
  by ``MENDEL_RETRY_BACKOFF_MAX`` (default 60); a ``Retry-After`` header is honoured up to that cap
"""

import os

from mendel.core.config import USER_AGENT


def _number(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


BOT_NAME = "mendel"
SPIDER_MODULES = ["crawlers.spiders"]
NEWSPIDER_MODULE = "crawlers.spiders"

USER_AGENT = USER_AGENT
ROBOTSTXT_OBEY = True
COOKIES_ENABLED = False
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.0
DOWNLOAD_TIMEOUT = _number("MENDEL_DOWNLOAD_TIMEOUT", 60)
DOWNLOAD_MAXSIZE = int(_number("MENDEL_DOWNLOAD_MAXSIZE", 200 * 1024 * 1024))
DOWNLOAD_WARNSIZE = min(32 * 1024 * 1024, DOWNLOAD_MAXSIZE)
DOWNLOAD_FAIL_ON_DATALOSS = True  # a body shorter than its Content-Length is an error, never stored
RETRY_ENABLED = True
RETRY_TIMES = int(_number("MENDEL_RETRY_TIMES", 3))
MENDEL_RETRY_BACKOFF = _number("MENDEL_RETRY_BACKOFF", 1.0)
MENDEL_RETRY_BACKOFF_MAX = _number("MENDEL_RETRY_BACKOFF_MAX", 60.0)
REDIRECT_MAX_TIMES = 10
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False  # no listening control port on crawl workers
LOG_LEVEL = "INFO"
STATS_DUMP = False  # counts travel back through Dagster Pipes instead
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"

# Production crawls stay on their sources' hosts and off private networks (crawlers.run turns it on).
MENDEL_HOST_GUARD = False
DOWNLOADER_MIDDLEWARES = {
    "crawlers.middlewares.HostGuardMiddleware": 50,
    # Retries wait (exponential backoff, Retry-After) instead of hammering a failing server.
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "crawlers.middlewares.BackoffRetryMiddleware": 550,
}
# Every discovered URL ends in one logged outcome, even when a callback raises or a request has no errback.
SPIDER_MIDDLEWARES = {"crawlers.middlewares.OutcomeGuardMiddleware": 50}
# A redirect that lands on an already fetched URL would otherwise vanish in the duplicate filter.
DUPEFILTER_CLASS = "crawlers.middlewares.LoggingDupeFilter"

# Small numbered steps, each testable on its own.
ITEM_PIPELINES = {
    "crawlers.pipelines.ContentCheckPipeline": 50,
    "crawlers.pipelines.ContentHashPipeline": 100,
    "crawlers.pipelines.RawStorePipeline": 200,
    "crawlers.pipelines.DocumentRecordPipeline": 300,
}
