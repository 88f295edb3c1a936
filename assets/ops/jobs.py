"""The nightly job: every asset, without the freshness checks, tagged as a processing run."""

from dagster import AssetSelection, define_asset_job

from assets.crawl.per_source import without_freshness_checks
from orchestration.policies import PROCESSING_TAG, PROCESSING_TAG_VALUE

nightly_job = define_asset_job(
    "nightly",
    selection=without_freshness_checks(AssetSelection.all()),
    tags={PROCESSING_TAG: PROCESSING_TAG_VALUE},
    description="Crawl every source, extract, recognise, index and publish a serving bundle.",
)
