"""What `mendel run` leaves for the Dagster UI: its run is listed under the `nightly` job of the workspace's code
location, and an asset that chose not to materialize (the Neo4j export without a server) is reported skipped."""

from __future__ import annotations

from dagster import AssetKey, DagsterInstance, Definitions, asset, define_asset_job, instance_for_test, materialize
from dagster._core.storage.dagster_run import RunsFilter
from dagster._core.storage.tags import REPOSITORY_LABEL_TAG
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import WorkspaceFileTarget

import cli.main as cli_main
from assets.index.bundle import neo4j_graph
from mendel.core.config import PROJECT_ROOT
from orchestration.resources import MendelResource


def ui_repository_label(instance) -> str:
    """The label the webserver filters the `nightly` job's runs by, from the workspace as it loads it."""
    target = WorkspaceFileTarget(paths=[str(PROJECT_ROOT / "workspace.yaml")])
    with WorkspaceProcessContext(instance, target) as context:
        (location_name,) = context.create_request_context().get_code_location_entries()
        location = context.create_request_context().get_code_location(location_name)
        (repository,) = location.get_repositories().values()
        return repository.get_full_job("nightly").get_remote_origin().repository_origin.get_label()


def test_a_mendel_run_is_listed_under_the_nightly_job(monkeypatch, tmp_path):
    @asset
    def tiny():
        return 1

    tiny_defs = Definitions(assets=[tiny], jobs=[define_asset_job("nightly")])
    monkeypatch.setattr("orchestration.definitions.build_definitions", lambda **options: tiny_defs)
    with instance_for_test(temp_dir=str(tmp_path)) as instance:
        monkeypatch.setattr(DagsterInstance, "get", staticmethod(lambda: instance))
        result = cli_main.run_nightly(None)
        assert result.success
        listed = instance.get_runs(
            RunsFilter(job_name="nightly", tags={REPOSITORY_LABEL_TAG: ui_repository_label(instance)})
        )
        assert [run.run_id for run in listed] == [result.run_id]
        step_seconds = cli_main.step_wall_times(instance, result.run_id)  # what the summary prints per asset
        assert list(step_seconds) == ["tiny"] and step_seconds["tiny"] >= 0


def test_a_neo4j_export_without_a_server_is_skipped_not_materialized(monkeypatch, tmp_path):
    monkeypatch.delenv("MENDEL_NEO4J_URL", raising=False)
    resource = MendelResource(home=str(tmp_path), profile="demo", database_url="postgresql://unused")
    result = materialize([neo4j_graph], resources={"mendel": resource}, raise_on_error=False)
    assert result.success
    assert result.asset_materializations_for_node("neo4j_graph") == []
    summary = cli_main.summarize(result)
    assert "neo4j_graph" in summary["skipped"] and "neo4j_graph" not in summary["assets"]
    assert AssetKey("neo4j_graph") not in {
        m.asset_key for m in result.get_asset_materialization_events() if hasattr(m, "asset_key")
    }
