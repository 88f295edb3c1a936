"""`mendel search` wall time, loading the bundle in the command against asking a running `mendel serve`, and the
search page's time to its whole HTML, over the latest published bundle of ``$MENDEL_HOME`` (``make run``).

    .venv/bin/python benchmarks/bench_cli_search.py [--runs 10]

Each figure is a whole process as a user types it; both paths must print the same JSON. Writes
benchmarks/results/cli_search.json; results and method in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
MENDEL = [sys.executable, "-m", "cli.main"]
QUERIES = [
    "Jaké podmínky musí splnit žadatel o podporu bydlení?",
    "§ 5 zákona č. 175/2025 Sb.",
    "sazba základní náhrady za používání osobního automobilu",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def timed(args: list[str], env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(MENDEL + args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"mendel {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, done.stdout


def wait_ready(url: str, server: subprocess.Popen, timeout: float = 300) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if server.poll() is not None:
            raise SystemExit(f"mendel serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/ready", timeout=1) as response:
                if json.load(response).get("status") == "ready":
                    return time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} not ready after {timeout} s")


def page_seconds(url: str, query: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(f"{url}/?{urllib.parse.urlencode({'q': query})}", timeout=60) as response:
        html = response.read().decode()
    elapsed = time.perf_counter() - started
    if '<li class="card">' not in html and "Nic nenalezeno" not in html:
        raise SystemExit(f"the search page for {query!r} has neither results nor the empty state")
    return elapsed


def differing_fields(expected: dict, got: dict) -> set[str]:
    """Names of the top-level fields, and of the hit fields (as results.<name>), that differ."""
    fields = {key for key in expected.keys() | got.keys() if key != "results" and expected.get(key) != got.get(key)}
    ours, theirs = expected.get("results", []), got.get("results", [])
    if len(ours) != len(theirs):
        fields.add("results (count)")
    for mine, other in zip(ours, theirs):
        fields |= {f"results.{key}" for key in mine.keys() | other.keys() if mine.get(key) != other.get(key)}
    return fields


def summary(seconds: list[float]) -> dict:
    return {
        "runs": len(seconds),
        "median_s": round(statistics.median(seconds), 3),
        "min_s": round(min(seconds), 3),
        "max_s": round(max(seconds), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each query on each path")
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MENDEL_API_URL", None)
    cold, served, page, differ, differing = [], [], [], 0, set()
    local_answers = {}
    for query in QUERIES:
        for _ in range(args.runs):
            seconds, out = timed(["search", query, "--json", "--local"], env)
            cold.append(seconds)
            local_answers[query] = json.loads(out)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        MENDEL + ["serve", "--no-query-log", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        startup = wait_ready(url, server)
        for query in QUERIES:
            for _ in range(args.runs):
                seconds, out = timed(["search", query, "--json", "--api", url], env)
                served.append(seconds)
                answer = json.loads(out)
                if answer != local_answers[query]:
                    differ += 1
                    differing.update(differing_fields(local_answers[query], answer))
        for query in QUERIES:  # the search page: the whole HTML with its result cards, as a browser gets it
            for _ in range(args.runs):
                page.append(page_seconds(url, query))
    finally:
        server.terminate()
        server.wait(timeout=30)
    result = {
        "queries": len(QUERIES),
        "cold_local": summary(cold),
        "via_server": summary(served),
        "search_page": summary(page),
        "server_ready_s": round(startup, 2),
        "answers_differing": differ,
        "differing_fields": sorted(differing),
        "bundle": next(iter(local_answers.values()))["bundle"],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cli_search.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"mendel search, {len(QUERIES)} queries x {args.runs} runs, bundle {result['bundle']}")
    for name in ("cold_local", "via_server", "search_page"):
        figures = result[name]
        print(
            f"  {name:<11} median {figures['median_s']:.3f} s  (min {figures['min_s']:.3f}, max {figures['max_s']:.3f})"
        )
    print(
        f"  server ready after {result['server_ready_s']} s; answers differing between the paths: {differ}"
        + (f" (fields: {', '.join(sorted(differing))})" if differing else "")
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
