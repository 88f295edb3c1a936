from dagster import AssetSelection, define_asset_job

nightly_job = define_asset_job(
    "nightly",
    selection=AssetSelection.all(),
    description="Crawl every source, extract, recognise, index and publish a serving bundle.",
)
