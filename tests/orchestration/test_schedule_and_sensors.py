"""The nightly schedule and the run-failure alert, evaluated against a real instance and a real failed run."""

from __future__ import annotations

import json
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from zoneinfo import ZoneInfo

import pytest
from dagster import DagsterInstance, build_run_status_sensor_context, build_schedule_context, job, op

from assets.ops.sensors import WEBHOOK_ENV, alert_on_run_failure
from orchestration.definitions import defs


def test_schedule_requests_a_nightly_run_at_two_prague_time():
    schedule = defs.resolve_schedule_def("nightly_at_two")
    with DagsterInstance.ephemeral() as instance:
        when = datetime(2026, 11, 30, 2, 0, tzinfo=ZoneInfo("Europe/Prague"))
        result = schedule.evaluate_tick(build_schedule_context(instance=instance, scheduled_execution_time=when))
    assert len(result.run_requests) == 1
    assert result.run_requests[0].job_name in (None, "nightly")


@op
def broken_step():
    raise RuntimeError("mirror unreachable")


@job
def nightly():  # same name as the monitored job, so the sensor's context is a faithful one
    broken_step()


class _Capture(BaseHTTPRequestHandler):
    received: list[dict] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Capture.received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def webhook():
    server = HTTPServer(("127.0.0.1", 0), _Capture)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Capture.received = []
    yield f"http://127.0.0.1:{server.server_address[1]}/hook?token=secret"
    server.shutdown()


def test_failed_run_raises_a_structured_alert(webhook, monkeypatch, caplog):
    monkeypatch.setenv(WEBHOOK_ENV, webhook)
    with DagsterInstance.ephemeral() as instance:
        result = nightly.execute_in_process(instance=instance, raise_on_error=False)
        assert not result.success
        context = build_run_status_sensor_context(
            sensor_name="alert_on_run_failure",
            dagster_instance=instance,
            dagster_run=result.dagster_run,
            dagster_event=result.get_run_failure_event(),
        ).for_run_failure()
        alert_on_run_failure(context)
    assert len(_Capture.received) == 1
    alert = _Capture.received[0]
    assert alert["event"] == "mendel.run_failed" and alert["job"] == "nightly"
    assert alert["run_id"] == result.run_id and alert["failed_steps"] == ["broken_step"]
    assert "mendel.run_failed" in caplog.text  # the structured line is logged too
    assert "secret" not in caplog.text  # the webhook URL (and its token) never reaches the logs


def test_unreachable_webhook_does_not_raise(caplog):
    from assets.ops.sensors import failure_alert, send_alert

    alert = failure_alert("nightly", "run-1", ["a"], "boom")
    assert send_alert(alert, "http://127.0.0.1:9/hook", timeout=2) is False
    assert "alert webhook failed" in caplog.text
