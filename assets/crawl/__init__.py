"""Crawling the sources of the registry: one step per source, their failure checks, and per source a re-crawl job, date
backfills and a freshness check with its sensor."""

import dagster as dg

from assets.crawl.assets import CRAWL_CHECKS, SOURCE_CRAWLS
from assets.crawl.per_source import freshness_sensor, source_freshness_checks, source_jobs

FRESHNESS_CHECKS = source_freshness_checks()

defs = dg.Definitions(
    assets=list(SOURCE_CRAWLS.values()),
    asset_checks=[*CRAWL_CHECKS, *FRESHNESS_CHECKS],
    jobs=source_jobs(),
    sensors=[freshness_sensor(FRESHNESS_CHECKS)],
)
