"""The one Definitions object: assets by stage, the nightly job and its schedule, resources from the environment."""

from dagster import Definitions, PipesSubprocessClient, load_assets_from_modules

from assets import crawl, extract, index, ner, serve
from orchestration.jobs import nightly_job
from orchestration.resources import mendel_resource_from_env
from orchestration.schedules import nightly_schedule
from orchestration.sensors import alert_on_run_failure

ASSET_MODULES = [crawl, extract, ner, index, serve]


def build_definitions(**resource_overrides) -> Definitions:
    resources = {
        "mendel": mendel_resource_from_env(),
        "pipes_subprocess_client": PipesSubprocessClient(),
        **resource_overrides,
    }
    return Definitions(
        assets=load_assets_from_modules(ASSET_MODULES),
        jobs=[nightly_job],
        schedules=[nightly_schedule],
        sensors=[alert_on_run_failure],
        resources=resources,
    )


defs = build_definitions()
