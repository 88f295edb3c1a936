"""Dagster's default run launcher, able to tell the daemon's run monitoring whether a run's worker is alive.

Dagster's DefaultRunLauncher can't, so a run whose process was killed (SIGKILL, OOM, a reboot) stays STARTED
for ever and holds its run slot: the queue then starts nothing, the 02:00 nightly included. This launcher looks
up the process that reported the run's RUN_START (the run worker; for `mendel run`, the command itself) and
reports it FAILED when that process is gone or its pid now belongs to a younger process, so run monitoring
marks the run failed on its next poll and frees its slots. It assumes what both file-based instance profiles
assume: the daemon runs on the machine that runs the run workers (Kubernetes has its own launcher and check).
"""

from __future__ import annotations

import psutil
from dagster import DagsterEventType, DefaultRunLauncher
from dagster._core.launcher.base import CheckRunHealthResult, WorkerStatus

# A process started this long after the run's RUN_START can't be its worker (the pid was reused).
PID_REUSE_SLACK_S = 2.0


def run_worker(instance, run_id: str) -> tuple[int, float] | None:
    """(pid, RUN_START timestamp) of the process that started ``run_id``, or None when it has not started."""
    entries = instance.all_logs(run_id, of_type=DagsterEventType.RUN_START)
    for entry in reversed(entries):  # a resumed run's latest start counts
        if entry.dagster_event is not None and entry.dagster_event.pid:
            return entry.dagster_event.pid, entry.timestamp
    return None


def worker_health(pid: int, started_at: float) -> CheckRunHealthResult:
    try:
        process = psutil.Process(pid)
        created = process.create_time()
        zombie = process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return CheckRunHealthResult(WorkerStatus.FAILED, f"run worker process {pid} is gone")
    if zombie:
        return CheckRunHealthResult(WorkerStatus.FAILED, f"run worker process {pid} has exited (zombie)")
    if created > started_at + PID_REUSE_SLACK_S:
        return CheckRunHealthResult(
            WorkerStatus.FAILED, f"run worker process {pid} is gone (the pid now belongs to a newer process)"
        )
    return CheckRunHealthResult(WorkerStatus.RUNNING, f"run worker process {pid} is alive")


class LocalRunLauncher(DefaultRunLauncher):
    """DefaultRunLauncher plus a worker health check by process id (instance config: run_launcher)."""

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run) -> CheckRunHealthResult:
        worker = run_worker(self._instance, run.run_id)
        if worker is None:  # STARTED without a RUN_START event: nothing to judge by; the runtime limit still applies
            return CheckRunHealthResult(WorkerStatus.RUNNING, "no RUN_START event to find the run worker by")
        return worker_health(*worker)
