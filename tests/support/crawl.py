"""Running a spider the way Dagster does (``python -m crawlers.run``, its own process) against a mirror, and reading
what it left in PostgreSQL — shared by the tests of the court, ČNB and e-Sbírka fragment spiders."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import psycopg

from mendel.core.config import PROJECT_ROOT
from mendel.core.sources import source_envs
from mendel.crawl.crawlstate import OUTCOMES

# Every registered source's settings (mendel.core.sources) and the run's own: each test crawl starts from the defaults.
CLEARED_ENV = (*source_envs(), "MENDEL_ESBIRKA_ACTS", "MENDEL_SOURCES", "DAGSTER_PIPES_CONTEXT")


def crawl_runner(monkeypatch, home, database_url: str, mirror_url: str):
    """A function that runs one spider to completion and returns its counts (checked to reconcile)."""
    monkeypatch.setenv("MENDEL_HOME", str(home))
    monkeypatch.setenv("MENDEL_PROFILE", "demo")
    monkeypatch.setenv("MENDEL_MIRROR_URL", mirror_url)
    monkeypatch.setenv("MENDEL_DATABASE_URL", database_url)
    for name in CLEARED_ENV:
        monkeypatch.delenv(name, raising=False)

    def run(spider: str, run_id: str, **env) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "crawlers.run", spider],
            env={**os.environ, "MENDEL_RUN_ID": run_id, **env},
            capture_output=True,
            text=True,
            cwd=PROJECT_ROOT,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        counts = ast.literal_eval(proc.stdout.strip().splitlines()[-1])
        assert counts["finish_reason"] == "finished", counts
        assert counts["discovered"] == sum(counts[o] for o in OUTCOMES), counts
        return counts

    run.database_url = database_url
    run.home = home
    return run


def only(counts: dict, **expected) -> None:
    assert {o: counts[o] for o in OUTCOMES} == {o: expected.get(o, 0) for o in OUTCOMES}, counts


def documents(database_url: str, source: str) -> dict[str, dict]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT d.doc_id, d.url, d.title, d.doc_type, d.citation, d.published, v.content_type, v.sha256"
            " FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
            " WHERE d.source = %s",
            (source,),
        ).fetchall()
    keys = ("url", "title", "doc_type", "citation", "published", "content_type", "sha256")
    return {row[0]: dict(zip(keys, row[1:])) for row in rows}


def logged(database_url: str, run_id: str) -> list[tuple[str, str, int | None, str | None]]:
    """(url, outcome, status, reason) of every URL a run logged."""
    with psycopg.connect(database_url) as conn:
        return conn.execute(
            "SELECT url, outcome, status, reason FROM crawl_log WHERE run_id = %s ORDER BY id", (run_id,)
        ).fetchall()
