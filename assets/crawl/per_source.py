"""What each crawl source gets from its registry entry (mendel.core.sources): a re-crawl job, date backfills, a freshness
check.

- ``crawl_<source>``: crawl one source now (no processing; the new-versions sensor starts what follows); its run
  config says what (``scope``: USUAL or WINDOW with its dates) and is required.
- ``backfill_<source>``: partitioned by the source's date windows; a backfill launches one run per window.
- ``<source>_documents`` freshness check: fails when the last crawl is older than the source's cadence + slack.
"""

import warnings
from datetime import timedelta

from dagster import (
    AssetCheckKey,
    AssetChecksDefinition,
    AssetSelection,
    Config,
    ConfigMapping,
    PartitionedConfig,
    SensorDefinition,
    SupersessionWarning,
    build_last_update_freshness_checks,
    build_sensor_for_freshness_checks,
    config_mapping,
    define_asset_job,
)
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition
from pydantic import Field

from assets.crawl.assets import BACKFILL_PARTITIONS, CRAWL_SPECS, SOURCE_CRAWLS, CrawlScope
from mendel.core.sources import SOURCES
from orchestration.automation import sensor_status
from orchestration.policies import SOURCE_TAG

FRESHNESS_SLACK = timedelta(hours=2)  # the nightly run starts at 02:00 and crawls within its first hour or two
FRESHNESS_CHECK_NAME = "freshness_check"  # the name Dagster's freshness-check factory gives its checks


def without_freshness_checks(selection: AssetSelection) -> AssetSelection:
    """Jobs leave freshness checks to their sensor: right after a crawl they would only ever pass."""
    keys = [AssetCheckKey(spec.key, FRESHNESS_CHECK_NAME) for spec in CRAWL_SPECS.values()]
    return selection - AssetSelection.checks(*keys)


def source_selection(source: str) -> AssetSelection:
    """One source's crawl asset (and its crawl_failures check): its own crawl step."""
    return without_freshness_checks(AssetSelection.assets(CRAWL_SPECS[source].key))


class CrawlNow(Config):
    """The run config of a ``crawl_<source>`` job: what it crawls, required — no re-crawl starts on empty config."""

    scope: CrawlScope = Field(description="USUAL: the source's usual range; WINDOW: window_start..window_end")
    window_start: str = Field(default="", description="WINDOW: the first day (YYYY-MM-DD)")
    window_end: str = Field(default="", description="WINDOW: the day after the last (YYYY-MM-DD)")


def crawl_now_config(source: str) -> ConfigMapping:
    op_name = SOURCE_CRAWLS[source].node_def.name  # the source's crawl step

    @config_mapping
    def to_step_config(config: CrawlNow) -> dict:
        return {"ops": {op_name: {"config": {**config.model_dump(), "scope": config.scope.name}}}}

    return to_step_config


def crawl_job(source: str) -> UnresolvedAssetJobDefinition:
    return define_asset_job(
        f"crawl_{source}",
        selection=source_selection(source),
        config=crawl_now_config(source),
        tags={SOURCE_TAG: source},
        description=f"Crawl {source} now, saying what: scope USUAL (the usual range) or WINDOW with window_start and "
        "window_end; new or changed documents then trigger their processing (sensor).",
    )


def window_run_config(source: str):
    op_name = SOURCE_CRAWLS[source].node_def.name  # the source's crawl step

    def run_config(partition_key: str) -> dict:
        window = BACKFILL_PARTITIONS[source].time_window_for_partition_key(partition_key)
        return {
            "ops": {
                op_name: {
                    "config": {
                        "scope": CrawlScope.WINDOW.name,
                        "window_start": window.start.date().isoformat(),
                        "window_end": window.end.date().isoformat(),
                    }
                }
            }
        }

    return run_config


def backfill_job(source: str) -> UnresolvedAssetJobDefinition:
    partitions = BACKFILL_PARTITIONS[source]
    return define_asset_job(
        f"backfill_{source}",
        selection=source_selection(source),
        partitions_def=partitions,
        config=PartitionedConfig(partitions_def=partitions, run_config_for_partition_key_fn=window_run_config(source)),
        tags={SOURCE_TAG: source},
        description=f"Re-crawl {source} one date window per partition (backfill by date).",
    )


# Dagster 1.13 marks freshness checks as superseded by FreshnessPolicy, which only its daemon evaluates; checks
# run as ordinary asset checks (history, pass/fail, alerts) and are testable, so they stay until that changes.
_SUPERSEDED = {"action": "ignore", "category": SupersessionWarning}


def freshness_checks(source: str) -> list[AssetChecksDefinition]:
    with warnings.catch_warnings():
        warnings.filterwarnings(**_SUPERSEDED)
        return list(
            build_last_update_freshness_checks(
                assets=[CRAWL_SPECS[source].key],
                lower_bound_delta=SOURCES[source].cadence + FRESHNESS_SLACK,
                timezone="Europe/Prague",
            )
        )


def source_jobs() -> list[UnresolvedAssetJobDefinition]:
    jobs = [crawl_job(source) for source in CRAWL_SPECS]
    jobs += [backfill_job(source) for source in BACKFILL_PARTITIONS]
    return jobs


def source_freshness_checks() -> list[AssetChecksDefinition]:
    return [check for source in CRAWL_SPECS for check in freshness_checks(source)]


def freshness_sensor(checks: list[AssetChecksDefinition]) -> SensorDefinition:
    # Evaluates each check when it could have turned stale (and at most every 10 minutes).
    with warnings.catch_warnings():
        warnings.filterwarnings(**_SUPERSEDED)
        return build_sensor_for_freshness_checks(
            freshness_checks=checks,
            minimum_interval_seconds=600,
            name="crawl_freshness",
            default_status=sensor_status(),
        )
