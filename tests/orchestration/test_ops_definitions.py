"""What the Definitions promise operations: per-source pools, retry policy, jobs and tags, freshness checks that
really pass and fail on a real instance, and kinds, owners and groups on every asset."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from dagster import (
    AssetMaterialization,
    AssetSelection,
    Backoff,
    DagsterInstance,
    Definitions,
    Jitter,
    define_asset_job,
)
from dagster._core.test_utils import freeze_time

from assets.crawl import FRESHNESS_CHECKS
from assets.crawl.assets import BACKFILL_PARTITIONS, CRAWL_SPECS, SOURCE_CRAWLS
from assets.crawl.per_source import FRESHNESS_SLACK, freshness_checks
from mendel.core.sources import SOURCES as REGISTRY
from orchestration.definitions import defs
from orchestration.policies import NETWORK_RETRY_DELAY_S, PROCESSING_TAG, SOURCE_TAG, crawl_pool
from tests.support import REPO_ROOT

SOURCES = sorted(CRAWL_SPECS)


def test_every_source_is_crawled_by_a_step_of_its_own_with_the_network_retry_policy():
    assert {"esbirka", "nsoud", "cnb", "ruian"} <= set(SOURCES)
    for source in SOURCES:
        # One step per source, so a slow or failing source is a box of its own in the run's timeline.
        assets_def = defs.resolve_assets_def(f"{source}_documents")
        assert assets_def.node_def.name == f"{source}_crawl" and assets_def.keys == {CRAWL_SPECS[source].key}
        assert assets_def.node_def.pool == crawl_pool(source)  # a site's crawls exclude each other (and its lock)
        policy = assets_def.op.retry_policy
        assert policy.backoff is Backoff.EXPONENTIAL and policy.jitter is Jitter.PLUS_MINUS
        assert policy.max_retries >= 2 and policy.delay == NETWORK_RETRY_DELAY_S
    assert len({crawl_pool(source) for source in SOURCES}) == len(SOURCES)  # one pool (lock) per source
    assert defs.resolve_assets_def("neo4j_graph").op.retry_policy is not None  # the other network asset


def test_jobs_per_source_carry_the_source_tag():
    for source in SOURCES:
        job = defs.resolve_job_def(f"crawl_{source}")
        assert job.tags[SOURCE_TAG] == source
        assert job.asset_layer.selected_asset_keys == {CRAWL_SPECS[source].key}
    assert defs.resolve_job_def("nightly").tags[PROCESSING_TAG] == "process"


def test_backfill_jobs_partition_by_date_and_map_windows_to_crawler_settings():
    dated = sorted(BACKFILL_PARTITIONS)
    assert {"esbirka", "nsoud"} <= set(dated)
    esbirka = defs.resolve_job_def("backfill_esbirka")
    assert "2024" in esbirka.partitions_def.get_partition_keys()
    config = esbirka.partitioned_config.get_run_config_for_partition_key("2024")
    window = config["ops"]["esbirka_crawl"]["config"]
    assert window == {"scope": "WINDOW", "window_start": "2024-01-01", "window_end": "2025-01-01"}
    assert REGISTRY["esbirka"].window.backfill_env(datetime(2024, 1, 1).date(), datetime(2025, 1, 1).date()) == {
        "MENDEL_ESBIRKA_YEARS": "2024"
    }
    nsoud = defs.resolve_job_def("backfill_nsoud")
    assert nsoud.tags[SOURCE_TAG] == "nsoud"
    window = nsoud.partitioned_config.get_run_config_for_partition_key("2025-01-01")["ops"]["nsoud_crawl"]
    start, end = (datetime.fromisoformat(window["config"][k]).date() for k in ("window_start", "window_end"))
    assert REGISTRY["nsoud"].window.backfill_env(start, end) == {
        "MENDEL_NSOUD_FROM": "2025-01-01",
        "MENDEL_NSOUD_TO": "2025-01-31",
    }


def test_freshness_check_per_source_with_its_cadence():
    checked = {}
    for checks_def in FRESHNESS_CHECKS:
        for spec in checks_def.check_specs:
            params = spec.metadata["dagster/freshness_params"].data
            checked[spec.asset_key.to_user_string()] = params["lower_bound_delta_seconds"]
    assert checked == {
        f"{source}_documents": (REGISTRY[source].cadence + FRESHNESS_SLACK).total_seconds() for source in SOURCES
    }


def test_freshness_check_passes_then_fails_on_a_real_instance():
    source = "esbirka"
    check_defs = Definitions(
        assets=[SOURCE_CRAWLS[source]],
        asset_checks=freshness_checks(source),
        jobs=[define_asset_job("freshness", selection=AssetSelection.all_asset_checks())],
        resources=defs.resources,  # the crawl asset needs them to load; only its check runs
    )
    job = check_defs.resolve_job_def("freshness")
    crawled = datetime(2026, 11, 30, 2, 10, tzinfo=timezone.utc)
    limit = REGISTRY[source].cadence + FRESHNESS_SLACK

    def outcome(instance, at: datetime) -> bool:
        with freeze_time(at):
            result = job.execute_in_process(instance=instance)
        evaluations = [
            e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"
        ]
        assert [e.asset_key.to_user_string() for e in evaluations] == [f"{source}_documents"]
        return evaluations[0].passed

    with DagsterInstance.ephemeral() as instance:
        assert outcome(instance, crawled) is False  # never crawled
        with freeze_time(crawled):
            instance.report_runless_asset_event(AssetMaterialization(f"{source}_documents"))
        assert outcome(instance, crawled + limit - timedelta(minutes=5)) is True
        assert outcome(instance, crawled + limit + timedelta(minutes=5)) is False
        # The failure is recorded as the check's latest evaluation, for the UI and for alerting.
        check_key = next(iter(freshness_checks(source)[0].check_keys))
        latest = instance.event_log_storage.get_latest_asset_check_execution_by_key([check_key])[check_key]
        assert latest.event.dagster_event.event_specific_data.passed is False


AUTOMATION_STATUSES = """
import json
from orchestration.definitions import defs
print(json.dumps({**{s.name: s.default_status.value for s in defs.sensors},
                  **{s.name: s.default_status.value for s in defs.schedules}}))
"""
RUN_STARTERS = {"process_new_versions", "crawl_freshness", "new_boards_from_registry", "nightly_at_two"}


def automation_statuses(profile: str) -> dict[str, str]:
    env = {**os.environ, "MENDEL_PROFILE": profile}
    out = subprocess.run(
        [sys.executable, "-c", AUTOMATION_STATUSES],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_schedules_and_run_starting_sensors_are_on_in_production_and_off_in_the_demo():
    production, demo = automation_statuses("production"), automation_statuses("demo")
    assert RUN_STARTERS <= set(production) and set(production) == set(demo)
    assert {name: production[name] for name in RUN_STARTERS} == dict.fromkeys(RUN_STARTERS, "RUNNING")
    # Opening the UI on the demo profile queues nothing by itself.
    assert {name: demo[name] for name in RUN_STARTERS} == dict.fromkeys(RUN_STARTERS, "STOPPED")
    # The failure alert starts no run: on in both.
    assert production["alert_on_run_failure"] == demo["alert_on_run_failure"] == "RUNNING"


def test_every_asset_has_a_stage_group_kinds_and_an_owner():
    graph = defs.resolve_asset_graph()
    stages = {"crawl", "extract", "ner", "law", "index", "serve"}
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        spec = defs.resolve_assets_def(key).specs_by_key[key]
        assert node.group_name in stages, key
        assert spec.kinds, key
        assert spec.owners, key
