"""Fault modes of the local mirror, each run through the real crawl into its own PostgreSQL database: the crawl
completes, and every discovered URL ends in one logged outcome, so ``discovered = stored + unchanged +
quarantined + disallowed`` holds exactly, checked from ``crawl_runs`` / ``crawl_log``
(:func:`mendel.crawl.crawlstate.run_counts`). Plus withdrawn documents: notices that leave a complete OFN feed are marked
withdrawn, and active again when they come back.

One crawl per fault kind, over the smallest slice that exercises it: one day of Nejvyšší soud decisions (two result
pages, three decision pages), obec Blešno (the board crawl over its site's API alone: 13 article listings,
19 PDFs) where a PDF or a JSON listing is needed, the RÚIAN files, two e-Sbírka acts. Each crawl gets a mirror of its own
(fault rules are per mirror instance) and a database schema of its own; the crawls run three at a time, and the
tests then check each. Short timeouts, a small size limit and short retry waits come from the crawl settings'
environment.

Each crawl is ``crawlers.run.main()`` (what ``python -m crawlers.run`` runs under Dagster) in a process of its own,
forked from a launcher that imported the crawler once: the same code path without paying the interpreter and
import start-up (over a second of CPU) for every crawl.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import signal
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import psycopg.conninfo
import pytest

from crawlers.spiders.nsoud import decision_title
from mendel.core import db
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, PROJECT_ROOT, SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.maintained_list import load_html_boards
from mendel.crawl.boards.register import write_boards_file
from mirror.faults import transcode
from mirror.responses import Response
from mirror.server import ROBOTS_TXT, MirrorThread

OUTCOMES = crawlstate.OUTCOMES
BLESNO = {p.name.split("__", 1)[1]: p for p in sorted((SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf"))}
ARTICLES: dict[str, list[str]] = {}
for _name, _path in BLESNO.items():
    ARTICLES.setdefault(_path.name.split("__", 1)[0], []).append(_name)
KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
NS_RECORDS = {
    r["ecli"]: r
    for path in sorted((SAMPLE_CORPUS / "courts").glob("ns_decisions*.jsonl"))
    for r in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines()))
}
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
}
BLESNO_SITE = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "api:blesno")
KADAN_FEED = Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL, publisher_ico="00261912")
BLESNO_ONLY = {"boards": [BLESNO_SITE]}  # the board crawl over these boards (Harness.crawl writes the file)
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


def pdf(name: str) -> str:
    """The mirror path of a Blešno PDF through the site's REST backend (what the spider fetches)."""
    return f"/articles/{article(name)}/assets/{name}"


def article(name: str) -> str:
    return BLESNO[name].name.split("__", 1)[0]


def assets(slug: str) -> str:
    """The path of an article's asset listing."""
    return f"/articles/{slug}/assets"


def blesno_doc(name: str) -> str:
    return f"blesno:{article(name)}/{name}"


# ---------------------------------------------------------------- running crawls

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


SCENARIOS = {
    "5xx_burst": Scenario(
        "nsoud",
        [
            {"kind": "status", "path": decision(NS_A), "times": 2, "status": 503, "retry_after": 0},
            {"kind": "status", "path": decision(NS_B), "status": 500},
            {"kind": "status", "path": SEARCH, "query": PAGE_2, "status": 503},
        ],
        NS_DAY,
        runs=2,
    ),
    "timeout": Scenario(
        "nsoud",
        [
            {"kind": "slow", "path": decision(NS_B), "seconds": 8},
            {"kind": "slow", "path": decision(NS_A), "seconds": 8, "times": 1},
        ],
        {**NS_DAY, "MENDEL_DOWNLOAD_TIMEOUT": "3", "MENDEL_RETRY_TIMES": "1"},
    ),
    "connection_reset": Scenario(
        "nsoud",
        [{"kind": "reset", "path": decision(NS_B)}, {"kind": "reset", "path": decision(NS_A), "times": 1}],
        NS_DAY,
    ),
    "truncated_body": Scenario(
        "nsoud",
        [
            {"kind": "truncate", "path": decision(NS_B), "keep": 0.5},
            {"kind": "truncate", "path": decision(NS_A), "keep": 0.3, "times": 1},
        ],
        NS_DAY,
    ),
    "windows_1250_and_utf_16": Scenario(
        "nsoud",
        [
            {"kind": "transcode", "path": decision(NS_A), "encoding": "windows-1250"},
            {"kind": "transcode", "path": decision(NS_B), "encoding": "utf-16"},
        ],
        NS_DAY,
    ),
    "malformed_pdf": Scenario(
        "boards", [{"kind": "cut", "path": pdf("kanalizacni-rad.pdf"), "keep": 0.4}], BLESNO_ONLY
    ),
    "decompression_bomb": Scenario("nsoud", [{"kind": "gzip_bomb", "path": decision(NS_B), "size": 64 << 20}], NS_DAY),
    "decompression_bomb_file": Scenario(
        "ruian",
        [
            {
                "kind": "gzip_bomb",
                "path": "/vymenny_format/soucasna/*_ST_ZKSH.xml.gz",
                "size": 256 << 20,
                "as_file": True,
            }
        ],
    ),
    "html_error_page_200": Scenario(
        "boards",
        [
            {
                "kind": "error_page",
                "path": pdf(
                    "vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v"
                    "-obci-blesno-oznameni-o-vysledku.pdf"
                ),
            },
            {"kind": "error_page", "path": assets("vymena-ridicskych-prukazu-finisuje")},
        ],
        BLESNO_ONLY,
    ),
    "html_error_page_200_json_api": Scenario(
        "esbirka",
        [{"kind": "error_page", "path": "/esel-esbir-daver/dokumenty-sbirky//sb/2024/87"}],
        {"MENDEL_ESBIRKA_YEARS": "2024,2025", "MENDEL_ESBIRKA_ACTS": "/sb/2024/87,/sb/2025/573"},
    ),
    "robots_disallow": Scenario(
        "boards",
        [],
        BLESNO_ONLY,
        robots=(
            f"User-agent: *\nDisallow: /articles/volby/\nDisallow: {pdf('vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf')}\n"
        ),
    ),
    "redirect_loop": Scenario(
        "nsoud",
        [{"kind": "redirect_loop", "path": decision(NS_B)}, {"kind": "redirect_loop", "path": SEARCH, "query": PAGE_2}],
        NS_DAY,
    ),
    "duplicate_content": Scenario(
        "nsoud", [{"kind": "duplicate", "path": decision(NS_B), "of": decision(NS_A)}], NS_DAY
    ),
    "oversized_file": Scenario(
        "nsoud",
        [
            {"kind": "oversize", "path": decision(NS_B), "size": 6 << 20},
            {"kind": "oversize", "path": decision(NS_C), "size": 6 << 20, "declare_length": False},
        ],
        NS_DAY,
    ),
}
# Withdrawal: a real subset of the Kadaň feed, then the board takes three notices down, then puts them back.
FEED_NOTICES = 12
TAKEN_DOWN = (2, 5, 9)


def run_scenario(launcher: CrawlLauncher, name: str, scenario: Scenario, database_url: str, home: Path) -> Harness:
    harness = Harness(launcher, database_url, home)
    try:
        harness.crawl(scenario.spider, f"{name}-1", scenario.faults, scenario.robots, **scenario.env)
        for n in range(2, scenario.runs + 1):
            harness.crawl(scenario.spider, f"{name}-{n}", (), None, **scenario.env)
    finally:
        harness.close()
    return harness


def write_feed(corpus: Path, notices: list[dict]) -> None:
    feed = {**KADAN, "informace": notices}
    (corpus / "municipal" / "kadan_uredni_deska.json").write_text(
        json.dumps(feed, ensure_ascii=False), encoding="utf-8"
    )


def run_withdrawal(launcher: CrawlLauncher, database_url: str, home: Path) -> Harness:
    corpus = home / "corpus"
    (corpus / "municipal").mkdir(parents=True)
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.is_dir() and entry.name != "municipal":
            (corpus / entry.name).symlink_to(entry)
    (corpus / "municipal" / "blesno").symlink_to(SAMPLE_CORPUS / "municipal" / "blesno")
    notices = KADAN["informace"][:FEED_NOTICES]
    write_feed(corpus, notices)
    harness = Harness(launcher, database_url, home, corpus)
    try:
        boards = [KADAN_FEED, BLESNO_SITE]
        every_night = {"MENDEL_BOARD_REVALIDATE_DAYS": "0"}  # Blešno's article lists read every night
        harness.crawl("boards", "wd-1", boards=boards, **every_night)
        write_feed(corpus, [n for i, n in enumerate(notices) if i not in TAKEN_DOWN])
        # Blešno's index is read only in part this time (one article listing fails): nothing of it is withdrawn.
        harness.crawl(
            "boards", "wd-2", [{"kind": "status", "path": assets("volby"), "status": 404}], boards=boards, **every_night
        )
        write_feed(corpus, notices)
        harness.crawl("boards", "wd-3", boards=boards, **every_night)
    finally:
        harness.close()
    return harness


@pytest.fixture(scope="module")
def fault_runs(pg_server_url, tmp_path_factory) -> dict[str, Harness]:
    """Every scenario crawled, three at a time (separate processes against separate mirrors), each in a schema
    of one database (a database per scenario would cost more than the crawls at the server's shutdown)."""
    database_url = db.create_database(pg_server_url, f"faults_{uuid.uuid4().hex[:8]}")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")  # shared by every scenario's schema
    launcher = CrawlLauncher()
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {
                "withdrawal": pool.submit(run_withdrawal, launcher, database_url, tmp_path_factory.mktemp("withdrawal"))
            }
            for name, scenario in SCENARIOS.items():
                futures[name] = pool.submit(
                    run_scenario, launcher, name, scenario, database_url, tmp_path_factory.mktemp(name)
                )
            results = {name: future.result() for name, future in futures.items()}
    finally:
        launcher.close()
    print("\nrun: discovered = stored + unchanged + quarantined + disallowed")
    for harness in results.values():
        for run in harness.runs:
            c = run.counts
            print(
                f"  {run.run_id:32s} {c['discovered']:3d} = {c['stored']:3d} + {c['unchanged']:3d}"
                f" + {c['quarantined']:3d} + {c['disallowed']:3d}  reconciled={c['reconciled']}"
                f" withdrawn={c['withdrawn']} reactivated={c['reactivated']} crawl={run.printed['duration_s']}s"
            )
    return results


def reconciled(harness: Harness, run_index: int = 0, **expected) -> Run:
    """The run completed and reconciles exactly, with the expected outcomes; every quarantined URL has a reason
    in crawl_log and a quarantine record; no URL has two outcomes."""
    run = harness.runs[run_index]
    counts, printed = run.counts, run.printed
    assert printed["finish_reason"] == "finished", printed
    assert counts["reconciled"], counts
    assert counts["discovered"] == printed["discovered"] == sum(counts[o] for o in OUTCOMES), (counts, printed)
    assert {o: counts[o] for o in OUTCOMES} == {o: printed[o] for o in OUTCOMES}
    assert {o: counts[o] for o in OUTCOMES} == {o: expected.get(o, 0) for o in OUTCOMES}, counts
    assert counts["discovered"] == len(run.log), "a URL was logged twice"
    with psycopg.connect(harness.database_url) as conn:
        unexplained = conn.execute(
            "SELECT url FROM crawl_log WHERE run_id = %s AND outcome IN ('quarantined', 'disallowed')"
            " AND coalesce(reason, '') = ''",
            (run.run_id,),
        ).fetchall()
        unrecorded = conn.execute(
            "SELECT l.url FROM crawl_log l WHERE l.run_id = %s AND l.outcome = 'quarantined' AND NOT EXISTS"
            " (SELECT 1 FROM quarantine q WHERE q.stage = 'crawl' AND q.url = l.url AND q.reason = l.reason)",
            (run.run_id,),
        ).fetchall()
    assert not unexplained and not unrecorded, (unexplained, unrecorded)
    return run


def requests_for(run: Run, path: str) -> int:
    return sum(1 for _, p, _ in run.requests if p.split("?", 1)[0] == path)


def logged(run: Run, path: str) -> tuple:
    """The one outcome logged for the URL with this path (query ignored)."""
    found = [v for p, v in run.log.items() if p.split("?", 1)[0] == path]
    assert len(found) == 1, (path, run.log)
    return found[0]


def page_2(run: Run) -> tuple:
    found = [v for p, v in run.log.items() if p.startswith(SEARCH) and "Start=3" in p]
    assert len(found) == 1, run.log
    return found[0]


# ---------------------------------------------------------------- transport faults


def test_5xx_burst_is_retried_and_stored_lasting_errors_are_quarantined(fault_runs):
    h = fault_runs["5xx_burst"]
    # A: two 503s then the page → stored. B: 500 on every try → quarantined. Result page 2: 503 on every try →
    # the listing is quarantined (and C, only on it, is not discovered).
    run = reconciled(h, stored=1, quarantined=2)
    assert run.hits == [2, 3, 3]  # lasting errors: the first try and 2 retries
    assert requests_for(run, decision(NS_A)) == 3
    assert logged(run, decision(NS_B)) == ("quarantined", 500, "HTTP 500 after 2 retries")
    assert page_2(run) == ("quarantined", 503, "listing: HTTP 503 after 2 retries")
    assert set(run.statuses) == {ECLI[NS_A]}
    # The site recovered: the next run stores what failed, and A answers 304.
    again = reconciled(h, 1, stored=2, unchanged=1)
    assert logged(again, decision(NS_A)) == ("unchanged", 304, None)
    assert set(h.documents("nsoud")) == set(ECLI.values())


def test_timeouts_are_retried_then_quarantined(fault_runs):
    h = fault_runs["timeout"]
    run = reconciled(h, stored=2, quarantined=1)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        "timeout: no complete answer within 3.0 s after 1 retry",
    )
    assert run.hits == [2, 1]  # B: first try + 1 retry; A: slow once, then served
    assert set(h.documents("nsoud")) == {ECLI[NS_A], ECLI[NS_C]}


def test_connection_resets_are_retried_then_quarantined(fault_runs):
    h = fault_runs["connection_reset"]
    run = reconciled(h, stored=2, quarantined=1)
    outcome, status, reason = logged(run, decision(NS_B))
    assert (outcome, status) == ("quarantined", None)
    assert re.fullmatch(r"connection failed: Connection(Lost|Done) after 2 retries", reason), reason
    assert run.hits[0] >= 3 and run.hits[1] == 1  # Twisted may also re-send once on a reused connection
    assert set(h.documents("nsoud")) == {ECLI[NS_A], ECLI[NS_C]}


def test_truncated_bodies_are_never_stored(fault_runs):
    h = fault_runs["truncated_body"]
    run = reconciled(h, stored=2, quarantined=1)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        "truncated body: fewer bytes than its Content-Length after 2 retries",
    )
    docs = h.documents("nsoud")
    assert set(docs) == {ECLI[NS_A], ECLI[NS_C]}
    # A was cut once and served whole on the retry: the whole page is what is stored.
    page = h.store.get(docs[ECLI[NS_A]]["sha256"]).decode("utf-8")
    assert page.rstrip().endswith("</html>")
    assert html.escape(NS_RECORDS[ECLI[NS_A]]["full_text"][-200:], quote=False) in page


def test_oversized_files_are_quarantined(fault_runs):
    h = fault_runs["oversized_file"]
    run = reconciled(h, stored=1, quarantined=2)
    assert logged(run, decision(NS_B)) == (
        "quarantined",
        None,
        f"too large: Content-Length {6 << 20}, over the {MAXSIZE}-byte limit",
    )
    assert logged(run, decision(NS_C)) == (
        "quarantined",
        None,
        f"too large: body kept coming, over the {MAXSIZE}-byte limit",
    )
    assert run.printed["bytes"] < 2 * MAXSIZE  # both downloads were cut off at the limit, not read to the end


def test_decompression_bombs_are_quarantined(fault_runs):
    h = fault_runs["decompression_bomb"]
    run = reconciled(h, stored=2, quarantined=1)
    outcome, _, reason = logged(run, decision(NS_B))
    assert outcome == "quarantined" and reason.startswith("decompression bomb: ")
    assert reason.endswith(f"(limit {MAXSIZE} bytes)")
    assert run.printed["bytes"] < 1 << 20  # 64 MiB of zeros travel as ~64 KiB, and are never expanded past the limit
    # A RÚIAN file that is a bomb itself: read as a stream, rejected at once, never expanded.
    ruian = fault_runs["decompression_bomb_file"]
    run = reconciled(ruian, stored=1, quarantined=1)
    outcome, status, reason = logged(run, "/vymenny_format/soucasna/20140706_ST_ZKSH.xml.gz")
    assert (outcome, status) == ("quarantined", 200) and reason.startswith("not a VFR file: ")
    assert set(ruian.documents("ruian")) == {"ruian:OB_564729_UKSH"}


# ---------------------------------------------------------------- content faults


def test_windows_1250_and_utf_16_pages_are_stored_as_sent_and_read_right(fault_runs):
    from mendel.extract.document import extract_document

    h = fault_runs["windows_1250_and_utf_16"]
    reconciled(h, stored=3)
    docs = h.documents("nsoud")
    assert set(docs) == set(ECLI.values())
    for unid, encoding in ((NS_A, "windows-1250"), (NS_B, "utf-16"), (NS_C, "utf-8")):
        record, doc = NS_RECORDS[ECLI[unid]], docs[ECLI[unid]]
        # Metadata read through the declared charset; the bytes kept are the bytes the site sent.
        assert doc["title"] == decision_title(record["document_type"], record["case_number"])
        raw = h.store.get(doc["sha256"])
        assert raw.startswith(b"\xff\xfe") == (encoding == "utf-16")
        page = raw.decode(encoding)
        assert re.search(rf'<meta charset="{encoding}"', page, re.IGNORECASE)
        # The extract stage reads the stored bytes right (the text starts like the decision's full text).
        pages = extract_document(raw, doc["content_type"], doc["url"]).pages
        text = " ".join(" ".join(p.text for p in pages).split())
        assert " ".join(record["full_text"].split())[:300] in text
    # The mirror's transcoding: the same text, declared in both places, unmappable characters as references.
    sample = transcode(
        Response(body='<meta charset="UTF-8">Nejvyšší − soud'.encode(), content_type="text/html; charset=UTF-8"),
        "windows-1250",
    )
    assert sample.content_type == "text/html; charset=windows-1250"
    assert sample.body == '<meta charset="windows-1250">Nejvyšší &#8722; soud'.encode("windows-1250")


def test_malformed_pdf_is_quarantined_before_storing(fault_runs):
    h = fault_runs["malformed_pdf"]
    # The bytes arrived whole as the server had them, but the PDF has no end: the content check quarantines it.
    run = reconciled(h, stored=18, quarantined=1)
    assert run.log[pdf("kanalizacni-rad.pdf")] == ("quarantined", 200, "content: incomplete PDF: no %%EOF at its end")
    assert blesno_doc("kanalizacni-rad.pdf") not in h.documents("boards")


def test_html_error_pages_sent_with_200_are_quarantined(fault_runs):
    h = fault_runs["html_error_page_200"]
    # One PDF answered by an error page; one article listing (JSON expected) too, hiding its one PDF.
    run = reconciled(h, stored=17, quarantined=2)
    name = "vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno-oznameni-o-vysledku.pdf"
    assert run.log[pdf(name)] == ("quarantined", 200, "expected a PDF, got text/html")
    outcome, status, reason = run.log[assets("vymena-ridicskych-prukazu-finisuje") + "?type=references"]
    assert (outcome, status) == ("quarantined", 200)
    assert reason.startswith("listing: unparseable (text/html; charset=UTF-8): JSONDecodeError")
    assert run.printed["listing_failed"] == 1
    # The e-Sbírka API answering an act's detail with an HTML page: that act is quarantined, the other stored.
    api = fault_runs["html_error_page_200_json_api"]
    run = reconciled(api, stored=1, quarantined=1)
    outcome, status, reason = run.log["/esel-esbir-daver/dokumenty-sbirky/%2Fsb%2F2024%2F87"]
    assert (outcome, status) == ("quarantined", 200) and "JSONDecodeError" in reason
    assert set(api.documents("esbirka")) == {"/eli/cz/sb/2025/573"}


def test_robots_txt_disallow_is_logged_for_listings_and_documents(fault_runs):
    h = fault_runs["robots_disallow"]
    # The volby listing (and so its 2 PDFs) and one kanalizace PDF are off limits.
    run = reconciled(h, stored=16, disallowed=2)
    assert run.log[assets("volby") + "?type=references"] == ("disallowed", None, "listing: robots.txt")
    assert run.log[pdf("vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf")] == ("disallowed", None, "robots.txt")
    fetched = [p for _, p, _ in run.requests]
    off_limits = ("/articles/volby/", pdf("vzor-smlouvy-o-odvadeni-odpadnich-vod.pdf"))
    assert not [p for p in fetched if p.startswith(off_limits)]


def test_redirect_loops_are_quarantined(fault_runs):
    h = fault_runs["redirect_loop"]
    # B's page and result page 2 (C's only listing) redirect in a circle.
    run = reconciled(h, stored=1, quarantined=2)
    assert logged(run, decision(NS_B)) == ("quarantined", None, "redirect loop: gave up after 10 redirects")
    # A listing is subject to Scrapy's duplicate filter, which drops the loop's first repeat without a word (the
    # LoggingDupeFilter reports it); after a retry (no filter) the redirect limit ends it instead.
    assert page_2(run) in (
        ("quarantined", None, "listing: redirect loop: back to an already fetched URL after 2 redirects"),
        ("quarantined", None, "listing: redirect loop: gave up after 10 redirects"),
    )
    assert requests_for(run, decision(NS_B)) == 11  # the first try and 10 redirects, then given up
    assert set(h.documents("nsoud")) == {ECLI[NS_A]}


def test_duplicate_content_under_two_urls(fault_runs):
    h = fault_runs["duplicate_content"]
    # B's URL serves A's page: the same decision (ECLI) and bytes, so one document, found unchanged the second time.
    run = reconciled(h, stored=2, unchanged=1)
    outcomes = sorted(logged(run, decision(unid))[0] for unid in (NS_A, NS_B))
    assert outcomes == ["stored", "unchanged"]
    docs = h.documents("nsoud")
    assert set(docs) == {ECLI[NS_A], ECLI[NS_C]}
    with psycopg.connect(h.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM document_versions").fetchone()[0] == 2
    blobs = [p for p in (h.home / "raw").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert len(blobs) == 2


# ---------------------------------------------------------------- withdrawn documents


def test_notices_leaving_the_feed_are_withdrawn_and_come_back(fault_runs):
    h = fault_runs["withdrawal"]
    notices = KADAN["informace"][:FEED_NOTICES]
    attachments = {d["url"] for n in notices for d in n.get("dokument", [])}  # not in the corpus: 404
    # The 404s of attachments are quarantined; the 19 Blešno PDFs are stored, then answer 304.
    first = reconciled(h, 0, stored=FEED_NOTICES + len(BLESNO), quarantined=len(attachments))
    assert first.counts["withdrawn"] == 0
    kept = [n for i, n in enumerate(notices) if i not in TAKEN_DOWN]
    kept_attachments = {d["url"] for n in kept for d in n.get("dokument", [])}
    second = reconciled(
        h, 1, unchanged=len(kept) + len(BLESNO) - len(ARTICLES["volby"]), quarantined=len(kept_attachments) + 1
    )
    assert second.counts["withdrawn"] == len(TAKEN_DOWN) and second.counts["reactivated"] == 0
    withdrawn = {d for d, status in second.statuses.items() if status == "withdrawn"}
    # Marked, never deleted; Blešno's documents stay active although volby's two PDFs were not listed (its index
    # was read only in part).
    assert withdrawn == {notices[i]["iri"] for i in TAKEN_DOWN}
    assert set(second.statuses) == set(first.statuses)
    third = reconciled(h, 2, unchanged=FEED_NOTICES + len(BLESNO), quarantined=len(attachments))
    assert third.counts["reactivated"] == len(TAKEN_DOWN) and third.counts["withdrawn"] == 0
    docs = h.documents("boards")
    assert all(doc["status"] == "active" for doc in docs.values()) and len(docs) == FEED_NOTICES + len(BLESNO)
    with psycopg.connect(h.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM document_versions").fetchone()[0] == len(docs)
        listings = dict(conn.execute("SELECT run_id, incomplete_listings FROM crawl_runs"))
    assert listings == {"wd-1": [], "wd-2": [BLESNO_SITE.url], "wd-3": []}
