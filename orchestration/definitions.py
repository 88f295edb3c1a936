"""The one Definitions object: assets by stage, the jobs, schedules and sensors, resources from the environment.

Each list below is the one place its kind is registered: a new stage module, a source family with its own sensor
(e.g. municipal boards from the registry), or another job is one more entry in ASSET_MODULES, SENSORS or JOBS.
"""

from dagster import Definitions, ExecutorDefinition, load_assets_from_modules

from assets import boards, crawl, evaluation, extract, feedback, index, law, ner, serve
from assets.doctor import data_invariants
from orchestration.board_sensor import crawl_boards_job, new_boards_from_registry
from orchestration.jobs import nightly_job
from orchestration.pipes import ParentBoundPipesSubprocessClient
from orchestration.resources import mendel_resource_from_env
from orchestration.schedules import nightly_schedule
from orchestration.sensors import alert_on_run_failure, process_new_versions
from orchestration.sources import freshness_sensor, source_freshness_checks, source_jobs

ASSET_MODULES = [crawl, boards, extract, ner, law, feedback, index, serve, evaluation]
FRESHNESS_CHECKS = source_freshness_checks()
ASSET_CHECKS = [*FRESHNESS_CHECKS, *crawl.CRAWL_CHECKS, data_invariants]
JOBS = [nightly_job, *source_jobs(), crawl_boards_job]
SCHEDULES = [nightly_schedule]
SENSORS = [alert_on_run_failure, process_new_versions, freshness_sensor(FRESHNESS_CHECKS), new_boards_from_registry]


def build_definitions(executor: ExecutorDefinition | None = None, **resource_overrides) -> Definitions:
    """``executor``: None runs each step in its own process on this machine (Dagster's default); the Celery and
    Kubernetes code locations (orchestration/celery_defs.py, orchestration/k8s_defs.py) pass theirs."""
    resources = {
        "mendel": mendel_resource_from_env(),
        "pipes_subprocess_client": ParentBoundPipesSubprocessClient(),  # crawlers die with their run
        **resource_overrides,
    }
    return Definitions(
        assets=load_assets_from_modules(ASSET_MODULES),
        asset_checks=ASSET_CHECKS,
        jobs=JOBS,
        schedules=SCHEDULES,
        sensors=SENSORS,
        resources=resources,
        executor=executor,
    )


defs = build_definitions()
