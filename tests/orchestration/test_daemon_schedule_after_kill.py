"""A SIGKILLed nightly no longer stops the schedule, on a real instance with a real `dagster-daemon run`.

The instance takes the demo profile (dagster.yaml: one run at a time, the health-checking LocalRunLauncher, run
monitoring) with only the waits shortened for the test — monitoring polls every 2 s instead of 60 s, a dead run's
pool slots are freed after 2 s instead of 300 s, the queue is read every second; the production values stay as
they are. The code location is the nightly's shape in small: an asset job ``nightly`` with the processing tag, a
crawl step holding a one-slot pool, a processing step after it, and a schedule ticking every minute.

The nightly runs as `mendel run` runs it (in process, outside the queue, yet holding the one run slot) and hangs in
its crawl step; the next minute's tick queues a scheduled run behind it; the in-process run is SIGKILLed. Then: run
monitoring marks it FAILED (the launcher's message names the dead worker; with Dagster's DefaultRunLauncher it stays
STARTED and the queue logs "1 runs are currently in progress… won't launch more"), its pool slot is freed, and the
queued scheduled run starts and succeeds. (A run the daemon launched itself is failed by its code server once the
worker dies; the in-process run has no code server, so only run monitoring can see it die.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest
import yaml

from mendel.core.config import PROJECT_ROOT
from tests.support.wait import wait_for

pytestmark = pytest.mark.slow

POOL = "crawl_nightly_shape"
SCHEDULE = "nightly_every_minute"
HANG_TAG = "test/hang"
# Generous for a loaded 2-core machine; every wait polls, none sleeps its whole length.
START_TIMEOUT_S = 120
FAIL_TIMEOUT_S = 60
NEXT_TICK_TIMEOUT_S = 60 + 30  # the next minute's tick (the scheduler wakes at each minute's start)
RUN_TIMEOUT_S = 120  # launching the queued run (a run worker process) and running it
SCHEDULE_TAG = "dagster/schedule_name"

LOCATION = textwrap.dedent(f"""
    import os
    import time

    from dagster import DefaultScheduleStatus, Definitions, ScheduleDefinition, asset, define_asset_job

    from orchestration.policies import PROCESSING_TAG, PROCESSING_TAG_VALUE


    @asset(pool={POOL!r})
    def crawled(context) -> int:
        if context.run.tags.get({HANG_TAG!r}):
            marker = os.path.join(os.environ["NIGHTLY_SHAPE_MARKERS"], context.run_id)
            with open(marker + ".tmp", "w") as out:
                out.write(str(os.getpid()))
            os.replace(marker + ".tmp", marker)
            time.sleep(600)  # a crawl that hangs until its run is killed
        return 1


    @asset
    def processed(crawled: int) -> int:
        return crawled + 1


    nightly = define_asset_job("nightly", selection=[crawled, processed],
                               tags={{PROCESSING_TAG: PROCESSING_TAG_VALUE}})
    defs = Definitions(
        assets=[crawled, processed],
        jobs=[nightly],
        schedules=[ScheduleDefinition(name={SCHEDULE!r}, job=nightly, cron_schedule="* * * * *",
                                      default_status=DefaultScheduleStatus.RUNNING)],
    )
""")


IN_PROCESS_RUN = textwrap.dedent(f"""
    import runpy
    import sys

    from dagster import DagsterInstance

    defs = runpy.run_path(sys.argv[1])["defs"]
    defs.resolve_job_def("nightly").execute_in_process(instance=DagsterInstance.get(), tags={{{HANG_TAG!r}: "1"}})
""")


def write_test_profile(home: Path) -> dict:
    """The demo profile with the test's short waits."""
    config = yaml.safe_load((PROJECT_ROOT / "dagster.yaml").read_text(encoding="utf-8"))
    config["run_monitoring"].update(poll_interval_seconds=2, free_slots_after_run_end_seconds=2)
    config["run_coordinator"]["config"]["dequeue_interval_seconds"] = 1
    (home / "dagster.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return config


def _default_sigterm() -> None:
    # An ignored SIGTERM is inherited across exec; a long test session may have left it ignored here.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Processes:
    """Every process the test starts carries a tag in its environment (inherited by the code server, run workers
    and step processes), so all of them can be found and killed at the end, orphans included."""

    def __init__(self, env: dict[str, str]):
        self.tag = uuid.uuid4().hex
        self.env = {**env, "NIGHTLY_SHAPE_TEST_TAG": self.tag}
        self.started: list[subprocess.Popen] = []

    def start(self, command: list[str], log: Path) -> subprocess.Popen:
        with log.open("ab") as out:
            process = subprocess.Popen(
                command,
                cwd=PROJECT_ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_default_sigterm,
                start_new_session=True,
            )
        self.started.append(process)
        return process

    def tagged(self) -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter():
            try:
                if process.environ().get("NIGHTLY_SHAPE_TEST_TAG") == self.tag:
                    found.append(process)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
        return found

    def kill_all(self) -> None:
        for process in self.started:  # give the daemon a moment to stop its threads and code server
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 5
        for process in self.started:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for process in self.tagged():
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(self.tagged(), timeout=10)
        for process in self.started:
            if process.poll() is None:
                process.kill()
                process.wait()


def poll(predicate, timeout: float, what: str, log: Path, interval: float = 0.5):
    try:
        return wait_for(predicate, timeout, interval)
    except AssertionError:
        tail = log.read_text(encoding="utf-8", errors="replace")[-4000:] if log.exists() else ""
        raise AssertionError(f"{what}: not within {timeout} s\n--- daemon log (tail) ---\n{tail}") from None


@pytest.fixture
def instance_home(tmp_path, monkeypatch):
    home = tmp_path / "dagster_home"
    markers = tmp_path / "markers"
    home.mkdir()
    markers.mkdir()
    location = tmp_path / "nightly_shape.py"
    location.write_text(LOCATION, encoding="utf-8")
    workspace = tmp_path / "workspace.yaml"
    workspace.write_text(
        yaml.safe_dump(
            {
                "load_from": [
                    {
                        "python_file": {
                            "relative_path": str(tmp_path / "nightly_shape.py"),
                            "working_directory": str(PROJECT_ROOT),
                            "location_name": "nightly_shape",
                        }
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    write_test_profile(home)
    monkeypatch.setenv("DAGSTER_HOME", str(home))  # the instance opened in the test reads it too
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "NIGHTLY_SHAPE_MARKERS": str(markers),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])),
    }
    processes = Processes(env)
    try:
        yield {
            "home": home,
            "markers": markers,
            "workspace": workspace,
            "location": location,
            "processes": processes,
            "log": tmp_path,
        }
    finally:
        processes.kill_all()
        assert not processes.tagged(), "a process the test started outlived it"


def test_profile_keeps_production_waits(tmp_path):
    config = write_test_profile(tmp_path)
    demo = yaml.safe_load((PROJECT_ROOT / "dagster.yaml").read_text(encoding="utf-8"))
    assert demo["run_monitoring"]["poll_interval_seconds"] == 60  # the file itself is untouched
    assert config["run_launcher"] == demo["run_launcher"] and config["run_monitoring"]["enabled"]
    assert config["run_coordinator"]["config"]["max_concurrent_runs"] == 1


def test_schedule_runs_again_after_a_sigkilled_nightly(instance_home):
    from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

    from orchestration.run_launcher import run_worker

    home, processes = instance_home["home"], instance_home["processes"]
    daemon_log = instance_home["log"] / "daemon.log"
    bin_dir = Path(sys.executable).parent
    instance = DagsterInstance.from_config(str(home))
    try:
        instance.event_log_storage.set_concurrency_slots(POOL, 1)
        processes.start([str(bin_dir / "dagster-daemon"), "run", "-w", str(instance_home["workspace"])], daemon_log)
        # The nightly as `mendel run` runs it: in process, outside the queue, yet holding the one run slot.
        mendel_run = processes.start(
            [sys.executable, "-c", IN_PROCESS_RUN, str(instance_home["location"])],
            instance_home["log"] / "mendel_run.log",
        )

        def hung_run():
            runs = instance.get_runs(filters=RunsFilter(tags={HANG_TAG: "1"}))
            return runs and (instance_home["markers"] / runs[0].run_id).exists() and runs[0]

        hung = poll(hung_run, START_TIMEOUT_S, "the in-process run reaches its crawl step", daemon_log)
        assert instance.get_run_by_id(hung.run_id).status == DagsterRunStatus.STARTED
        assert int((instance_home["markers"] / hung.run_id).read_text()) == mendel_run.pid
        claimed = instance.event_log_storage.get_concurrency_info(POOL)
        assert [slot.run_id for slot in claimed.claimed_slots] == [hung.run_id]

        hung_started = instance.get_run_record_by_id(hung.run_id).start_time

        def queued_tick():
            # The next tick's run: with the one run slot held by the hung run, the queue must keep it waiting.
            for record in instance.get_run_records(filters=RunsFilter(tags={SCHEDULE_TAG: SCHEDULE})):
                status = record.dagster_run.status
                if record.create_timestamp.timestamp() > hung_started and status != DagsterRunStatus.NOT_STARTED:
                    assert status == DagsterRunStatus.QUEUED, status  # NOT_STARTED: created, not yet submitted
                    return record.dagster_run
            return None

        scheduled = poll(queued_tick, NEXT_TICK_TIMEOUT_S, "the next tick queues a run", daemon_log)

        worker_pid, _ = run_worker(instance, hung.run_id)
        assert worker_pid == mendel_run.pid
        mendel_run.kill()  # SIGKILL: nothing in the run can report its end
        mendel_run.wait()
        killed_at = time.time()

        failed = poll(
            lambda: (
                (r := instance.get_run_record_by_id(hung.run_id)).dagster_run.status == DagsterRunStatus.FAILURE and r
            ),
            FAIL_TIMEOUT_S,
            "run monitoring fails the killed run",
            daemon_log,
        )
        messages = [e.message for e in instance.all_logs(hung.run_id)]
        assert any(f"run worker process {worker_pid} is gone" in (m or "") for m in messages), messages[-3:]
        assert failed.end_time >= killed_at - 1
        poll(
            lambda: (
                hung.run_id
                not in {slot.run_id for slot in instance.event_log_storage.get_concurrency_info(POOL).claimed_slots}
            ),
            FAIL_TIMEOUT_S,
            "the killed run's pool slot is freed",
            daemon_log,
        )

        def finished():
            status = instance.get_run_by_id(scheduled.run_id).status
            return status in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED) and status

        assert poll(finished, RUN_TIMEOUT_S, "the scheduled run finishes", daemon_log) == DagsterRunStatus.SUCCESS
        record = instance.get_run_record_by_id(scheduled.run_id)
        assert record.start_time >= failed.end_time  # it left the queue only once the dead run was failed
        assert HANG_TAG not in record.dagster_run.tags
        materialized = {
            e.dagster_event.asset_key.path[-1]
            for e in instance.all_logs(scheduled.run_id)
            if e.dagster_event and e.dagster_event.event_type_value == "ASSET_MATERIALIZATION"
        }
        assert materialized == {"crawled", "processed"}
    finally:
        instance.dispose()
