"""Both dagster.yaml profiles load and really store runs: SQLite (embedded) and PostgreSQL (production)."""

from __future__ import annotations

import shutil
import uuid

from dagster import DagsterInstance, asset, materialize
from dagster._core.run_coordinator import QueuedRunCoordinator

from cli.main import dagster_yaml_for
from mendel.core import db


@asset
def tiny_asset() -> int:
    return 1


def _instance(home, profile: str) -> DagsterInstance:
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(dagster_yaml_for(profile), home / "dagster.yaml")
    return DagsterInstance.from_config(str(home))


def test_embedded_profile_uses_sqlite(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    instance = _instance(tmp_path / "home", "demo")
    try:
        assert type(instance.run_storage).__name__ == "SqliteRunStorage"
        assert materialize([tiny_asset], instance=instance).success
        assert len(instance.get_runs()) == 1
    finally:
        instance.dispose()


def test_production_profile_stores_runs_in_postgres(tmp_path, monkeypatch, pg_server_url):
    url = db.create_database(pg_server_url, f"dagster_{uuid.uuid4().hex[:8]}")
    params = dict(item.split("=", 1) for item in url.split())
    sqlalchemy_url = f"postgresql://{params['user']}:@/{params['dbname']}?host={params['host']}"
    monkeypatch.setenv("MENDEL_DAGSTER_PG_URL", sqlalchemy_url)
    instance = _instance(tmp_path / "home", "production")
    try:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert isinstance(instance.run_coordinator, QueuedRunCoordinator)
        result = materialize([tiny_asset], instance=instance)
        assert result.success
        runs = instance.get_runs()
        assert [r.run_id for r in runs] == [result.run_id]
    finally:
        instance.dispose()
    import psycopg

    with psycopg.connect(url) as conn:  # the run really is in PostgreSQL, not in a local file
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
