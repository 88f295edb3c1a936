"""Run one spider in its own process (Twisted's reactor can't restart) and report counts through Dagster Pipes.

    python -m crawlers.run esbirka     # or any other source of the registry (mendel.sources)

Reads MENDEL_* settings from the environment; when started by PipesSubprocessClient the counts
become the asset's materialization metadata.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid

import psycopg
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, open_dagster_pipes
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings as ScrapySettings
from scrapy.utils.misc import load_object

from crawlers import settings as crawler_settings
from mendel import crawlstate
from mendel.config import get_settings
from mendel.outage import OUTAGE_EXIT_CODE, DatabaseOutage, database_reachable, replay_spools
from mendel.sources import SOURCES

SPIDERS = {source.name: load_object(source.spider) for source in SOURCES.values()}


def spider_arguments(name: str) -> dict:
    """What the spider of a source is started with in this environment (its registry entry and the settings)."""
    return SPIDERS[name].arguments(get_settings())


def run_spider(name: str, run_id: str, database_url: str) -> dict:
    """Crawl one source to completion; returns counts by outcome plus what Scrapy saw."""
    settings = get_settings()
    spool_dir = settings.home / "crawl_spool"
    if not database_reachable(database_url):
        raise DatabaseOutage(f"{name}: PostgreSQL is unreachable; nothing crawled")
    # What a crawl stopped by an outage could not write (mendel.outage) goes in before anything else.
    replayed = replay_spools(database_url, spool_dir)
    scrapy_settings = ScrapySettings()
    scrapy_settings.setmodule(crawler_settings, priority="project")
    scrapy_settings.set("MENDEL_DATABASE_URL", database_url)
    scrapy_settings.set("MENDEL_RAW_STORE", str(settings.raw_store))
    scrapy_settings.set("MENDEL_RUN_ID", run_id)
    scrapy_settings.set("MENDEL_CRAWL_SPOOL", str(spool_dir))
    scrapy_settings.set("MENDEL_HOST_GUARD", settings.profile == "production")
    if settings.profile != "production":
        # The mirror answers instantly; politeness (robots.txt, concurrency caps) stays on, throttling waits are
        # pointless locally: AutoThrottle never lowers its delay on non-200 answers (304, 404), so a re-run that
        # is mostly 304s would crawl the mirror at a few requests a second.
        scrapy_settings.set("AUTOTHROTTLE_START_DELAY", 0.0)
        scrapy_settings.set("AUTOTHROTTLE_ENABLED", False)
        # Notice boards on the mirror have host names of their own (crawlers.mirror_hosts).
        scrapy_settings.set("TWISTED_DNS_RESOLVER", "crawlers.mirror_hosts.MirrorHostsResolver")
    process = CrawlerProcess(scrapy_settings)
    crawler = process.create_crawler(SPIDERS[name])
    started = time.monotonic()
    process.crawl(crawler, **spider_arguments(name))
    process.start()
    stats = crawler.stats.get_stats()
    if crawler.spider.outage:
        spool = crawler.spider.spool
        raise DatabaseOutage(f"{name}: database outage ({crawler.spider.outage}); the crawl stopped after "
                             f"{crawler.spider.discovered} URLs, {spool.entries} writes kept in {spool.path} "
                             "for the next crawl")
    with psycopg.connect(database_url) as conn:
        counts = crawlstate.outcome_counts(conn, run_id, SPIDERS[name].source)
        # Put off to the next run (the board crawl's budget per host): logged, not discovered in this run.
        counts["deferred"] = crawlstate.deferred_count(conn, run_id, SPIDERS[name].source)
    counts["discovered"] = crawler.spider.discovered
    counts["requests"] = int(stats.get("downloader/request_count", 0))
    counts["bytes"] = int(stats.get("downloader/response_bytes", 0))
    counts["duration_s"] = round(time.monotonic() - started, 3)
    counts["finish_reason"] = str(stats.get("finish_reason"))
    counts["listing_failed"] = int(stats.get("mendel/listing_failed", 0))
    counts["responses"] = int(stats.get("downloader/response_count", 0))
    counts["withdrawn"] = int(stats.get("mendel/withdrawn", 0))
    counts["reactivated"] = int(stats.get("mendel/reactivated", 0))
    counts["held_back"] = int(stats.get("mendel/held_back", 0))  # gone URLs in their backoff: logged, not requested
    if replayed:
        counts["spool_entries_replayed"] = sum(replayed.values())
    for key, value in stats.items():  # the board crawl: boards by kind, attachments left unfetched
        if key.startswith("mendel/boards/") or key == "mendel/attachments_over_limit":
            counts[key.split("/", 1)[1].replace("/", "_")] = int(value)
    if "playwright/page_count" in stats:  # pages Chromium rendered
        counts["playwright_pages"] = int(stats["playwright/page_count"])
    for outcome in ("stored", "unchanged", "failed"):  # e-Sbírka act versions assembled from fragments
        if stats.get(f"mendel/fragments/{outcome}"):
            counts[f"act_versions_{outcome}"] = int(stats[f"mendel/fragments/{outcome}"])
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("spider", choices=sorted(SPIDERS))
    args = parser.parse_args()
    database_url = os.environ["MENDEL_DATABASE_URL"]
    run_id = os.environ.get("MENDEL_RUN_ID") or str(uuid.uuid4())
    if DAGSTER_PIPES_CONTEXT_ENV_VAR not in os.environ:  # run by hand, not by Dagster
        try:
            print(run_spider(args.spider, run_id, database_url))
        except DatabaseOutage as exc:
            print(f"mendel crawl: {exc}", file=sys.stderr)
            sys.exit(OUTAGE_EXIT_CODE)
        return
    outage = None
    with open_dagster_pipes() as pipes:
        try:
            counts = run_spider(args.spider, run_id, database_url)
        except DatabaseOutage as exc:  # one clear line, not a traceback; the asset fails without retrying
            pipes.log.error(f"mendel crawl: {exc}")
            outage = exc
        else:
            pipes.log.info(f"{args.spider}: {counts}")
            pipes.report_asset_materialization(metadata=counts)
    if outage is not None:
        print(f"mendel crawl: {outage}", file=sys.stderr)
        sys.exit(OUTAGE_EXIT_CODE)


if __name__ == "__main__":
    main()
