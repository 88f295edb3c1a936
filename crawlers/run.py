"""Run one spider in its own process (Twisted's reactor can't restart) and report counts through Dagster Pipes.

    python -m crawlers.run esbirka

Reads MENDEL_* settings from the environment; when started by PipesSubprocessClient the counts
become the asset's materialization metadata.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

import psycopg
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, open_dagster_pipes
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings as ScrapySettings

from crawlers import settings as crawler_settings
from crawlers.spiders.esbirka import EsbirkaSpider
from mendel import crawlstate
from mendel.config import get_settings

SPIDERS = {"esbirka": EsbirkaSpider}


def spider_arguments(name: str) -> dict:
    settings = get_settings()
    if name == "esbirka":
        return {
            "base_url": settings.base_url("esbirka"),
            "years": ",".join(str(y) for y in settings.esbirka_years),
            "api_key": os.environ.get("ESBIRKA_API_KEY"),
            "acts": ",".join(settings.esbirka_acts),
        }
    raise KeyError(name)


def run_spider(name: str, run_id: str, database_url: str) -> dict:
    """Crawl one source to completion; returns counts by outcome plus what Scrapy saw."""
    settings = get_settings()
    scrapy_settings = ScrapySettings()
    scrapy_settings.setmodule(crawler_settings, priority="project")
    scrapy_settings.set("MENDEL_DATABASE_URL", database_url)
    scrapy_settings.set("MENDEL_RAW_STORE", str(settings.raw_store))
    scrapy_settings.set("MENDEL_RUN_ID", run_id)
    if settings.profile != "production":
        # The mirror answers instantly; politeness stays on, throttling waits are pointless locally.
        scrapy_settings.set("AUTOTHROTTLE_START_DELAY", 0.0)
    process = CrawlerProcess(scrapy_settings)
    crawler = process.create_crawler(SPIDERS[name])
    started = time.monotonic()
    process.crawl(crawler, **spider_arguments(name))
    process.start()
    stats = crawler.stats.get_stats()
    with psycopg.connect(database_url) as conn:
        counts = crawlstate.outcome_counts(conn, run_id)
    counts["discovered"] = crawler.spider.discovered
    counts["requests"] = int(stats.get("downloader/request_count", 0))
    counts["bytes"] = int(stats.get("downloader/response_bytes", 0))
    counts["duration_s"] = round(time.monotonic() - started, 3)
    counts["finish_reason"] = str(stats.get("finish_reason"))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("spider", choices=sorted(SPIDERS))
    args = parser.parse_args()
    database_url = os.environ["MENDEL_DATABASE_URL"]
    run_id = os.environ.get("MENDEL_RUN_ID") or str(uuid.uuid4())
    if DAGSTER_PIPES_CONTEXT_ENV_VAR not in os.environ:  # run by hand, not by Dagster
        print(run_spider(args.spider, run_id, database_url))
        return
    with open_dagster_pipes() as pipes:
        counts = run_spider(args.spider, run_id, database_url)
        pipes.log.info(f"{args.spider}: {counts}")
        pipes.report_asset_materialization(metadata=counts)

if __name__ == "__main__":
    main()
