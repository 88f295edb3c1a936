"""Memory and latency of the query encoder alone in a process, as serving loads it (``get_embedder()``): RSS once
the first query is encoded, after 200 and after 1,000 varied queries, and per-query encoding time (p50/p95 over
queries 201-1,000, once the lazily compiled graphs exist), with no query cache (``encode_query``).

    PYTHONPATH=. nice -n 10 .venv/bin/python benchmarks/encoder_memory.py --checkouts /work/main,. --rounds 2 \
        [--serving BUNDLES_DIR --serving-queries QUERIES.json]

Each checkout runs in a process of its own (``PYTHONPATH`` set to it), the checkouts alternating round by round
so that a shared machine's load weighs on each alike; the encoder cache (``MENDEL_ENCODER_CACHE``) is the same for
all. Queries: the dev questions (retrieval_eval/questions/dev*.jsonl, never the blind or held-out sets), their
first words (3 words up) and pairs of them joined, shuffled with a fixed seed: real lengths, ~10-90 tokens, each
text distinct. With ``--serving``, each round also runs each checkout's own benchmarks/serving_memory.py
``--encoder`` (the API's holder, the bundle and its 200 searches, queries embedded) under ``/usr/bin/time -v``,
whose maximum resident set size is the whole-process figure. Writes benchmarks/results/encoder_memory.json with
the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "encoder_memory.json"
MARKS = (200, 1000)


def status_mb() -> dict[str, float]:
    """VmRSS (resident), RssAnon and RssFile (mapped files) of this process, in MB."""
    wanted = ("VmRSS", "RssAnon", "RssFile", "VmHWM")
    figures = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in wanted:
            figures[key] = round(int(line.split()[1]) / 1024, 1)
    return figures


def varied_queries(count: int, seed: int = 11) -> list[str]:
    questions = []
    for path in sorted((ROOT / "retrieval_eval" / "questions").glob("dev*.jsonl")):
        questions += [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line]
    rng = random.Random(seed)
    texts = list(dict.fromkeys(questions))
    seen = set(texts)
    while len(texts) < count:
        if rng.random() < 0.5:
            words = rng.choice(questions).split()
            text = " ".join(words[: rng.randint(3, max(3, len(words) - 1))])
        else:
            text = f"{rng.choice(questions)} {rng.choice(questions)}"
        if text not in seen:
            seen.add(text)
            texts.append(text)
    rng.shuffle(texts)
    return texts[:count]


def one_process(count: int, static_lengths: tuple[int, ...] | None = None) -> dict:
    """Run in the child: the encoder serving loads, ``count`` queries, the figures as one JSON object."""
    import numpy as np

    from mendel.index.embed import get_embedder

    queries = varied_queries(count)
    started = time.perf_counter()
    encoder = get_embedder()
    if static_lengths is not None:
        encoder.static_query_lengths = static_lengths
    first = encoder.encode_query(queries[0])
    figures: dict = {"first_query_seconds": round(time.perf_counter() - started, 2), "loaded": status_mb()}
    times = []
    for index, query in enumerate(queries[1:], start=2):
        clock = time.perf_counter()
        encoder.encode_query(query)
        times.append(time.perf_counter() - clock)
        if index in MARKS:
            figures[f"after_{index}"] = status_mb()
    timed = np.asarray(times[MARKS[0] :]) * 1000
    figures["encode_ms"] = {
        "p50": round(float(np.percentile(timed, 50)), 2),
        "p95": round(float(np.percentile(timed, 95)), 2),
    }
    figures["tokens"] = {
        "min": min(n for n in encoder.token_counts(queries, "query: ")),
        "max": max(n for n in encoder.token_counts(queries, "query: ")),
    }
    figures["first_vector_head"] = [round(float(x), 6) for x in first[:4]]
    return figures


def serving_run(checkout: str, bundles: Path, queries: Path, encoder: bool) -> dict:
    """One ``/usr/bin/time -v`` run of the checkout's serving_memory.py: its JSON line and the max RSS in kB."""
    command = ["/usr/bin/time", "-v", sys.executable, f"{checkout}/benchmarks/serving_memory.py", str(bundles)]
    command += ["--queries-file", str(queries), *(["--encoder"] if encoder else [])]
    out = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    for line in out.stderr.splitlines():
        if "Maximum resident set size" in line:
            figures["time_v_max_rss_kb"] = int(line.split(":")[-1])
    return figures


def static_against_dynamic(count: int) -> dict:
    """Graph time in one process, query by query in turn (a shared machine's load weighs on both alike): this
    checkout's query graph (one dynamic graph, rows padded to ``QUERY_LENGTHS``) against main's way, a graph
    compiled for each static length, on the same padded rows (same 4-bit weights, one thread)."""
    import numpy as np

    from mendel.encoder.e5 import E5Encoder
    from mendel.encoder.runtime import open_session

    encoder = E5Encoder("openvino")
    options = {"mode": "latency", "threads": 1, "narrow": True, "blob_cache": encoder.graph_path.parent / "compiled"}
    static, times = {}, {"dynamic": [], "static": []}
    for index, query in enumerate(varied_queries(count)):
        (feed,), _ = encoder.query_rows(query)
        length = feed["input_ids"].shape[1]
        if length not in static:
            static[length] = open_session(encoder.graph_path, "openvino", length=length, **options)
        clock = time.perf_counter()
        encoder.session_for("latency").run(feed)
        dynamic = time.perf_counter() - clock
        clock = time.perf_counter()
        static[length].run(feed)
        if index >= MARKS[0] // 2:  # after every length has come once
            times["dynamic"].append(dynamic)
            times["static"].append(time.perf_counter() - clock)
    return {
        name: {q: round(float(np.percentile(np.asarray(v) * 1000, int(q[1:]))), 2) for q in ("p50", "p95")}
        for name, v in times.items()
    } | {"queries": len(times["dynamic"]), "lengths": sorted(static)}


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", default=f"/work/main,{ROOT}", help="comma-separated repository roots")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", type=int, default=MARKS[-1])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serving", type=Path, help="a bundles directory for serving_memory.py side by side")
    parser.add_argument("--serving-queries", type=Path, help="its JSON list of query strings")
    parser.add_argument("--static-lengths", help="with --child: the encoder's static query lengths, e.g. 16,24,32")
    parser.add_argument("--latency-only", action="store_true", help="only static_against_dynamic, printed")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if args.child:
        lengths = None if args.static_lengths is None else tuple(int(n) for n in args.static_lengths.split(",") if n)
        print(json.dumps(one_process(args.queries, lengths)))
        return
    if args.latency_only:
        print(json.dumps({"load_average": load_average(), **static_against_dynamic(args.queries)}))
        return
    checkouts = [str(Path(c).resolve()) for c in args.checkouts.split(",")]
    runs: dict[str, list] = {c: [] for c in checkouts}
    serving: dict[str, list] = {c: [] for c in checkouts}
    loads = [load_average()]
    for round_ in range(args.rounds):
        for checkout in checkouts:
            env = dict(os.environ, PYTHONPATH=checkout)
            command = [sys.executable, str(Path(__file__).resolve()), "--child", "--queries", str(args.queries)]
            out = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True, check=True)
            figures = json.loads(out.stdout.strip().splitlines()[-1])
            figures["load_average"] = load_average()
            runs[checkout].append(figures)
            print(json.dumps({"checkout": checkout, "round": round_, **figures}), flush=True)
            if args.serving:
                served = serving_run(checkout, args.serving, args.serving_queries, encoder=True)
                served["load_average"] = load_average()
                serving[checkout].append(served)
                print(json.dumps({"checkout": checkout, "round": round_, "serving": served}), flush=True)
    loads.append(load_average())
    result = {
        "command": "nice -n 10 .venv/bin/python benchmarks/encoder_memory.py " + " ".join(sys.argv[1:]),
        "encoder_cache": os.environ.get("MENDEL_ENCODER_CACHE", "(default)"),
        "load_average_before_after": loads,
        "runs": runs,
    }
    if args.serving:
        result["serving"] = {"bundles": str(args.serving), "queries_file": str(args.serving_queries), "runs": serving}
    if not args.no_write:
        RESULTS.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
