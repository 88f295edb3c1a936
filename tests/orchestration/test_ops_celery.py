"""The nightly job on an existing distributed engine: the Celery executor (dagster-celery) with a real Redis broker
(Debian redis-server on loopback) and two worker processes, on the production instance profile (PostgreSQL).
It runs the same E2E slice as the in-process `nightly` fixture, and both run times are printed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from dagster import DagsterInstance, DagsterRunStatus

from cli.main import dagster_yaml_for
from mendel.core import db
from mendel.core.config import PROJECT_ROOT
from mendel.encoder.runtime import cache_dir
from tests.support.nightly import E2E_ACTS, E2E_COURT_GOLD, E2E_CRAWL_ENV, E2E_SOURCES

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
BIN = Path(sys.executable).parent
CELERY_CONFIG = PROJECT_ROOT / "deploy" / "celery" / "celery.yaml"
WORKERS = ("mendel-w1", "mendel-w2")
LAUNCH_TIMEOUT_S = 420

pytestmark = [
    pytest.mark.skipif(not Path(REDIS_SERVER).exists(), reason="redis-server is not installed"),
    pytest.mark.e2e,
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """Stop a process this test started, with the children it started (its own process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    import redis

    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline and server.poll() is None, "redis-server did not start"
            time.sleep(0.1)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        stop(server)


@pytest.fixture(scope="module")
def celery_run(tmp_path_factory, pg_server_url, mirror, redis_url):
    """Two Celery workers, then `dagster job execute` of the nightly job on them, as an operator runs it."""
    dagster_home = tmp_path_factory.mktemp("celery_dagster_home")
    shutil.copyfile(dagster_yaml_for("production"), dagster_home / "dagster.yaml")
    storage_url = db.create_database(pg_server_url, f"dagster_{uuid.uuid4().hex[:8]}")
    params = dict(item.split("=", 1) for item in storage_url.split())
    home = tmp_path_factory.mktemp("celery_home")
    database_url = db.create_database(pg_server_url, f"celery_{uuid.uuid4().hex[:8]}")
    env = dict(
        os.environ,
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # `dagster-celery worker start` runs `celery`
        DAGSTER_HOME=str(dagster_home),
        MENDEL_DAGSTER_PG_URL=f"postgresql://{params['user']}:@/{params['dbname']}?host={params['host']}",
        MENDEL_CELERY_BROKER_URL=f"{redis_url}/0",
        MENDEL_CELERY_BACKEND_URL=f"{redis_url}/1",
        MENDEL_HOME=str(home),
        MENDEL_ENCODER_CACHE=str(cache_dir()),  # the session's converted encoder, not one per worker in this home
        MENDEL_PROFILE="demo",
        MENDEL_DATABASE_URL=database_url,
        MENDEL_MIRROR_URL=mirror.base_url,
        MENDEL_ESBIRKA_YEARS="2024,2025",
        MENDEL_ESBIRKA_ACTS=E2E_ACTS,
        MENDEL_SOURCES=E2E_SOURCES,
        MENDEL_NER_COURT_GOLD=E2E_COURT_GOLD,  # the in-process run's gold: 100 decisions, not the sample's 1,500
        **E2E_CRAWL_ENV,
    )
    workers = [
        subprocess.Popen(
            [
                str(BIN / "dagster-celery"),
                "worker",
                "start",
                "-A",
                "dagster_celery.app",
                "-y",
                str(CELERY_CONFIG),
                "-n",
                name,
                "--",
                "--pool=solo",
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for name in WORKERS
    ]
    try:
        from celery import Celery

        control = Celery("probe", broker=f"{redis_url}/0", backend=f"{redis_url}/1")
        deadline = time.monotonic() + 90
        while len(control.control.ping(timeout=1.0)) < len(WORKERS):
            assert time.monotonic() < deadline, "the Celery workers did not come up"
            assert all(worker.poll() is None for worker in workers), "a Celery worker exited"
        started = time.monotonic()
        try:
            launched = subprocess.run(
                [
                    str(BIN / "dagster"),
                    "job",
                    "execute",
                    "-m",
                    "orchestration.celery_defs",
                    "-a",
                    "defs",
                    "-j",
                    "nightly",
                    "-c",
                    str(CELERY_CONFIG),
                ],
                cwd=PROJECT_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=LAUNCH_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as exc:  # reported by the test, with the run's own events
            launched = subprocess.CompletedProcess(
                exc.cmd, returncode=-1, stdout=exc.stdout or "", stderr=f"timed out after {LAUNCH_TIMEOUT_S} s"
            )
        wall_s = time.monotonic() - started
    finally:
        for worker in workers:
            stop(worker)
    patch = pytest.MonkeyPatch()
    patch.setenv("MENDEL_DAGSTER_PG_URL", env["MENDEL_DAGSTER_PG_URL"])  # this test reads the same instance
    instance = DagsterInstance.from_config(str(dagster_home))
    try:
        yield {
            "launched": launched,
            "wall_s": wall_s,
            "instance": instance,
            "home": home,
            "database_url": database_url,
            "storage_url": storage_url,
        }
    finally:
        instance.dispose()
        patch.undo()


def run_seconds(instance, run_id: str) -> float:
    stats = instance.get_run_stats(run_id)
    return stats.end_time - stats.start_time


def materialized(instance, run_id: str) -> dict[str, dict]:
    found = {}
    for record in instance.all_logs(run_id):
        event = record.dagster_event
        if event is not None and event.event_type_value == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            found[mat.asset_key.to_user_string()] = {k: v.value for k, v in mat.metadata.items()}
    return found


def table_counts(database_url: str) -> dict[str, int]:
    with psycopg.connect(database_url) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("documents", "pages", "chunks", "registry_records")
        }


def court_gate_figures(events) -> dict:
    """The NER gate check's court-metadata figures (decisions scored, recall, …): what the run's court gold gave."""
    from assets.processing.recognition import GATE_CHECK

    for event in events:
        if event is not None and event.event_type_value == "ASSET_CHECK_EVALUATION":
            evaluation = event.event_specific_data
            if evaluation.check_name == GATE_CHECK:
                return {k: v.value for k, v in evaluation.metadata.items() if k.startswith("court_metadata_")}
    return {}


def step_trouble(instance, run_id: str) -> list[str]:
    """The run's failures and retries, to say why a run did not succeed."""
    wanted = {"STEP_FAILURE", "STEP_UP_FOR_RETRY", "RUN_FAILURE", "ENGINE_EVENT"}
    return [
        f"{r.dagster_event.event_type_value} {r.step_key}: {r.dagster_event.message}"[:600]
        for r in instance.all_logs(run_id)
        if r.dagster_event and r.dagster_event.event_type_value in wanted
    ]


def test_nightly_runs_on_two_celery_workers(celery_run, nightly):
    launched, instance = celery_run["launched"], celery_run["instance"]
    (run,) = instance.get_runs()
    assert launched.returncode == 0 and run.status == DagsterRunStatus.SUCCESS, (
        launched.stderr[-3000:],
        step_trouble(instance, run.run_id)[-15:],
    )
    assert run.job_name == "nightly"

    # Every step went to a Celery worker, and both workers took steps.
    hosts = {}
    for record in instance.all_logs(run.run_id):
        event = record.dagster_event
        if event is not None and event.event_type_value == "ENGINE_EVENT":
            worker = event.engine_event_data.metadata.get("Celery worker")
            if worker is not None:
                hosts[event.step_key] = worker.value
    assert {host.split("@")[0] for host in hosts.values()} == set(WORKERS)

    celery_assets = materialized(instance, run.run_id)
    in_process = nightly["result"]
    in_process_assets = {
        e.event_specific_data.materialization.asset_key.to_user_string()
        for e in in_process.all_events
        if e.event_type_value == "ASSET_MATERIALIZATION"
    }
    assert set(celery_assets) == in_process_assets
    # The NER gate scored the same court gold (MENDEL_NER_COURT_GOLD reached the workers' resource).
    celery_gate = court_gate_figures(record.dagster_event for record in instance.all_logs(run.run_id))
    assert celery_gate == court_gate_figures(in_process.all_events) and celery_gate["court_metadata_decisions"] > 0
    # One Celery task per step: every asset's step (each crawl source's its own, <source>_crawl), the asset
    # checks' steps, and the Neo4j export that ran but materialized nothing (no server configured).
    in_process_steps = {e.step_key for e in in_process.all_events if e.event_type_value == "STEP_SUCCESS"}
    asset_steps = {
        e.event_specific_data.materialization.asset_key.to_user_string(): e.step_key
        for e in in_process.all_events
        if e.event_type_value == "ASSET_MATERIALIZATION"
    }
    assert set(hosts) == in_process_steps and set(asset_steps.values()) <= set(hosts)
    assert (asset_steps["esbirka_documents"], asset_steps["ruian_documents"]) == ("esbirka_crawl", "ruian_crawl")
    assert celery_assets["esbirka_documents"]["stored"] == 2
    assert celery_assets["index_bundle"]["published"] is True
    # The same work: the same documents, pages, chunks and registry records as the in-process run.
    assert table_counts(celery_run["database_url"]) == table_counts(nightly["database_url"])

    with psycopg.connect(celery_run["storage_url"]) as conn:  # runs and events in PostgreSQL
        assert conn.execute("SELECT count(*) FROM event_logs WHERE run_id = %s", (run.run_id,)).fetchone()[0] > 0

    print(f"\nsteps by Celery worker: {json.dumps(hosts, sort_keys=True)}")
    timing = {
        "celery_two_workers_s": round(run_seconds(instance, run.run_id), 1),
        "celery_command_wall_s": round(celery_run["wall_s"], 1),
        "in_process_s": round(run_seconds(nightly["instance"], in_process.run_id), 1),
    }
    print(f"\nnightly E2E slice: {json.dumps(timing)}")
