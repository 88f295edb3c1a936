"""The nightly job: every asset, without the freshness checks, tagged as a processing run and as a run whose crawls
take their usual range (every source's, every registered board) — so the schedule needs no run config, while a
crawl launched on its own must say what it crawls."""

from dagster import AssetSelection, define_asset_job

from assets.crawl.assets import CrawlScope
from assets.crawl.per_source import without_freshness_checks
from orchestration.policies import CRAWL_SCOPE_TAG, PROCESSING_TAG, PROCESSING_TAG_VALUE

nightly_job = define_asset_job(
    "nightly",
    selection=without_freshness_checks(AssetSelection.all()),
    tags={PROCESSING_TAG: PROCESSING_TAG_VALUE, CRAWL_SCOPE_TAG: CrawlScope.USUAL.value},
    description="Crawl every source, extract, recognise, index and publish a serving bundle.",
)
