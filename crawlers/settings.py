"""Scrapy settings shared by every Mendel spider: polite by default."""

from mendel.config import USER_AGENT

BOT_NAME = "mendel"
SPIDER_MODULES = ["crawlers.spiders"]
NEWSPIDER_MODULE = "crawlers.spiders"

USER_AGENT = USER_AGENT
ROBOTSTXT_OBEY = True
COOKIES_ENABLED = False
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.0
DOWNLOAD_TIMEOUT = 60
DOWNLOAD_MAXSIZE = 200 * 1024 * 1024
RETRY_ENABLED = True
RETRY_TIMES = 3
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
DOWNLOADER_MIDDLEWARES = {"crawlers.middlewares.HostGuardMiddleware": 50}

# Small numbered steps, each testable on its own.
ITEM_PIPELINES = {
    "crawlers.pipelines.ContentHashPipeline": 100,
    "crawlers.pipelines.RawStorePipeline": 200,
    "crawlers.pipelines.DocumentRecordPipeline": 300,
}
