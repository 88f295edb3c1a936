"""Nothing of a run outlives it: a guarded run killed outright (SIGKILL to its process alone, as the OOM killer
does) during extraction — two extraction workers OCR'ing the sample corpus's scans with Tesseract, a crawl
subprocess with Chromium open in a session of its own — leaves no process of the run alive; and a run that ends
normally takes with it what it left behind. Processes are told apart by the run's token in their environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.core.run_guard import RUN_TOKEN_ENV, processes_of
from mendel.crawl import crawlstate

BLESNO = SAMPLE_CORPUS / "municipal" / "blesno"
# The scans (OCR) first, then text PDFs: more files than one task of the pool's map takes (8), so two workers start.
FILES = sorted((BLESNO / "scanned").glob("*.pdf")) + sorted((BLESNO / "text").glob("*.pdf"))[:4]
WAIT_S = 240  # for the run to reach extraction with everything started, on shared CPUs
GONE_S = 15  # for what is left to be stopped (the watcher's grace period is 5 s)


def _describe(processes) -> str:
    described = []
    for process in processes:
        try:
            described.append(f"{process.pid} {process.name()}: {' '.join(process.cmdline())[:120]}")
        except Exception:  # gone while described
            continue
    return "\n".join(described)


def _cmdline(process) -> str:
    """A process's command line; empty once it has ended (a Chromium helper can be a zombie by the time it is read)."""
    try:
        return " ".join(process.cmdline())
    except Exception:
        return ""


def _kinds(processes) -> set[str]:
    """What the run's processes are: extraction workers, Tesseract, Chromium, the crawl subprocess."""
    kinds = set()
    for process in processes:
        try:
            name, cmdline = process.name(), " ".join(process.cmdline())
        except Exception:
            continue
        if "multiprocessing.spawn" in cmdline:
            kinds.add("worker")
        elif name == "tesseract":
            kinds.add("tesseract")
        elif "chrom" in name:
            kinds.add("chromium")
        elif "orchestration.parent_death" in cmdline or "sync_playwright" in cmdline:
            kinds.add("crawl")
    return kinds


def _wait_until(condition, seconds: float, interval: float = 0.2) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def _env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != RUN_TOKEN_ENV}
    env.update(PYTHONPATH=str(PROJECT_ROOT), **extra)
    return env


def _cleanup(token: str | None) -> None:
    for process in processes_of(token) if token else []:
        try:
            process.kill()
        except Exception:
            pass


@pytest.mark.slow
def test_a_run_killed_during_extraction_leaves_no_process_alive(fresh_db, tmp_path):
    store = RawStore(tmp_path / "home" / "raw")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        for scan in FILES:
            blob = store.put(scan.read_bytes())
            crawlstate.record_document(
                conn,
                run_id=None,
                source="boards",
                doc_id=f"blesno/{scan.stem}",
                url=f"https://example.invalid/{scan.name}",
                sha256=blob.sha256,
                byte_size=scan.stat().st_size,
                content_type="application/pdf",
            )
    token_file = tmp_path / "token"
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        run = subprocess.Popen(
            [sys.executable, "-m", "tests.support.killed_run"],
            env=_env(
                KILLED_RUN_DATABASE_URL=fresh_db,
                KILLED_RUN_HOME=str(tmp_path / "home"),
                KILLED_RUN_TOKEN_FILE=str(token_file),
            ),
            cwd=PROJECT_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    token = None
    try:
        assert _wait_until(token_file.exists, 60), log.read_text(errors="replace")
        token = token_file.read_text()
        everything = {"worker", "tesseract", "chromium", "crawl"}
        reached = _wait_until(lambda: everything <= _kinds(processes_of(token)) or run.poll() is not None, WAIT_S)
        seen = processes_of(token)
        assert reached and run.poll() is None, (
            f"the run did not reach extraction with all of {sorted(everything)} running "
            f"(saw {sorted(_kinds(seen))}):\n{log.read_text(errors='replace')[-3000:]}"
        )
        # both of the pool's workers (a third was seen once: one being replaced as the next batch starts)
        assert len([p for p in seen if "multiprocessing.spawn" in _cmdline(p)]) >= 2

        os.kill(run.pid, signal.SIGKILL)  # the run's process alone: its children are not told
        run.wait()
        gone = _wait_until(lambda: not processes_of(token), GONE_S)
        assert gone, f"processes of the killed run still alive:\n{_describe(processes_of(token))}"
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        _cleanup(token)


GUARDED_RUN = """
import subprocess, sys, time
from mendel.core.run_guard import guard_run

print(guard_run(grace_s=1), flush=True)
subprocess.Popen(["sleep", "300"], start_new_session=True)  # leaves the group, outlives its parent
subprocess.Popen([sys.executable, "-c", "import subprocess; subprocess.Popen(['sleep', '300']); import time; time.sleep(300)"])
time.sleep(1.0)
"""


def test_a_run_that_ends_takes_what_it_started_with_it(tmp_path):
    out = tmp_path / "out.txt"
    with out.open("w") as handle:  # a file, not a pipe: what is left behind must not hold this test up
        done = subprocess.run(
            [sys.executable, "-c", GUARDED_RUN], env=_env(), cwd=PROJECT_ROOT, stdout=handle, stderr=handle, timeout=60
        )
    assert done.returncode == 0, out.read_text()
    token = out.read_text().strip()
    try:
        assert _wait_until(lambda: not processes_of(token), GONE_S), _describe(processes_of(token))
    finally:
        _cleanup(token)


def test_a_command_of_a_guarded_run_keeps_its_token(monkeypatch):
    from mendel.core.run_guard import guard_run, outside_the_run

    monkeypatch.setenv(RUN_TOKEN_ENV, "outer-run")
    assert guard_run() == "outer-run"  # no second watcher
    with outside_the_run():  # the embedded PostgreSQL is started so: it belongs to the home
        assert RUN_TOKEN_ENV not in os.environ
    assert os.environ[RUN_TOKEN_ENV] == "outer-run"


@pytest.mark.slow
def test_the_embedded_database_started_by_a_run_is_not_a_process_of_it(monkeypatch):
    import shutil
    import tempfile

    from mendel.core import db

    monkeypatch.setenv(RUN_TOKEN_ENV, "run-that-starts-postgres")
    base = Path(tempfile.mkdtemp(prefix="mendel-test-guard-pg-"))
    base.chmod(0o755)  # as root, pgserver runs PostgreSQL as its own user
    try:
        url = db.embedded_url(base / "pgdata")
        with psycopg.connect(url) as conn:
            server_pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        assert server_pid and processes_of("run-that-starts-postgres") == []  # the end of the run leaves it up
    finally:
        db.stop_embedded(base / "pgdata")
        shutil.rmtree(base, ignore_errors=True)
