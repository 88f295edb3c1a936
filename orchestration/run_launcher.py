"""Dagster's default run launcher, able to tell the daemon's run monitoring whether a run's worker is alive: a run
whose worker process is gone (SIGKILL, OOM, a reboot) is reported failed, so its slots are freed instead of holding
the queue. Assumes the daemon runs on the machine that runs the run workers, as both file-based profiles do.
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
