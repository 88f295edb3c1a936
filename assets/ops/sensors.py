"""Sensors: new or changed documents start only their own downstream processing; a failed run raises a structured
alert (a JSON log line, and a POST to a webhook when one is configured)."""

from __future__ import annotations

import json
import logging
import os
import urllib.request
from collections.abc import Mapping

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    AssetSelection,
    DefaultSensorStatus,
    RunFailureSensorContext,
    RunRequest,
    SensorEvaluationContext,
    SkipReason,
    run_failure_sensor,
    sensor,
)

from orchestration.automation import sensor_status
from orchestration.policies import PROCESSING_TAG, PROCESSING_TAG_VALUE

WEBHOOK_ENV = "MENDEL_ALERT_WEBHOOK_URL"  # may carry a token: read from the environment, never logged


def failure_alert(job_name: str, run_id: str, failed_steps: list[str], message: str) -> dict:
    return {
        "event": "mendel.run_failed",
        "job": job_name,
        "run_id": run_id,
        "failed_steps": sorted(failed_steps),
        "message": message[:2000],
    }


alerts_log = logging.getLogger("mendel.alerts")


def send_alert(alert: dict, webhook_url: str | None = None, log=None, timeout: float = 10.0) -> bool:
    """Log the alert as one JSON line (to "mendel.alerts" and ``log``, e.g. the sensor's Dagster log); POST it
    when a webhook is set. Returns whether the POST succeeded."""
    line = json.dumps(alert, ensure_ascii=False, sort_keys=True)
    for logger in (alerts_log, log):
        if logger is not None:
            logger.error(line)
    if not webhook_url:
        return False
    request = urllib.request.Request(
        webhook_url,
        data=json.dumps(alert, ensure_ascii=False).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return 200 <= response.status < 300
    except OSError as exc:  # an unreachable webhook must not hide the alert itself
        alerts_log.warning("alert webhook failed: %s", exc.__class__.__name__)
        return False


# Every job of the code location: the nightly run, re-crawls, backfills and the runs the sensors start.
@run_failure_sensor(name="alert_on_run_failure", default_status=DefaultSensorStatus.RUNNING)
def alert_on_run_failure(context: RunFailureSensorContext):
    failed_steps = [
        event.step_key
        for event in context.instance.all_logs(context.dagster_run.run_id)
        if event.dagster_event is not None and event.dagster_event.event_type_value == "STEP_FAILURE"
    ]
    alert = failure_alert(
        context.dagster_run.job_name, context.dagster_run.run_id, failed_steps, context.failure_event.message or ""
    )
    send_alert(alert, os.environ.get(WEBHOOK_ENV), log=context.log)


CRAWL_GROUP = "crawl"
# Crawl counts that mean something downstream has to be (re)done: new or changed versions, withdrawn documents.
NEW_WORK_METADATA = ("stored", "withdrawn")
FETCH_LIMIT = 500  # materialisations read per crawl asset and tick; the cursor carries the rest to the next tick


def new_work(metadata: Mapping) -> int:
    """How many documents a crawl materialisation left to process, from its metadata counts."""
    total = 0
    for key in NEW_WORK_METADATA:
        value = getattr(metadata.get(key), "value", metadata.get(key))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            total += int(value)
    return total


def _assets_run_by(context: SensorEvaluationContext, run_id: str) -> set[AssetKey]:
    """The assets a run was planned to materialise (empty for a runless report or an unknown job)."""
    run = context.instance.get_run_by_id(run_id) if run_id else None
    if run is None:
        return set()
    if run.asset_selection:  # a subset run; a whole job's run may record an empty selection
        return set(run.asset_selection)
    if context.repository_def is None or not context.repository_def.has_job(run.job_name):
        return set()
    return set(context.repository_def.get_job(run.job_name).asset_layer.selected_asset_keys)


@sensor(
    name="process_new_versions",
    target=AssetSelection.all() - AssetSelection.groups(CRAWL_GROUP),
    minimum_interval_seconds=120,
    default_status=sensor_status(),
    description="When a crawl outside the nightly run (re-crawl, backfill) stored new or changed versions, run only "
    "the assets downstream of that source.",
)
def process_new_versions(context: SensorEvaluationContext):
    graph = context.repository_def.asset_graph
    not_crawl = AssetSelection.all() - AssetSelection.groups(CRAWL_GROUP)
    cursor: dict[str, int] = json.loads(context.cursor) if context.cursor else {}
    pending: dict[AssetKey, int] = {}
    for key in sorted(AssetSelection.groups(CRAWL_GROUP).resolve(graph)):
        downstream = (AssetSelection.assets(key).downstream() & not_crawl).resolve(graph)
        records = context.instance.fetch_materializations(
            AssetRecordsFilter(asset_key=key, after_storage_id=cursor.get(key.to_user_string())),
            limit=FETCH_LIMIT,
            ascending=True,
        ).records
        for record in records:
            cursor[key.to_user_string()] = record.storage_id
            count = new_work(record.asset_materialization.metadata)
            # A run that also planned the downstream assets (the nightly job) processes its own crawl.
            if count and not downstream <= _assets_run_by(context, record.run_id):
                pending[key] = pending.get(key, 0) + count
    context.update_cursor(json.dumps(cursor, sort_keys=True))
    if not pending:
        return SkipReason("no crawl outside a processing run stored new or changed versions")
    selection = (AssetSelection.assets(*pending).downstream() & not_crawl).resolve(graph)
    changed = ",".join(sorted(key.to_user_string() for key in pending))
    return RunRequest(
        run_key=f"new-versions-{max(cursor.values())}",
        asset_selection=sorted(selection),
        tags={
            PROCESSING_TAG: PROCESSING_TAG_VALUE,
            "mendel/changed": changed,
            "mendel/new_versions": str(sum(pending.values())),
        },
    )
