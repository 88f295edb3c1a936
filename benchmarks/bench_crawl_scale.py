"""The board crawl at national scale: 1,500 notice boards, the 182 real MVČR OFN feeds among them, politeness on.

What runs, as in production except for the hosts:

- the mirror in scale mode (:mod:`mirror.scale`): the 182 real feeds of ``municipal/boards/mvcr_182_boards.json``
  (served unchanged on the MVČR API's paths, ``/api/boards/{n}``; their attachments are not in the corpus and answer
  404) and ``boards − 182`` **generated (synthetic) boards** on host names of their own (``*.mirror.test``, resolved
  to the mirror by the crawler), every 10th a JavaScript board, notices recombined from real Kadaň notice parts,
  attachments the real Blešno PDFs;
- the generated boards' register read from the mirror's NKOD (SPARQL, paged) and its HTML-board list; the real feeds
  as the catalogue records them (:func:`mirror.municipal.served_boards`);
- ``python -m crawlers.run boards`` over all of them into a fresh embedded PostgreSQL and raw store, with 1 request/s
  per host (``DOWNLOAD_DELAY`` 1, one request at a time per host), AutoThrottle and robots.txt; JavaScript boards
  rendered by Debian's Chromium. The real feeds' URLs are fetched from the mirror's origin but paced as the hosts
  that published them (``MENDEL_BOARD_PACE_PUBLISHED_HOSTS``): all 182 feeds on opendata-test.mvcr.cz, their
  attachments on www.mvcr.cz, www.hzscr.cz and www.policie.cz — one request a second to each, as production would.

Reported: wall time of the crawl, pages/s (HTTP responses Scrapy received, Chromium's rendered pages included),
documents stored (real feeds' notices apart from the generated boards'), peak memory of the crawl process with its
children (Playwright drivers, Chromium) sampled every 0.5 s — the sum of their RSS (counts pages Chromium's
processes share once per process) and of their PSS (shares split fairly) —, CPU seconds of the crawl tree (children
included) in all and per board, the mirror's and PostgreSQL's, and the politeness the mirror saw: the gaps between
two requests to one host, counting every request the host got — robots.txt, feeds, attachments, and what Chromium
fetched for a JavaScript board —, overall and per host (min, median), each real host on its own, and the
politeness floor (the busiest host's requests one delay apart: no crawl that keeps the delay can be faster).

The crawl keeps its production budget of requests per host and run (``MENDEL_BOARD_HOST_BUDGET``, 200; or
``--host-budget``, 0 = none): what one host has over it is deferred to the next run, never dropped — reported as
``attachments_deferred`` (www.mvcr.cz's 480 attachment requests: 199 in this run, 281 in the next ones). The
benchmark measures one nightly run of a fresh database.

    nice -n 5 .venv/bin/python benchmarks/bench_crawl_scale.py [--boards 1500] [--real-feeds 182]
        [--max-attachments N] [--host-budget N]

Writes benchmarks/results/crawl_scale.json, the previous result's headline figures kept beside the new ones
(``previous_run``). Goal: ≤ 300 s on 2 cores — reachable, without a margin on the shared machine: after the
budget and the reactor's per-request cuts, 274.0 s at load 3.2–5.3, 364.8 s at load 3.4–8.6 (another worker's job
on both cores) and 311.2 s at load 4.8–7.6 (2026-12-02; 23,216 requests each; 347.2 s at load 4.5–7.7 with the
budget alone). The budget brings the politeness floor to ~200 s (www.mvcr.cz's 199 requests; the 182 feeds on
opendata-test.mvcr.cz need 182 s); what bounds the wall time beside it is CPU: the crawl tree (the Scrapy process
and Chromium) needs ~190–235 CPU-s for ~23,000 requests and ~40,000 documents (the figure itself grows with the
machine's load), the mirror and PostgreSQL ~65–80 CPU-s more — on 2 cores shared with other work the crawl gets
them only when the machine is otherwise near idle.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from mendel.core import db  # noqa: E402
from mendel.core.config import SAMPLE_CORPUS, Settings  # noqa: E402
from mendel.core.sources import SOURCES  # noqa: E402
from mendel.crawl.boards.register import Board, load_registry, write_boards_file  # noqa: E402
from mirror.municipal import MVCR_API, observe_robots_txt, served_boards  # noqa: E402
from mirror.scale import HTML_LIST_PATH  # noqa: E402
from mirror.server import MirrorThread  # noqa: E402

GOAL_S = 300
REAL_FEEDS = 182  # the MVČR feeds of the sample corpus


class TreeMemory:
    """Peak RSS of a process plus all its descendants, sampled in a thread."""

    def __init__(self, pid: int, every: float = 0.5):
        self.process = psutil.Process(pid)
        self.every = every
        self.peak_total = self.peak_main = self.peak_pss = 0
        self._samples = 0
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                tree = [self.process, *self.process.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            total = pss = 0
            every_fourth = self._samples % 4 == 0  # PSS (shared pages split between processes) reads smaps: slower
            self._samples += 1
            for proc in tree:
                try:
                    rss = proc.memory_info().rss
                    pss += proc.memory_full_info().pss if every_fourth else 0
                except psutil.Error:
                    continue
                total += rss
                if proc.pid == self.process.pid:
                    self.peak_main = max(self.peak_main, rss)
            self.peak_total = max(self.peak_total, total)
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_processes = max(self.peak_processes, len(tree))
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def postgres_cpu_s(pgdata: Path) -> float:
    """CPU seconds of the benchmark's PostgreSQL: its postmaster and the backends it has reaped."""
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if "postgres" in cmdline and str(pgdata) in cmdline:
            times = proc.cpu_times()
            children = [c.cpu_times() for c in proc.children(recursive=True)]
            return (
                times.user
                + times.system
                + times.children_user
                + times.children_system
                + sum(c.user + c.system for c in children)
            )
    return 0.0


def real_feed_boards(count: int) -> list[Board]:
    """The first ``count`` of the real MVČR feeds, as the mirror's catalogue records them."""
    feeds = [b for b in served_boards(SAMPLE_CORPUS) if b.distributions[0][0].startswith(MVCR_API)]
    return [
        Board(key=url, kind="ofn", url=url, publisher_ico=b.publisher_ico, format=file_type)
        for b in feeds[:count]
        for url, file_type in b.distributions[:1]
    ]


def stored_by_listing(database_url: str, real_urls: list[str]) -> dict[str, int]:
    """Documents stored from the real feeds (their notices; attachments are not in the corpus) and the rest."""
    with psycopg.connect(database_url) as conn:
        real, generated = conn.execute(
            "SELECT count(*) FILTER (WHERE listing = ANY(%s)), count(*) FILTER (WHERE NOT (listing = ANY(%s)))"
            " FROM documents WHERE status = 'active'",
            (real_urls, real_urls),
        ).fetchone()
    return {"real_feeds": real, "generated_boards": generated}


def previous_headline(path: Path) -> dict | None:
    """The figures of the result this run replaces, to read side by side."""
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    gaps = previous.get("politeness_seen_by_mirror") or {}
    return {
        "commit": previous.get("commit"),
        "crawl_wall_s": previous.get("crawl_wall_s"),
        "politeness_floor_s": gaps.get("politeness_floor_s"),
        "per_host_median_gap_s_median": (gaps.get("per_host_median_gap_s") or {}).get("median"),
        "pages_per_s": previous.get("pages_per_s"),
        "cpu_s_crawl_tree": previous.get("cpu_s_crawl_tree"),
        "requests": (previous.get("counts") or {}).get("requests"),
        "host_budget_per_run": previous.get("host_budget_per_run"),
        "load_avg_at_start": (previous.get("machine") or {}).get("load_avg_at_start"),
        "load_avg_at_end": (previous.get("machine") or {}).get("load_avg_at_end"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=1500, help="boards in all, the real feeds included")
    parser.add_argument("--real-feeds", type=int, default=REAL_FEEDS, help="how many of the 182 real MVČR feeds")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds between requests to one host")
    parser.add_argument("--max-attachments", type=int, default=None, help="attachments fetched per board")
    parser.add_argument(
        "--host-budget",
        type=int,
        default=None,
        help="requests per host and run (MENDEL_BOARD_HOST_BUDGET; default: the crawl's own, 0 = none)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "crawl_scale.json")
    parser.add_argument("--log", type=Path, default=None, help="keep the crawler's log here")
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="cProfile the crawl process (its reactor thread) into this file; slows it down",
    )
    args = parser.parse_args()

    load_at_start = [round(x, 1) for x in os.getloadavg()]  # the machine is shared: say how busy it was
    work = Path(tempfile.mkdtemp(prefix="mendel-bench-crawl-"))
    work.chmod(0o755)  # pgserver runs PostgreSQL as its own user when started as root
    pgdata = work / "pgdata"
    try:
        database_url = db.create_database(db.embedded_url(pgdata), f"bench_{uuid.uuid4().hex[:8]}")
        db.migrate(database_url)
        real = real_feed_boards(max(0, min(args.real_feeds, REAL_FEEDS, args.boards)))
        with MirrorThread(SAMPLE_CORPUS, scale=args.boards - len(real)) as mirror:
            observe_robots_txt(mirror.server)
            settings = Settings(
                profile="demo", mirror_url=mirror.base_url, html_boards=mirror.base_url + HTML_LIST_PATH
            )
            started = time.perf_counter()
            generated = load_registry(settings)
            registry_s = time.perf_counter() - started
            boards = real + generated  # the real feeds first: their one API host is the crawl's longest queue
            boards_file = write_boards_file(boards, work / "boards.json")
            env = {
                **os.environ,
                "MENDEL_HOME": str(work / "home"),
                "MENDEL_PROFILE": "demo",
                "MENDEL_MIRROR_URL": mirror.base_url,
                "MENDEL_DATABASE_URL": database_url,
                "MENDEL_RUN_ID": "bench-crawl-scale",
                "MENDEL_BOARDS_FILE": str(boards_file),
                "MENDEL_BOARD_DOWNLOAD_DELAY": str(args.delay),
                "MENDEL_BOARD_PACE_PUBLISHED_HOSTS": "1",
            }
            env.pop("DAGSTER_PIPES_CONTEXT", None)
            if args.max_attachments is not None:
                env["MENDEL_BOARD_MAX_ATTACHMENTS"] = str(args.max_attachments)
            env.pop("MENDEL_BOARD_HOST_BUDGET", None)
            if args.host_budget is not None:
                env["MENDEL_BOARD_HOST_BUDGET"] = str(args.host_budget)
            host_budget = SOURCES["boards"].option("host_budget").value(env.get("MENDEL_BOARD_HOST_BUDGET"))
            print(
                f"{len(boards)} boards: {len(real)} real MVČR feeds + {len(generated)} generated (synthetic, "
                f"{sum(b.javascript for b in boards)} JavaScript), register read in {registry_s:.1f} s; "
                f"crawling with {args.delay:g} s per host …",
                flush=True,
            )
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            mirror_before = resource.getrusage(resource.RUSAGE_SELF)
            pg_before = postgres_cpu_s(pgdata)
            started = time.perf_counter()
            profiler = ["-m", "cProfile", "-o", str(args.profile)] if args.profile else []
            crawl = subprocess.Popen(
                [sys.executable, *profiler, "-m", "crawlers.run", "boards"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=open(work / "crawl.log", "w"),
                text=True,
            )
            with TreeMemory(crawl.pid) as memory:
                stdout, _ = crawl.communicate()
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            mirror_after = resource.getrusage(resource.RUSAGE_SELF)
            pg_cpu = postgres_cpu_s(pgdata) - pg_before
            politeness = mirror.server.board_hosts.politeness(args.delay)
        if args.log:
            shutil.copyfile(work / "crawl.log", args.log)
        if crawl.returncode != 0:
            print((work / "crawl.log").read_text()[-4000:], file=sys.stderr)
            return 1
        counts = ast.literal_eval(stdout.strip().splitlines()[-1])
        stored = stored_by_listing(database_url, [b.url for b in real])
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        mirror_cpu = (mirror_after.ru_utime - mirror_before.ru_utime) + (mirror_after.ru_stime - mirror_before.ru_stime)
        result = {
            "boards": len(boards),
            "real_mvcr_feeds": len(real),
            "generated_boards_synthetic": len(generated),
            "javascript_boards": sum(b.javascript for b in boards),
            "documents_stored_by_origin": stored,
            "delay_per_domain_s": args.delay,
            "max_attachments_per_board": args.max_attachments,
            # Requests per host in one run (0: none); attachments over it are deferred to the next run, not lost.
            "host_budget_per_run": host_budget,
            "attachments_deferred": counts.get("deferred"),
            "registry_s": round(registry_s, 2),
            "crawl_wall_s": round(wall, 1),
            "pages": counts["responses"],
            "pages_per_s": round(counts["responses"] / wall, 1),
            "documents_per_s": round(counts["stored"] / wall, 1),
            "counts": counts,
            "peak_rss_mb_crawl_tree": round(memory.peak_total / 2**20),
            "peak_pss_mb_crawl_tree": round(memory.peak_pss / 2**20),
            "peak_rss_mb_crawl_process": round(memory.peak_main / 2**20),
            "peak_processes": memory.peak_processes,
            "cpu_s_crawl_tree": round(cpu, 1),
            "cpu_s_crawl_per_board": round(cpu / max(1, len(boards)), 3),
            "cpu_s_mirror": round(mirror_cpu, 1),
            "cpu_s_postgres": round(pg_cpu, 1),
            # What 2 cores of our own would need at least: all CPU spread over both, the crawl process on one.
            "cpu_bound_2_cores_s": round(max(cpu, (cpu + mirror_cpu + pg_cpu) / 2), 1),
            "politeness_seen_by_mirror": politeness,
            "commit": subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
            ).stdout.strip()
            or None,
            "goal_s": GOAL_S,
            "within_goal": counts["finish_reason"] == "finished" and wall <= GOAL_S,
            "machine": {
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "niceness": os.nice(0),
                "load_avg_at_start": load_at_start,
                "load_avg_at_end": [round(x, 1) for x in os.getloadavg()],
            },
        }
        result["previous_run"] = previous_headline(args.out)
        print(json.dumps(result, indent=2, ensure_ascii=False))
        gaps = politeness
        print(
            f"wall {wall:.1f} s (goal {GOAL_S} s, politeness floor {gaps['politeness_floor_s']} s: "
            f"{gaps['busiest_host_requests']} requests to {gaps['busiest_host']}), "
            f"host budget {host_budget or 'none'}: {counts.get('deferred', 0)} attachments deferred, "
            f"{result['pages_per_s']} pages/s, peak RSS crawl tree {result['peak_rss_mb_crawl_tree']} MB "
            f"(PSS {result['peak_pss_mb_crawl_tree']} MB), CPU crawl tree {result['cpu_s_crawl_tree']} s = "
            f"{result['cpu_s_crawl_per_board']} s per board; gaps per host: min of minima "
            f"{gaps['per_host_min_gap_s']['min']} s, median of medians {gaps['per_host_median_gap_s']['median']} s, "
            f"{gaps['gaps_under_delay']} under {args.delay:g} s",
            flush=True,
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return 0
    finally:
        db.stop_embedded(pgdata)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
