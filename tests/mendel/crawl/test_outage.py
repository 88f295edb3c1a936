"""A database outage mid-crawl (mendel.crawl.outage): the crawl stops at once with one clear error (no "could not parse"
lines, no retries against the dead server), what it could not write waits in a spool, and the next crawl writes it
first, so the stopped run reconciles like any other; the crawl asset fails without retrying."""

from __future__ import annotations

import os
import threading
import time
import uuid

import psycopg
import psycopg.conninfo
import pytest

from mendel.core import db
from mendel.crawl import crawlstate
from mendel.crawl.outage import OUTAGE_EXIT_CODE, database_reachable, is_outage
from tests.support.faults import (
    CLEARED,
    ECLI,
    FAST,
    NS_B,
    NS_C,
    NS_DAY,
    CrawlLauncher,
    Harness,
    decision,
    logged,
)

SLOW_S = 3.0  # B and C answer this late: the database goes away while they are in flight


def database_name(url: str) -> str:
    return psycopg.conninfo.conninfo_to_dict(url)["dbname"]


def stop_database(admin_url: str, name: str) -> None:
    """No new connections to ``name``, and every open one ended (what a server stop looks like to clients)."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )


def start_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


@pytest.fixture
def outage_harness(pg_server_url, tmp_path):
    database_url = db.create_database(pg_server_url, f"outage_{uuid.uuid4().hex[:8]}")
    launcher = CrawlLauncher()
    harness = Harness(launcher, database_url, tmp_path)
    harness.admin_url, harness.name = pg_server_url, database_name(database_url)
    yield harness
    start_database(pg_server_url, harness.name)
    harness.close()
    launcher.close()


def test_is_outage_tells_a_lost_server_from_a_query_error():
    assert is_outage(psycopg.OperationalError("connection failed"))
    assert is_outage(psycopg.InterfaceError("the connection is closed"))
    assert not is_outage(psycopg.errors.UniqueViolation("duplicate key"))
    assert not is_outage(psycopg.errors.DeadlockDetected("deadlock"))


@pytest.mark.e2e
def test_database_stopped_mid_crawl_fails_fast_and_the_next_crawl_accounts_for_every_url(outage_harness):
    h = outage_harness
    server = h.mirror.server
    server.faults.replace(
        [
            {"kind": "slow", "path": decision(NS_B), "seconds": SLOW_S},
            {"kind": "slow", "path": decision(NS_C), "seconds": SLOW_S},
        ]
    )

    def stop_when_a_is_stored():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with psycopg.connect(h.database_url) as conn:
                if conn.execute("SELECT count(*) FROM crawl_log WHERE run_id = 'outage-1'").fetchone()[0]:
                    break
            time.sleep(0.05)
        stop_database(h.admin_url, h.name)

    stopper = threading.Thread(target=stop_when_a_is_stored)
    stopper.start()
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    rc, out, err = h.launcher.run(
        "nsoud",
        {
            **env,
            "MENDEL_HOME": str(h.home),
            "MENDEL_PROFILE": "demo",
            "MENDEL_MIRROR_URL": h.mirror.base_url,
            "MENDEL_DATABASE_URL": h.database_url,
            "MENDEL_RUN_ID": "outage-1",
            **FAST,
            **NS_DAY,
        },
        h.home / "outage-1",
    )
    elapsed = time.monotonic() - started
    stopper.join()
    # Fails fast with its own exit status and one clear error; never blamed on the pages.
    assert rc == OUTAGE_EXIT_CODE, err[-3000:]
    assert elapsed < 2 * SLOW_S + 10, elapsed
    assert "could not parse" not in err and "unparseable" not in err
    errors = [line for line in err.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "database outage: " in errors[0], errors
    assert err.strip().splitlines()[-1].startswith("mendel crawl: nsoud: database outage (")
    spools = list((h.home / "crawl_spool").glob("*.jsonl"))
    assert [p.name for p in spools] == ["nsoud--outage-1.jsonl"]
    assert not database_reachable(h.database_url)

    # The server is back: the next crawl writes the stopped run's spool first; that run now reconciles.
    start_database(h.admin_url, h.name)
    second = h.crawl("nsoud", "outage-2", **NS_DAY)
    assert second.printed["spool_entries_replayed"] >= 3  # B's and C's records and the run's own
    assert not list((h.home / "crawl_spool").glob("*.jsonl"))
    with psycopg.connect(h.database_url) as conn:
        first = crawlstate.run_counts(conn, "outage-1", "nsoud")
        finish = conn.execute("SELECT finish_reason FROM crawl_runs WHERE run_id = 'outage-1'").fetchone()[0]
    assert first["reconciled"] and first["discovered"] == 3, first
    assert finish == "database_outage"
    # B and C were fetched whole before the outage: their records were kept and are documents now, so the
    # second run finds all three unchanged.
    assert first["stored"] == 3, first
    assert second.counts["reconciled"] and second.counts["unchanged"] == 3, second.counts
    assert set(h.documents("nsoud")) == set(ECLI.values())
    assert logged(second, decision(NS_B))[0] == "unchanged"


def test_the_crawl_asset_does_not_retry_a_database_outage(pg_server_url, tmp_path):
    from dagster import Failure, build_asset_context
    from dagster._core.errors import DagsterPipesExecutionError

    from assets.crawl.assets import CrawlScope, CrawlWindow, build_source_crawls
    from mendel.core.sources import SOURCES
    from orchestration.resources import MendelResource

    database_url = db.create_database(pg_server_url, f"outage_{uuid.uuid4().hex[:8]}")
    name = database_name(database_url)

    class DyingCrawl:
        """The crawl process: the database goes away while it runs, and it exits non-zero."""

        def run(self, **_):
            stop_database(pg_server_url, name)
            raise DagsterPipesExecutionError("External execution process failed with code 75")

    mendel = MendelResource(home=str(tmp_path), profile="demo", database_url=database_url, sources="nsoud")
    try:
        with pytest.raises(Failure) as failure:
            list(
                build_source_crawls([SOURCES["nsoud"]])(
                    build_asset_context(),
                    config=CrawlWindow(scope=CrawlScope.USUAL),
                    mendel=mendel,
                    pipes_subprocess_client=DyingCrawl(),
                )
            )
    finally:
        start_database(pg_server_url, name)
    assert failure.value.allow_retries is False
    assert "database outage" in failure.value.description
