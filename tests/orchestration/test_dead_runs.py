"""Runs that die are seen to die: every instance profile monitors runs with a launcher that can tell a dead
run worker; a killed run is failed by the daemon's monitoring step; a crawler subprocess dies with the process
that started it; the embedded PostgreSQL's handle list loses killed processes, so the server is stopped again
when its last live user exits (or is told to stop)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import psutil
import pytest
import yaml
from dagster import asset, materialize

from mendel.core.config import PROJECT_ROOT
from orchestration.pipes import ParentBoundPipesSubprocessClient
from tests.support.wait import wait_for

PROFILES = [PROJECT_ROOT / "dagster.yaml", PROJECT_ROOT / "deploy" / "production" / "dagster.yaml"]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.parent.name)
def test_every_instance_profile_monitors_runs(path):
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    monitoring = config["run_monitoring"]
    assert monitoring["enabled"] is True
    assert 0 < monitoring["poll_interval_seconds"] <= 120  # a dead run is failed within minutes
    assert monitoring["start_timeout_seconds"] > 0 and monitoring["cancel_timeout_seconds"] > 0
    assert monitoring["max_runtime_seconds"] >= 3600 and monitoring["free_slots_after_run_end_seconds"] > 0
    assert config["run_launcher"] == {"module": "orchestration.run_launcher", "class": "LocalRunLauncher"}


def test_helm_values_monitor_runs():
    monitoring = yaml.safe_load((PROJECT_ROOT / "deploy" / "k8s" / "values.yaml").read_text())["dagsterDaemon"][
        "runMonitoring"
    ]
    assert monitoring["enabled"] is True and 0 < monitoring["pollIntervalSeconds"] <= 120


@pytest.mark.slow
def test_demo_instance_loads_the_health_checking_launcher(tmp_path, monkeypatch):
    from dagster import DagsterInstance

    from orchestration.run_launcher import LocalRunLauncher

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    shutil.copyfile(PROFILES[0], tmp_path / "dagster.yaml")
    instance = DagsterInstance.from_config(str(tmp_path))
    try:
        assert instance.run_monitoring_enabled
        assert isinstance(instance.run_launcher, LocalRunLauncher)
        assert instance.run_launcher.supports_check_run_worker_health
    finally:
        instance.dispose()


SLOW_RUN = textwrap.dedent("""
    import sys, time
    from dagster import DagsterInstance, asset, materialize

    @asset
    def slow() -> None:
        print("started", flush=True)
        time.sleep(300)

    instance = DagsterInstance.from_config(sys.argv[1])
    materialize([slow], instance=instance)
""")


@pytest.mark.slow
def test_killed_run_is_failed_by_run_monitoring(tmp_path, monkeypatch):
    import logging

    from dagster import DagsterInstance, DagsterRunStatus
    from dagster._core.launcher.base import WorkerStatus
    from dagster._daemon.monitoring.run_monitoring import monitor_started_run

    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copyfile(PROFILES[0], home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    env = {**os.environ, "DAGSTER_HOME": str(home)}
    # The instance first: it creates the SQLite schema, which two processes creating at once can race on.
    instance = DagsterInstance.from_config(str(home))
    worker = subprocess.Popen([sys.executable, "-c", SLOW_RUN, str(home)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline().strip() == "started"
        [run] = instance.get_runs()
        assert run.status == DagsterRunStatus.STARTED
        health = instance.run_launcher.check_run_worker_health(run)
        assert health.status == WorkerStatus.RUNNING, health

        worker.kill()
        worker.wait()
        assert instance.get_run_by_id(run.run_id).status == DagsterRunStatus.STARTED  # nobody said it died
        health = instance.run_launcher.check_run_worker_health(run)
        assert health.status == WorkerStatus.FAILED and f"process {worker.pid} is gone" in health.msg
        [record] = instance.get_run_records()
        monitor_started_run(instance, None, record, logging.getLogger("test"))  # what the daemon does each poll
        assert instance.get_run_by_id(run.run_id).status == DagsterRunStatus.FAILURE
    finally:
        if worker.poll() is None:
            worker.kill()
        instance.dispose()


PARENT = textwrap.dedent("""
    import subprocess, sys, time
    from orchestration.parent_death import bound_command

    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    child = subprocess.Popen(bound_command(sleeper) if sys.argv[1] == "bound" else sleeper)
    print(child.pid, flush=True)
    time.sleep(120)
""")


def _orphan_after_parent_killed(mode: str) -> tuple[int, bool]:
    parent = subprocess.Popen([sys.executable, "-c", PARENT, mode], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    wait_for(lambda: "time.sleep(120)" in " ".join(psutil.Process(child).cmdline()))  # exec'd into the command
    parent.kill()
    parent.wait()
    try:
        wait_for(lambda: _gone(child), timeout=10)
        return child, True
    except AssertionError:
        return child, False


@pytest.mark.slow
def test_bound_child_dies_with_its_parent_and_unbound_one_does_not():
    child, died = _orphan_after_parent_killed("bound")
    assert died, f"bound child {child} outlived its SIGKILLed parent"
    child, died = _orphan_after_parent_killed("plain")  # the control: what a plain Popen leaves behind
    try:
        assert not died
    finally:
        if not died:
            os.kill(child, signal.SIGKILL)


PDEATHSIG_REPORTER = textwrap.dedent("""
    import ctypes, sys
    from dagster_pipes import open_dagster_pipes

    with open_dagster_pipes():
        value = ctypes.c_int()
        ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
        open(sys.argv[1], "w").write(str(value.value))
""")


@asset
def pipes_child(context, pipes_subprocess_client: ParentBoundPipesSubprocessClient):
    report = os.environ["PDEATHSIG_REPORT"]
    return pipes_subprocess_client.run(
        command=[sys.executable, "-c", PDEATHSIG_REPORTER, report], context=context, cwd=str(PROJECT_ROOT)
    ).get_materialize_result()


def test_definitions_run_crawlers_bound_to_their_step(tmp_path, monkeypatch):
    from orchestration.definitions import build_definitions

    client = build_definitions().resources["pipes_subprocess_client"]
    assert isinstance(client, ParentBoundPipesSubprocessClient)
    monkeypatch.setenv("PDEATHSIG_REPORT", str(tmp_path / "pdeathsig.txt"))
    assert materialize([pipes_child], resources={"pipes_subprocess_client": client}).success
    assert int((tmp_path / "pdeathsig.txt").read_text()) == signal.SIGTERM  # armed in the crawler's process


USER = textwrap.dedent("""
    import sys, time
    from mendel.core import db

    db.embedded_url(sys.argv[1])
    print("ready", flush=True)
    if sys.argv[2] == "wait":
        time.sleep(300)
""")


@pytest.fixture
def pgdata():
    # As root, pgserver runs PostgreSQL as its own user, which can't enter pytest's 0700 temp tree.
    base = Path(tempfile.mkdtemp(prefix="mendel-test-pgdead-"))
    base.chmod(0o755)
    yield base / "pgdata"
    if _postmaster(base / "pgdata") is not None:  # a failed test must not leave its server behind
        subprocess.run([sys.executable, "-c", USER, str(base / "pgdata"), "exit"], cwd=PROJECT_ROOT, timeout=120)
    shutil.rmtree(base, ignore_errors=True)


def _postmaster(pgdata: Path) -> int | None:
    """The running postmaster's pid, or None."""
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return None
    pid = int(pid_file.read_text().split()[0])
    return None if _gone(pid) else pid


def _user(pgdata: Path, mode: str) -> subprocess.Popen:
    # A default SIGTERM disposition, as a user started from a shell has: an ignored SIGTERM is inherited across exec,
    # and code earlier in a long test session may have left it ignored in this process.
    process = subprocess.Popen(
        [sys.executable, "-c", USER, str(pgdata), mode],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),
    )
    assert process.stdout.readline().strip() == "ready"
    return process


def _handles(pgdata: Path) -> list[int]:
    return json.loads((pgdata / ".handle_pids.json").read_text() or "[]")


@pytest.mark.slow
def test_a_killed_last_user_leaves_no_server_running(pgdata):
    """SIGKILL can't be caught: the home's watcher drops the dead user and stops the server it was the last of."""
    killed = _user(pgdata, "wait")
    server = _postmaster(pgdata)
    assert _handles(pgdata) == [killed.pid] and server
    killed.kill()
    killed.wait()
    wait_for(lambda: _gone(server), timeout=30)
    assert _handles(pgdata) == []


@pytest.mark.slow
def test_a_killed_user_is_dropped_and_the_last_live_user_stops_the_server(pgdata):
    killed = _user(pgdata, "wait")
    live = _user(pgdata, "wait")
    server = _postmaster(pgdata)
    killed.kill()
    killed.wait()
    wait_for(lambda: _handles(pgdata) == [live.pid], timeout=30)
    assert _postmaster(pgdata) == server  # still serving the live user
    live.terminate()
    assert live.wait(timeout=60) == 128 + signal.SIGTERM
    wait_for(lambda: _gone(server), timeout=30)


@pytest.mark.slow
def test_terminated_user_stops_the_server(pgdata):
    user = _user(pgdata, "wait")
    server = _postmaster(pgdata)
    assert server
    user.terminate()
    assert user.wait(timeout=60) == 128 + signal.SIGTERM
    assert _handles(pgdata) == []
    wait_for(lambda: _gone(server), timeout=30)
