"""Real crawl runs on a real (SQLite) Dagster instance: a transient failure is retried by the crawl assets' policy,
a backfill partition crawls only its date window, and the new-versions sensor asks for exactly the work downstream
of a source that changed — and for nothing when a crawl found nothing new."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    Definitions,
    PipesSubprocessClient,
    RunRequest,
    SkipReason,
    build_sensor_context,
    define_asset_job,
)

from assets.crawl.assets import build_source_crawls
from assets.ops.sensors import process_new_versions
from cli.main import dagster_yaml_for
from mendel.core import db
from mendel.core.sources import SOURCES
from orchestration.definitions import build_definitions, defs
from orchestration.policies import PROCESSING_TAG, network_retry_policy
from tests.support.nightly import nightly_resources

pytestmark = pytest.mark.e2e

TEST_RETRY_DELAY_S = 0.2  # the policy's shape (exponential, jitter) with a test-sized base delay
NSOUD_DOWNSTREAM = {
    "document_pages",
    "document_chunks",
    "legal_entities",
    "chunk_embeddings",
    "bm25_index",
    "faiss_index",
    "entity_graph",
    "index_bundle",
    "neo4j_graph",
    "retrieval_evaluation",
    "citations",
}  # the citator reads the decisions' mentions


class FailsOnceThenRuns(PipesSubprocessClient):
    """The real Pipes client, except that its first launch fails as a dropped connection would."""

    def __init__(self, marker: Path):
        super().__init__()
        self.marker = marker

    def run(self, **kwargs):
        if not self.marker.exists():
            self.marker.write_text("failed once", encoding="utf-8")
            raise ConnectionResetError("injected transient failure: connection reset by peer")
        return super().run(**kwargs)


def events_of(result, event_type: str) -> list:
    return [e for e in result.all_events if e.event_type_value == event_type]


def crawl_metadata(result, asset: str = "nsoud_documents") -> dict:
    for event in events_of(result, "ASSET_MATERIALIZATION"):
        mat = event.event_specific_data.materialization
        if mat.asset_key.to_user_string() == asset:
            return {k: v.value for k, v in mat.metadata.items()}
    raise AssertionError(f"{asset} was not materialised")


@pytest.fixture(scope="module")
def crawls(tmp_path_factory, pg_server_url, mirror):
    """Two real nsoud crawls into one database and one instance: a flaky one (2025, one decision), then a backfill
    window with nothing in it (September 2026)."""
    home = tmp_path_factory.mktemp("ops_home")
    dagster_home = tmp_path_factory.mktemp("ops_dagster_home")
    shutil.copyfile(dagster_yaml_for("demo"), dagster_home / "dagster.yaml")
    patch = pytest.MonkeyPatch()
    patch.setenv("DAGSTER_HOME", str(dagster_home))  # the embedded profile's storage reads it
    instance = DagsterInstance.from_config(str(dagster_home))
    database_url = db.create_database(pg_server_url, f"ops_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    mendel = nightly_resources(home, database_url, mirror.base_url)

    # The factory's own asset, with the production policy's backoff and jitter but a short base delay.
    flaky_asset = build_source_crawls([SOURCES["nsoud"]], retry_policy=network_retry_policy(TEST_RETRY_DELAY_S))
    flaky_defs = Definitions(
        assets=[flaky_asset],
        jobs=[
            define_asset_job(  # the project's job name, and what the job's config says
                "crawl_nsoud",
                selection=[flaky_asset],
                config={"ops": {"source_crawls": {"config": {"scope": "USUAL"}}}},
            )
        ],
        resources={"mendel": mendel, "pipes_subprocess_client": FailsOnceThenRuns(home / "failed-once")},
    )
    project = build_definitions(mendel=mendel)
    try:
        flaky = flaky_defs.resolve_job_def("crawl_nsoud").execute_in_process(instance=instance, raise_on_error=False)
        window = project.resolve_job_def("backfill_nsoud").execute_in_process(
            instance=instance, partition_key="2026-09-01", raise_on_error=False
        )
        yield {"instance": instance, "flaky": flaky, "window": window}
    finally:
        instance.dispose()
        patch.undo()


def test_transient_failure_is_retried_with_backoff(crawls):
    result = crawls["flaky"]
    assert result.success
    retries = events_of(result, "STEP_UP_FOR_RETRY")
    assert len(retries) == 1 and len(events_of(result, "STEP_RESTARTED")) == 1
    assert "injected transient failure" in retries[0].event_specific_data.error.to_string()
    # Exponential backoff with ±base jitter: the first wait is within [0, 2 × base].
    assert 0 <= retries[0].event_specific_data.seconds_to_wait <= 2 * TEST_RETRY_DELAY_S
    counts = crawl_metadata(result)
    assert counts["stored"] == 1 and counts["discovered"] == 1  # the second attempt really crawled


def test_backfill_partition_crawls_only_its_window(crawls):
    result = crawls["window"]
    assert result.success
    assert result.dagster_run.tags["dagster/partition"] == "2026-09-01"
    assert result.dagster_run.tags["mendel/source"] == "nsoud"
    counts = crawl_metadata(result)
    # The run's own settings said 2025; the window (nothing published in September 2026) replaced them.
    assert counts["window_start"] == "2026-09-01" and counts["window_end"] == "2026-10-01"
    assert counts["discovered"] == 0 and counts["stored"] == 0


def test_new_versions_sensor_requests_only_downstream_work(crawls):
    instance = crawls["instance"]
    context = build_sensor_context(instance=instance, definitions=defs)
    request = process_new_versions(context)
    assert isinstance(request, RunRequest)
    assert {key.to_user_string() for key in request.asset_selection} == NSOUD_DOWNSTREAM  # no ruian_records
    assert request.tags[PROCESSING_TAG] == "process" and request.tags["mendel/changed"] == "nsoud_documents"
    assert request.tags["mendel/new_versions"] == "1"

    # The next tick sees nothing new; a tick that starts after the flaky crawl sees only the window crawl, which
    # stored nothing, so it asks for no work.
    assert isinstance(
        process_new_versions(build_sensor_context(instance=instance, definitions=defs, cursor=context.cursor)),
        SkipReason,
    )
    flaky_record = instance.fetch_materializations(AssetKey("nsoud_documents"), limit=1, ascending=True).records[0]
    assert flaky_record.run_id == crawls["flaky"].run_id
    after_flaky = json.dumps({"nsoud_documents": flaky_record.storage_id})
    assert isinstance(
        process_new_versions(build_sensor_context(instance=instance, definitions=defs, cursor=after_flaky)), SkipReason
    )


def test_nightly_run_processes_its_own_crawl(nightly):
    # The nightly job stored new versions, but it also ran everything downstream: the sensor has nothing to add.
    result = process_new_versions(build_sensor_context(instance=nightly["instance"], definitions=defs))
    assert isinstance(result, SkipReason)


def check_evaluations(result, check_name: str = "crawl_failures") -> dict:
    return {
        e.event_specific_data.asset_key.to_user_string(): e.event_specific_data
        for e in events_of(result, "ASSET_CHECK_EVALUATION")
        if e.event_specific_data.check_name == check_name
    }


def test_a_source_without_documents_in_the_demo_says_so_in_its_crawl_check(
    tmp_path, pg_server_url, mirror, monkeypatch
):
    """ČNB on the mirror: the listings are real, the documents are not in the corpus (404 each). The check passes
    saying so, instead of failing every demo night; the same crawl in production fails (tests/assets/crawl)."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    database_url = db.create_database(pg_server_url, f"cnb_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    defs = build_definitions(mendel=nightly_resources(tmp_path / "home", database_url, mirror.base_url, sources="cnb"))
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("crawl_cnb").execute_in_process(
            instance=instance, run_config={"scope": "USUAL"}, raise_on_error=False
        )
    assert result.success
    check = check_evaluations(result)["cnb_documents"]
    metadata = {k: v.value for k, v in check.metadata.items()}
    assert check.passed is True and check.description.startswith("no documents in the demo")
    assert metadata["demo_documents"] is False and metadata["tried"] > 0 and metadata["failure_share"] == 1.0
    assert "HTTP 404" in metadata["top_reasons"] and metadata["listing_failed"] == 0


def test_a_crawl_that_listed_everything_passes_its_crawl_check(crawls):
    """The project's backfill job: a window with nothing published in it is an empty listing, not a failure."""
    check = check_evaluations(crawls["window"])["nsoud_documents"]
    metadata = {k: v.value for k, v in check.metadata.items()}
    assert check.passed is True and metadata["failed"] == 0 and metadata["listing_failed"] == 0
