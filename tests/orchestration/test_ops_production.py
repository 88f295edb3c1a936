"""The production instance profile on the embedded PostgreSQL: a backfill launched from the CLI queues one run per
requested window and nothing else, the queue lets one run per source go at a time, and a source's pool keeps its
second crawl waiting while another source's crawl goes ahead — with runs and events stored in PostgreSQL."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from dagster import AssetKey, DagsterInstance, DagsterRunStatus, asset, materialize
from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import QueuedRunCoordinatorDaemon

from cli.main import dagster_yaml_for
from mendel.core import db
from mendel.core.config import PROJECT_ROOT
from mendel.core.sources import SOURCES
from orchestration.definitions import defs

pytestmark = pytest.mark.slow

DAGSTER_CLI = str(Path(sys.executable).parent / "dagster")
BACKFILL_WINDOWS = ["2025-01-01", "2025-02-01"]


def sqlalchemy_url(libpq_url: str) -> str:
    params = dict(item.split("=", 1) for item in libpq_url.split())
    return f"postgresql://{params['user']}:@/{params['dbname']}?host={params['host']}"


@pytest.fixture(scope="module")
def production(tmp_path_factory, pg_server_url):
    dagster_home = tmp_path_factory.mktemp("production_home")
    shutil.copyfile(dagster_yaml_for("production"), dagster_home / "dagster.yaml")
    database_url = db.create_database(pg_server_url, f"dagster_{uuid.uuid4().hex[:8]}")
    patch = pytest.MonkeyPatch()
    patch.setenv("MENDEL_DAGSTER_PG_URL", sqlalchemy_url(database_url))
    instance = DagsterInstance.from_config(str(dagster_home))
    try:
        yield {"instance": instance, "home": dagster_home, "database_url": database_url}
    finally:
        instance.dispose()
        patch.undo()


@pytest.fixture(scope="module")
def backfill(production):
    """`dagster job backfill` as an operator runs it, against the production instance."""
    env = dict(os.environ, DAGSTER_HOME=str(production["home"]))
    command = [
        DAGSTER_CLI,
        "job",
        "backfill",
        "-m",
        "orchestration.definitions",
        "-a",
        "defs",
        "-j",
        "backfill_nsoud",
        "--partitions",
        ",".join(BACKFILL_WINDOWS),
        "--noprompt",
    ]
    completed = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed


def test_backfill_queues_one_run_per_requested_window(production, backfill):
    instance = production["instance"]
    runs = instance.get_runs()
    assert len(runs) == len(BACKFILL_WINDOWS)
    assert sorted(run.tags["dagster/partition"] for run in runs) == BACKFILL_WINDOWS
    assert {run.job_name for run in runs} == {"backfill_nsoud"}
    assert {run.status for run in runs} == {DagsterRunStatus.QUEUED}  # the daemon starts them, one at a time
    assert len({run.tags["dagster/backfill"] for run in runs}) == 1
    assert {run.tags["mendel/source"] for run in runs} == {"nsoud"}
    # each source crawls in a step of its own (<source>_crawl); a backfill run gives it its window
    windows = {run.tags["dagster/partition"]: run.run_config["ops"]["nsoud_crawl"]["config"] for run in runs}
    assert windows["2025-02-01"] == {"scope": "WINDOW", "window_start": "2025-02-01", "window_end": "2025-03-01"}
    with psycopg.connect(production["database_url"]) as conn:  # in PostgreSQL, not a local file
        assert conn.execute("SELECT count(*) FROM runs WHERE status = 'QUEUED'").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM bulk_actions").fetchone()[0] == 1


def test_queue_starts_one_run_per_source(production, backfill):
    instance = production["instance"]
    origin = instance.get_runs()[0].remote_job_origin  # the same code location as the backfill's runs
    esbirka = instance.create_run_for_job(
        job_def=defs.resolve_job_def("crawl_esbirka"),
        run_config={"scope": "USUAL"},  # a re-crawl says what it crawls
        status=DagsterRunStatus.QUEUED,
        tags={"mendel/source": "esbirka"},
        remote_job_origin=origin._replace(job_name="crawl_esbirka"),
    )
    daemon = QueuedRunCoordinatorDaemon(interval_seconds=1)
    try:
        chosen = daemon._get_runs_to_dequeue(instance, instance.get_concurrency_config(), None)
    finally:
        daemon.__exit__(None, None, None)
    # Three queued runs, four run slots: both nsoud windows would fit, but one source gets one run at a time.
    assert sorted(run.tags["mendel/source"] for run in chosen) == ["esbirka", "nsoud"]
    assert esbirka.run_id in {run.run_id for run in chosen}


def test_a_busy_crawl_pool_holds_only_that_crawl(production):
    instance = production["instance"]
    # The board crawl holds a Dagster pool; the other sources take an advisory lock named by theirs in the crawl
    # process (tests/crawlers/test_run.py): here the instance's limits, with a source pool's name as the other.
    pools = {"boards": defs.resolve_assets_def("board_documents").node_def.pool, "esbirka": SOURCES["esbirka"].pool}
    assert pools["boards"] and pools["esbirka"]

    # Stand-ins with the crawl assets' keys and pools: what is tested is the instance's pool limits.
    @asset(name="board_documents", pool=pools["boards"])
    def boards_stand_in() -> int:
        return 1

    @asset(name="esbirka_documents", pool=pools["esbirka"])
    def esbirka_stand_in() -> int:
        return 1

    storage = instance.event_log_storage
    # a pool's slots are made at its first claim (by a step, or here): the profile's default_limit, 1
    assert storage.initialize_concurrency_limit_to_default(pools["boards"])
    assert storage.get_concurrency_info(pools["boards"]).slot_count == 1
    storage.claim_concurrency_slot(pools["boards"], "a-slow-board-crawl", "board_documents")
    outcome = {}
    worker = threading.Thread(
        target=lambda: outcome.setdefault("result", materialize([boards_stand_in, esbirka_stand_in], instance=instance))
    )
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while instance.get_latest_materialization_event(AssetKey("esbirka_documents")) is None:
            assert time.monotonic() < deadline, "esbirka's crawl never ran"
            time.sleep(0.2)
        time.sleep(1.0)
        assert instance.get_latest_materialization_event(AssetKey("board_documents")) is None
        pending = storage.get_concurrency_info(pools["boards"]).pending_steps
        assert any(step.run_id != "a-slow-board-crawl" for step in pending)  # waiting for the slot
    finally:
        storage.free_concurrency_slots_for_run("a-slow-board-crawl")
        worker.join(300)
    assert outcome["result"].success
    assert instance.get_latest_materialization_event(AssetKey("board_documents")) is not None
    with psycopg.connect(production["database_url"]) as conn:
        events = conn.execute(
            "SELECT count(*) FROM event_logs WHERE run_id = %s", (outcome["result"].run_id,)
        ).fetchone()[0]
    assert events > 0
