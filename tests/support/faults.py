"""Crawls under injected faults: each crawl is ``crawlers.run.main()`` (what ``python -m crawlers.run`` runs under
Dagster) in a process forked from a launcher that imported the crawler once, against a mirror of its own whose fault
rules a test sets, into a database schema of its own; the day of Nejvyšší soud decisions the fault tests crawl."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import psycopg.conninfo

from mendel.core import db
from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.boards.register import write_boards_file
from mirror.server import ROBOTS_TXT, MirrorThread

NSF = "/Judikatura/judikatura_ns.nsf"

# One day of Nejvyšší soud decisions, two a result page: A and B on page 1, C on page 2 (the mirror's order).
NS_DAY = {"MENDEL_NSOUD_FROM": "2026-06-03", "MENDEL_NSOUD_TO": "2026-06-03", "MENDEL_NSOUD_PAGE_SIZE": "2"}
NS_A, NS_B, NS_C = (
    "139E48A2C93FEB31C1258E0B004D42FA",
    "0A90D0A75FA82997C1258E0B004D4332",
    "0A361E48F4C44513C1258E0B004D4353",
)
ECLI = {
    NS_A: "ECLI:CZ:NS:2026:27.CDO.2965.2025.1",
    NS_B: "ECLI:CZ:NS:2026:33.CDO.2717.2024.1",
    NS_C: "ECLI:CZ:NS:2026:29.ICDO.177.2024.1",
}
SEARCH = f"{NSF}/$$WebSearch1"
PAGE_2 = "*&Start=3&*"  # the query of the second result page

# Test crawl settings: short waits, a 4 MiB body limit (every sample file is under 2 MB).
MAXSIZE = 4 << 20
FAST = {
    "MENDEL_DOWNLOAD_TIMEOUT": "10",
    "MENDEL_RETRY_TIMES": "2",
    "MENDEL_RETRY_BACKOFF": "0.05",
    "MENDEL_RETRY_BACKOFF_MAX": "0.5",
    "MENDEL_DOWNLOAD_MAXSIZE": str(MAXSIZE),
    "MENDEL_BOARD_DOWNLOAD_DELAY": "0",  # a board host's pacing is test_boards_politeness's business, not the faults'
}
CLEARED = (
    "MENDEL_NSOUD_FROM",
    "MENDEL_NSOUD_TO",
    "MENDEL_NSOUD_PAGE_SIZE",
    "MENDEL_BOARDS_FILE",
    "MENDEL_RUIAN_OBCE",
    "MENDEL_RUIAN_CHANGES",
    "MENDEL_ESBIRKA_YEARS",
    "MENDEL_ESBIRKA_ACTS",
    "DAGSTER_PIPES_CONTEXT",
    "MENDEL_MIRROR_FAULTS",
    "MENDEL_MIRROR_ROBOTS_TXT",
    "MENDEL_RUN_ID",
    "MENDEL_MIRROR_KADAN_SNAPSHOT",
    "MENDEL_MIRROR_STATE_DIR",
)


def decision(unid: str) -> str:
    return f"{NSF}/WebSearch/{unid}"


LAUNCHER = r"""
import importlib, io, json, os, sys, threading, traceback
import crawlers.run, crawlers.settings

def reap(pid, job_id):
    _, status = os.waitpid(pid, 0)
    os.write(1, (json.dumps({"id": job_id, "rc": os.waitstatus_to_exitcode(status)}) + "\n").encode())

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.dup2(os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
            os.dup2(os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
            os.environ.clear()
            os.environ.update(job["env"])
            importlib.reload(crawlers.settings)  # it reads its limits from the environment
            sys.argv = ["crawlers.run", job["spider"]]
            crawlers.run.main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.write(1, (json.dumps({"id": job["id"], "pid": pid}) + "\n").encode())
    threading.Thread(target=reap, args=(pid, job["id"]), daemon=True).start()
"""


class CrawlLauncher:
    """Runs ``crawlers.run.main()`` for a spider in a forked process of its own; thread-safe."""

    def __init__(self):
        # The board crawl reads its per-host delay when the launcher imports it: no politeness waits in these tests.
        env = {**{k: v for k, v in os.environ.items() if k not in CLEARED}, "MENDEL_BOARD_DOWNLOAD_DELAY": "0"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=PROJECT_ROOT,
            env=env,
        )
        self.lock = threading.Lock()
        self.done: dict[str, threading.Event] = {}
        self.results: dict[str, dict] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.lock:
                self.results.setdefault(message["id"], {}).update(message)
                if "rc" in message:
                    self.done[message["id"]].set()

    def run(self, spider: str, env: dict, out: Path, timeout: float = 240) -> tuple[int, str, str]:
        job = {
            "id": uuid.uuid4().hex,
            "spider": spider,
            "env": env,
            "stdout": str(out.with_suffix(".out")),
            "stderr": str(out.with_suffix(".err")),
        }
        with self.lock:
            self.done[job["id"]] = threading.Event()
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        if not self.done[job["id"]].wait(timeout):
            pid = self.results.get(job["id"], {}).get("pid")
            if pid:
                os.kill(pid, signal.SIGKILL)
            raise TimeoutError(f"crawl {spider} did not finish in {timeout} s")
        return (
            self.results[job["id"]]["rc"],
            Path(job["stdout"]).read_text(encoding="utf-8"),
            Path(job["stderr"]).read_text(encoding="utf-8", errors="replace"),
        )

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@dataclass
class Run:
    """One finished crawl: counts from the database and from the process, the mirror's view of it."""

    run_id: str
    spider: str
    counts: dict
    printed: dict
    log: dict  # URL path (+ query) → (outcome, HTTP status, reason)
    requests: list  # (method, path, status) the mirror answered
    hits: list  # requests each fault rule answered
    statuses: dict  # doc_id → documents.status right after the run


@dataclass
class Scenario:
    spider: str
    faults: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    robots: str | None = None
    runs: int = 1  # >1: crawl again without faults (the site recovered)


class Harness:
    """A schema of its own (the whole store, migrated), a raw store, a mirror (one port for all its runs, so
    validators carry over) and a way to crawl; one per scenario."""

    def __init__(self, launcher: CrawlLauncher, database_url: str, home: Path, corpus: Path = SAMPLE_CORPUS):
        self.launcher = launcher
        schema = f"faults_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        # Every connection of this scenario (tests and crawl processes) works in its schema.
        self.database_url = psycopg.conninfo.make_conninfo(database_url, options=f"-c search_path={schema},public")
        db.migrate(self.database_url)
        self.home = home
        self.store = RawStore(home / "raw")
        self.mirror = MirrorThread(corpus, faults=[]).start()
        self.runs: list[Run] = []

    def crawl(self, spider: str, run_id: str, faults=(), robots: str | None = None, boards=None, **env) -> Run:
        if boards is not None:
            env["MENDEL_BOARDS_FILE"] = str(write_boards_file(boards, self.home / f"{run_id}-boards.json"))
        server = self.mirror.server
        server.faults.replace(list(faults))
        server.robots_txt = robots or ROBOTS_TXT
        server.request_log.clear()
        rc, out, err = self.launcher.run(
            spider,
            {
                **{k: v for k, v in os.environ.items() if k not in CLEARED},
                "MENDEL_HOME": str(self.home),
                "MENDEL_PROFILE": "demo",
                "MENDEL_MIRROR_URL": self.mirror.base_url,
                "MENDEL_DATABASE_URL": self.database_url,
                "MENDEL_RUN_ID": run_id,
                **FAST,
                **env,
            },
            self.home / run_id,
        )
        requests, hits = list(server.request_log), list(server.faults.hits)
        assert rc == 0, err[-4000:]
        printed = ast.literal_eval(out.strip().splitlines()[-1])
        with psycopg.connect(self.database_url) as conn:
            counts = crawlstate.run_counts(conn, run_id, spider)
            rows = conn.execute(
                "SELECT url, outcome, status, reason FROM crawl_log WHERE run_id = %s", (run_id,)
            ).fetchall()
            statuses = dict(conn.execute("SELECT doc_id, status FROM documents").fetchall())
        run = Run(
            run_id, spider, counts, printed, {_path(u): (o, s, r) for u, o, s, r in rows}, requests, hits, statuses
        )
        self.runs.append(run)
        return run

    def close(self) -> None:
        self.mirror.stop()

    def documents(self, source: str) -> dict[str, dict]:
        with psycopg.connect(self.database_url) as conn:
            rows = conn.execute(
                "SELECT d.doc_id, d.url, d.status, d.title, v.sha256, v.content_type FROM documents d"
                " JOIN document_versions v ON v.version_id = d.current_version_id WHERE d.source = %s",
                (source,),
            ).fetchall()
        keys = ("url", "status", "title", "sha256", "content_type")
        return {r[0]: dict(zip(keys, r[1:])) for r in rows}


def _path(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return "/" + rest.split("/", 1)[1] if "/" in rest else "/"


def logged(run: Run, path: str) -> tuple:
    """The one outcome logged for the URL with this path (query ignored)."""
    found = [v for p, v in run.log.items() if p.split("?", 1)[0] == path]
    assert len(found) == 1, (path, run.log)
    return found[0]
