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
# A profile may fetch published URLs elsewhere (the demo's mirror: crawlers.demo) and add Chromium switches.
MENDEL_URL_REWRITER = None
MENDEL_CHROMIUM_ARGS = []
# Suffixes to treat as public when telling shared hosting providers apart (mendel.crawl.boards.hosting): the demo's
# made-up board hosts are each a site of their own under mirror.test.
MENDEL_EXTRA_PUBLIC_SUFFIXES = []

# Every component of every crawl. The board crawl, the register crawl and e-Sbírka's differ as declared below (their
# spiders' custom_settings take those dicts); nothing is replaced while a crawl runs.

# What the crawl knew when it opened: validators, gone URLs, when documents last answered (crawlers/extensions).
EXTENSIONS = {"crawlers.extensions.known_documents.KnownDocumentsExtension": 10}
DOWNLOADER_MIDDLEWARES = {
    "crawlers.middlewares.host_guard.HostGuardMiddleware": 50,
    # A shared hosting provider's customers take turns in one download slot (robots.txt too).
    "crawlers.middlewares.provider_slot.ProviderSlotMiddleware": 55,
    # Conditional requests from the validators each document answered with last time.
    "crawlers.middlewares.conditional_request.ConditionalRequestMiddleware": 60,
    # Retries wait (exponential backoff, Retry-After) instead of hammering a failing server.
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "crawlers.middlewares.backoff_retry.BackoffRetryMiddleware": 550,
}
SPIDER_MIDDLEWARES = {
    # Every discovered URL ends in one logged outcome, even when a callback raises or a request has no errback.
    "crawlers.middlewares.outcome_guard.OutcomeGuardMiddleware": 50,
    # Document requests counted as discovered; held-back and not-due ones logged, never sent.
    "crawlers.middlewares.document_due.DocumentDueMiddleware": 60,
}
# A redirect that lands on an already fetched URL would otherwise vanish in the duplicate filter.
DUPEFILTER_CLASS = "crawlers.dupefilter.LoggingDupeFilter"

# Small numbered steps, each testable on its own; each passes on the items it does not handle.
ITEM_PIPELINES = {
    "crawlers.pipelines.content_check.ContentCheckPipeline": 50,
    "crawlers.pipelines.content_hash.ContentHashPipeline": 100,
    "crawlers.pipelines.raw_store.RawStorePipeline": 200,
    "crawlers.pipelines.document_record.DocumentRecordPipeline": 300,
    "crawlers.pipelines.crawl_log.CrawlLogPipeline": 400,
    "crawlers.pipelines.run_record.RunRecordPipeline": 900,
}

# e-Sbírka (EsbirkaSpider.custom_settings): its act versions, and what it knew of them.
ESBIRKA_EXTENSIONS = {**EXTENSIONS, "crawlers.extensions.known_act_versions.KnownActVersionsExtension": 20}
ESBIRKA_ITEM_PIPELINES = {**ITEM_PIPELINES, "crawlers.pipelines.act_versions.ActVersionPipeline": 500}

# The lower courts' open data (JusticeSpider.custom_settings): the publication days it has closed, and the days it
# reads in full recorded (and closed once older than the publication lag).
DAYS_EXTENSIONS = {**EXTENSIONS, "crawlers.extensions.known_days.KnownDaysExtension": 20}
DAYS_ITEM_PIPELINES = {**ITEM_PIPELINES, "crawlers.pipelines.open_data_days.OpenDataDaysPipeline": 500}

# A search-by-date crawl read incrementally (NsoudSpider.custom_settings): how far its listing is read in full, and
# a complete read recorded (mendel.crawl.listing_windows).
LISTING_WINDOW_EXTENSIONS = {
    **EXTENSIONS,
    "crawlers.extensions.known_listing_window.KnownListingWindowExtension": 20,
}
LISTING_WINDOW_ITEM_PIPELINES = {**ITEM_PIPELINES, "crawlers.pipelines.listing_window.ListingWindowPipeline": 500}

# A crawl that searches file numbers besides its date window (NalusSpider.custom_settings): when the decision texts
# held under each last answered, so a held file number is searched again only once due.
DOCKETS_EXTENSIONS = {**EXTENSIONS, "crawlers.extensions.known_dockets.KnownDocketsExtension": 20}

# The board crawl (BoardsSpider.custom_settings): the stored notices and deferred attachments known when it opens,
# a budget per host, the content check, raw store and record on worker threads, notice links and deferred
# attachments written off the reactor thread, and Chromium for JavaScript boards only.
BOARD_EXTENSIONS = {**EXTENSIONS, "crawlers.extensions.known_notices.KnownNoticesExtension": 20}
BOARD_SPIDER_MIDDLEWARES = {**SPIDER_MIDDLEWARES, "crawlers.middlewares.host_budget.HostBudgetMiddleware": 70}
BOARD_ITEM_PIPELINES = {
    "crawlers.pipelines.threaded_record.ThreadedDocumentRecordPipeline": 300,
    "crawlers.pipelines.crawl_log.CrawlLogPipeline": 400,
    "crawlers.pipelines.notice_links.NoticeLinksPipeline": 500,
    "crawlers.pipelines.deferred_attachments.DeferredAttachmentPipeline": 600,
    "crawlers.pipelines.run_record.RunRecordPipeline": 900,
}
BOARD_DOWNLOAD_HANDLERS = {
    "http": "crawlers.handlers.browser.BoundedPlaywrightDownloadHandler",
    "https": "crawlers.handlers.browser.BoundedPlaywrightDownloadHandler",
}
BOARD_LOG_FORMATTER = "crawlers.log_formatter.QuietLogFormatter"
BOARD_SCHEDULER_PRIORITY_QUEUE = "crawlers.host_queue.LongestReadyHostPriorityQueue"

# The register crawl (CatalogueSpider.custom_settings): nothing known beforehand, its pages exported as JSON lines.
CATALOGUE_EXTENSIONS = {}
CATALOGUE_ITEM_PIPELINES = {}

# The board finder (BoardFinderSpider.custom_settings): nothing known beforehand, its candidates exported as JSON lines.
FINDER_EXTENSIONS = {}
FINDER_ITEM_PIPELINES = {}
