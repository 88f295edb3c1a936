"""Crawl sources in one step and one process (assets/crawl/assets.py: the subsettable multi-asset the factory makes of
several sources — the nightly gives each source a step of its own, made by the same factory; crawlers.run: one
reactor, the spiders side by side): the step reports each source's counts under its own asset key, a subset of one
source crawls only that source, a source that failed is reported as failed without losing the others, and a
source's crawl waits while another crawl of the same source holds its lock."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg
import pytest
from dagster import DagsterInstance, materialize

from assets.crawl.assets import CRAWL_SOURCES, build_source_crawls
from mendel.core import db
from mendel.core.config import PROJECT_ROOT
from orchestration.pipes import ParentBoundPipesSubprocessClient
from orchestration.policies import network_retry_policy
from tests.support.crawl import CLEARED_ENV
from tests.support.nightly import E2E_CRAWL_ENV, nightly_resources
from tests.support.runs import materialized


class RecordingClient(ParentBoundPipesSubprocessClient):
    """The project's Pipes client, noting each crawl command it starts."""

    def __init__(self):
        super().__init__()
        self.commands: list[list[str]] = []

    def run(self, *, command, **kwargs):
        self.commands.append(list(command))
        return super().run(command=command, **kwargs)


def crawled_sources(client: RecordingClient) -> list[list[str]]:
    """The sources each started crawl process was given."""
    return [command[command.index("crawlers.run") + 1 :] for command in client.commands]


def logged_sources(database_url: str, run_id: str) -> set[str]:
    with psycopg.connect(database_url) as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT source FROM crawl_log WHERE run_id = %s", (run_id,))}


@pytest.fixture
def crawl(tmp_path, pg_server_url, mirror, monkeypatch):
    """Runs a job of crawl assets (nsoud's 2025 window, RÚIAN's sample) on a fresh database; returns the result and
    the sources each crawl process was started with."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    database_url = db.create_database(pg_server_url, f"one_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)

    def run(selection, crawl_env=None, assets_def=None):
        client = RecordingClient()
        mendel = nightly_resources(
            tmp_path / "home",
            database_url,
            mirror.base_url,
            sources="nsoud,ruian",
            crawl_env={**E2E_CRAWL_ENV, **(crawl_env or {})},
        )
        with DagsterInstance.ephemeral() as instance:
            result = materialize(
                [assets_def or build_source_crawls(CRAWL_SOURCES)],
                selection=selection,
                run_config={"ops": {"source_crawls": {"config": {"scope": "USUAL"}}}},
                instance=instance,
                raise_on_error=False,
                resources={"mendel": mendel, "pipes_subprocess_client": client},
            )
        return result, crawled_sources(client)

    run.database_url = database_url
    return run


@pytest.mark.e2e
def test_one_process_crawls_two_sources_and_reports_each_under_its_asset(crawl):
    result, processes = crawl(["nsoud_documents", "ruian_documents"])
    assert result.success
    assert processes == [["nsoud", "ruian"]]  # one process, both sources
    steps = {e.step_key for e in result.all_events if e.event_type_value == "STEP_SUCCESS"}
    assert "source_crawls" in steps
    assets = materialized(result)
    assert set(assets) == {"nsoud_documents", "ruian_documents"}
    assert assets["nsoud_documents"]["stored"] == 1 and assets["nsoud_documents"]["discovered"] == 1
    assert assets["ruian_documents"]["stored"] == 2
    assert all(counts["finish_reason"] == "finished" for counts in assets.values())
    assert logged_sources(crawl.database_url, result.run_id) == {"nsoud", "ruian"}


@pytest.mark.e2e
def test_a_subset_of_one_source_crawls_only_that_source(crawl):
    result, processes = crawl(["ruian_documents"])
    assert result.success
    assert processes == [["ruian"]]
    assert set(materialized(result)) == {"ruian_documents"}
    assert logged_sources(crawl.database_url, result.run_id) == {"ruian"}


def test_the_step_reads_the_failed_message_the_crawl_process_sends():
    from assets.crawl import assets as crawl
    from crawlers import run

    assert crawl.FAILED_MESSAGE == run.FAILED_MESSAGE


@pytest.mark.e2e
def test_a_failed_source_is_reported_without_losing_the_others(crawl):
    """nsoud's spider cannot start (a page size that is no number); RÚIAN's crawl still materializes, once: the
    step's retry crawls only the source that has not materialized in the run."""
    crawls = build_source_crawls(CRAWL_SOURCES, retry_policy=network_retry_policy(0.1, max_retries=1))
    result, processes = crawl(
        ["nsoud_documents", "ruian_documents"], crawl_env={"MENDEL_NSOUD_PAGE_SIZE": "x"}, assets_def=crawls
    )
    assert not result.success
    assert processes == [["nsoud", "ruian"], ["nsoud"]]  # the retry: only what failed
    assert set(materialized(result)) == {"ruian_documents"}
    failures = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert len(failures) == 1
    failure = failures[0].event_specific_data
    assert "1 of 1 crawls failed: nsoud" in failure.error.to_string()  # the retry's attempt
    assert "ValueError" in failure.user_failure_data.metadata["nsoud"].value  # why, as the crawl process said


@pytest.mark.e2e
def test_a_crawl_waits_while_another_crawl_of_its_source_holds_the_lock(tmp_path, pg_server_url, mirror):
    from crawlers.run import take_crawl_lock

    database_url = db.create_database(pg_server_url, f"lock_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env.update(
        {
            "MENDEL_HOME": str(tmp_path),
            "MENDEL_PROFILE": "demo",
            "MENDEL_MIRROR_URL": mirror.base_url,
            "MENDEL_DATABASE_URL": database_url,
            "MENDEL_RUN_ID": "waits",
        }
    )
    held = take_crawl_lock(database_url, "ruian")
    assert held is not None and take_crawl_lock(database_url, "ruian") is None  # one holder at a time
    process = subprocess.Popen(
        [sys.executable, "-m", "crawlers.run", "ruian"],
        env=env,
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in process.stderr:  # Scrapy logs to stderr
            if "another crawl of this source is running" in line:
                break
        assert logged_sources(database_url, "waits") == set()  # nothing crawled while the other crawl runs
        held.close()
        out, err = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 0, err[-3000:]
    assert "'stored': 2" in out.strip().splitlines()[-1]
    assert logged_sources(database_url, "waits") == {"ruian"}
