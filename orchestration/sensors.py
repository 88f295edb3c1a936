"""Run-failure alerting: a structured log line, and a JSON POST to a webhook when one is configured."""

from __future__ import annotations

import json
import logging
import os
import urllib.request

from dagster import DefaultSensorStatus, RunFailureSensorContext, run_failure_sensor

from orchestration.jobs import nightly_job

WEBHOOK_ENV = "MENDEL_ALERT_WEBHOOK_URL"  # may carry a token: read from the environment, never logged


def failure_alert(job_name: str, run_id: str, failed_steps: list[str], message: str) -> dict:
    return {"event": "mendel.run_failed", "job": job_name, "run_id": run_id, "failed_steps": sorted(failed_steps),
            "message": message[:2000]}


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
    request = urllib.request.Request(webhook_url, data=json.dumps(alert, ensure_ascii=False).encode("utf-8"),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return 200 <= response.status < 300
    except OSError as exc:  # an unreachable webhook must not hide the alert itself
        alerts_log.warning("alert webhook failed: %s", exc.__class__.__name__)
        return False


@run_failure_sensor(name="alert_on_run_failure", monitored_jobs=[nightly_job],
                    default_status=DefaultSensorStatus.RUNNING)
def alert_on_run_failure(context: RunFailureSensorContext):
    failed_steps = [
        event.step_key for event in context.instance.all_logs(context.dagster_run.run_id)
        if event.dagster_event is not None and event.dagster_event.event_type_value == "STEP_FAILURE"
    ]
    alert = failure_alert(context.dagster_run.job_name, context.dagster_run.run_id, failed_steps,
                          context.failure_event.message or "")
    send_alert(alert, os.environ.get(WEBHOOK_ENV), log=context.log)
