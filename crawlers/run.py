"""Run one spider in its own process (Twisted's reactor can't restart) and report counts through Dagster Pipes.

    python -m crawlers.run esbirka     # or nsoud, municipal, ruian, nalus, nssoud, cnb

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
from crawlers.spiders.boards import BoardsSpider
from crawlers.spiders.cnb import CnbSpider
from crawlers.spiders.esbirka import EsbirkaSpider
from crawlers.spiders.municipal import MunicipalSpider
from crawlers.spiders.nalus import NalusSpider
from crawlers.spiders.nsoud import NsoudSpider
from crawlers.spiders.nssoud import NssoudSpider
from crawlers.spiders.ruian import RuianSpider
from mendel import crawlstate
from mendel.config import get_settings

SPIDERS = {"esbirka": EsbirkaSpider, "nsoud": NsoudSpider, "municipal": MunicipalSpider, "ruian": RuianSpider,
           "nalus": NalusSpider, "nssoud": NssoudSpider, "cnb": CnbSpider, "boards": BoardsSpider}


def spider_arguments(name: str) -> dict:
    settings = get_settings()
    if name == "esbirka":
        return {
            "base_url": settings.base_url("esbirka"),
            "years": ",".join(str(y) for y in settings.esbirka_years),
            "api_key": os.environ.get("ESBIRKA_API_KEY"),
            "acts": ",".join(settings.esbirka_acts),
            "fragments": settings.esbirka_fragments,
        }
    if name == "nsoud":
        date_from, date_to = settings.nsoud_date_range()
        return {"base_url": settings.base_url("nsoud"), "date_from": date_from, "date_to": date_to,
                "page_size": settings.nsoud_page_size}
    if name == "municipal":
        return {"feeds": ",".join(settings.municipal_feeds), "blesno_url": settings.blesno_base_url() or "",
                "rebase": settings.rebase_origin() or ""}
    if name == "ruian":
        return {"base_url": settings.base_url("cuzk"), "obce": ",".join(settings.ruian_obce),
                "changes": settings.ruian_changes, "rebase": settings.rebase_origin() or ""}
    if name == "nalus":
        date_from, date_to = settings.court_date_range("nalus")
        return {"base_url": settings.base_url("nalus"), "date_from": date_from, "date_to": date_to,
                "page_size": settings.nalus_page_size}
    if name == "nssoud":
        date_from, date_to = settings.court_date_range("nssoud")
        return {"base_url": settings.base_url("nssoud"), "date_from": date_from, "date_to": date_to}
    if name == "boards":
        # MENDEL_BOARDS_FILE: the boards to crawl (written by the board asset); unset = the whole register.
        return {"boards_file": os.environ.get("MENDEL_BOARDS_FILE", ""), "rebase": settings.rebase_origin() or "",
                "max_attachments": os.environ.get("MENDEL_BOARD_MAX_ATTACHMENTS", "")}
    if name == "cnb":
        return {"listings": ",".join(settings.cnb_listings), "rebase": settings.rebase_origin() or ""}
    raise KeyError(name)


def run_spider(name: str, run_id: str, database_url: str) -> dict:
    """Crawl one source to completion; returns counts by outcome plus what Scrapy saw."""
    settings = get_settings()
    scrapy_settings = ScrapySettings()
    scrapy_settings.setmodule(crawler_settings, priority="project")
    scrapy_settings.set("MENDEL_DATABASE_URL", database_url)
    scrapy_settings.set("MENDEL_RAW_STORE", str(settings.raw_store))
    scrapy_settings.set("MENDEL_RUN_ID", run_id)
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
    with psycopg.connect(database_url) as conn:
        counts = crawlstate.outcome_counts(conn, run_id, SPIDERS[name].source)
    counts["discovered"] = crawler.spider.discovered
    counts["requests"] = int(stats.get("downloader/request_count", 0))
    counts["bytes"] = int(stats.get("downloader/response_bytes", 0))
    counts["duration_s"] = round(time.monotonic() - started, 3)
    counts["finish_reason"] = str(stats.get("finish_reason"))
    counts["listing_failed"] = int(stats.get("mendel/listing_failed", 0))
    counts["responses"] = int(stats.get("downloader/response_count", 0))
    counts["withdrawn"] = int(stats.get("mendel/withdrawn", 0))
    counts["reactivated"] = int(stats.get("mendel/reactivated", 0))
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
        print(run_spider(args.spider, run_id, database_url))
        return
    with open_dagster_pipes() as pipes:
        counts = run_spider(args.spider, run_id, database_url)
        pipes.log.info(f"{args.spider}: {counts}")
        pipes.report_asset_materialization(metadata=counts)


if __name__ == "__main__":
    main()
