"""The default search's latency on the published bundle of ``$MENDEL_HOME`` (``make run``: the whole sample corpus
or its nightly part), over the dev questions, the way a first query meets it: the default query encoder in the loop
with its cache bypassed (``--vectors-at-hand``: every vector encoded beforehand, the ranking alone).

    .venv/bin/python benchmarks/bench_bundle_latency.py [--passes 3] [--out benchmarks/results/bundle_latency.json]

The lone query's encoder threads (``mendel.encoder.e5.SOLO_QUERY_THREADS``) are compared in one process, query by
query in turn, so the machine's drift falls on both alike; a query's figure is its median pass. Settings that
outlast a call (BLAS threads) need a process each: run the script once per setting. Results in docs/benchmarks.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # FAISS's threads must not spin on a shared machine

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_serving import UncachedEncoder, forget_routes, percentile  # noqa: E402
from retrieval_eval import QUESTIONS_DIR  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
# the dev sets of the acts and the codes: every kind of question the search page gets, lay questions the most
DEV_SETS = (
    "dev",
    "dev_codes",
    "dev_codes2",
    "dev_codes3",
    "dev_codes4",
    "dev_codes5",
    "dev_codes_keywords",
)


def questions() -> list[str]:
    from retrieval_eval.retrieval import load_questions

    return [q["question"] for name in DEV_SETS for q in load_questions(QUESTIONS_DIR / f"{name}.jsonl")]


def measure(passes: int, vectors_at_hand: bool) -> dict:
    from mendel.core.config import Settings
    from mendel.index.embed import get_embedder
    from serving.ranking.search import Searcher

    texts = questions()
    encoder = get_embedder() if vectors_at_hand else UncachedEncoder()
    searcher = Searcher.latest(Settings().home / "bundles", embedder=encoder)
    searcher.warm()
    e5 = getattr(encoder, "inner", encoder)
    solo = getattr(e5, "solo_query_threads", None)
    settings = {"one thread a query": None} | ({f"a lone query on {solo} threads": solo} if solo else {})

    def search(text: str, threads: int | None) -> None:
        if solo:
            e5.solo_query_threads = threads
        if not vectors_at_hand:
            searcher._dense._vectors.clear()  # the search's own kept vectors: every text encoded anew
        searcher.search(text, k=10, details={})

    for text in texts:  # vectors at hand encoded here; every graph compiled, every lazy part loaded
        for threads in settings.values():
            search(text, threads)
    wall = {name: {text: [] for text in texts} for name in settings}
    cpu = {name: [] for name in settings}
    names = list(settings)
    for _ in range(passes):
        forget_routes()  # a pass must not find the previous pass's routes cached
        for i, text in enumerate(texts):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                cpu_start, start = time.process_time_ns(), time.perf_counter_ns()
                search(text, settings[name])
                wall[name][text].append((time.perf_counter_ns() - start) / 1e6)
                cpu[name].append((time.process_time_ns() - cpu_start) / 1e6)
    if solo:
        e5.solo_query_threads = solo
    from threadpoolctl import threadpool_info

    result = {
        "bundle": str(searcher.path),
        "passages": len(searcher.passages.chunks),
        "questions": len(texts),
        "passes": passes,
        "encoder": "vectors at hand (ranking alone)" if vectors_at_hand else "in the loop, its cache bypassed",
        "blas_threads": sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}),
        "settings": {},
    }
    for name in settings:
        medians = [statistics.median(v) for v in wall[name].values()]
        result["settings"][name] = {
            "p50_ms": round(percentile(medians, 50), 2),
            "p95_ms": round(percentile(medians, 95), 2),
            "mean_ms": round(statistics.fmean(medians), 2),
            "cpu_mean_ms": round(statistics.fmean(cpu[name]), 2),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--vectors-at-hand", action="store_true", help="time the ranking alone")
    parser.add_argument("--out", type=Path, default=RESULTS / "bundle_latency.json")
    args = parser.parse_args()
    result = measure(args.passes, args.vectors_at_hand)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, figures in result["settings"].items():
        print(
            f"{name}: p50 {figures['p50_ms']:.2f} ms, p95 {figures['p95_ms']:.2f} ms, "
            f"CPU {figures['cpu_mean_ms']:.2f} ms a search ({result['questions']} questions x {result['passes']})"
        )
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
