"""Search over the bundles of ``bench_segments.py``: each bundle in a process of its own (latency and that process's
peak RSS), then every bundle in one process, searched query by query in turn (``side_by_side``, the figures to
compare them by on a shared machine), and hit-by-hit agreement. Query vectors are random (the scale corpus's are)
and at hand: no encoding is timed. Run by ``bench_segments.py``; ``--worker`` and ``--side-by-side`` are its
children's entry points.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scale_corpus import ScaleCorpus  # noqa: E402


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def make_queries(corpus: ScaleCorpus, count: int, seed: int = 7) -> list[str]:
    from retrieval_eval import DEV_QUESTIONS

    rng = random.Random(seed)
    dev = [json.loads(line)["question"] for line in DEV_QUESTIONS.open(encoding="utf-8")]
    sentences = []
    while len(sentences) < count:
        words = corpus.chunk_text(rng.randrange(corpus.n)).split()
        size = rng.randint(4, min(9, len(words)))
        start = rng.randint(0, len(words) - size)
        sentences.append(" ".join(words[start : start + size]).strip(" ,;:()"))
    return dev + sentences


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: ru_maxrss would carry the parent's peak over the exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmHWM in /proc/self/status")


def vectors_at_hand():
    """Random query vectors (the corpus's are random too), at hand as a cached query's are: no encoding is timed."""
    from benchmarks.scale_corpus import RandomQueryEmbedder

    class VectorsAtHand(RandomQueryEmbedder):
        def query_at_hand(self, text: str) -> np.ndarray:
            return self.query(text)

    return VectorsAtHand()


def search_worker(bundle_path: str, queries_file: str, passes: int) -> dict:
    from serving.ranking.search import Searcher

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    clock = time.perf_counter()
    searcher = Searcher(Path(bundle_path), embedder=vectors_at_hand())
    searcher.warm()
    load_s = time.perf_counter() - clock
    hits, runs, cpu = [], [[] for _ in queries], [[] for _ in queries]
    for repeat in range(passes):
        for i, query in enumerate(queries):
            start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
            found = searcher.search(query, k=10)
            runs[i].append((time.perf_counter_ns() - start) / 1e6)
            cpu[i].append((time.process_time_ns() - cpu_start) / 1e6)
            if repeat == 0:
                hits.append([[h.chunk_id, round(float(h.score), 9)] for h in found])
    latencies = sorted(statistics.median(r) for r in runs)
    cpu_ms = sorted(statistics.median(r) for r in cpu)

    def at(values: list[float], share: float) -> float:
        return round(values[min(len(values) - 1, int(share * len(values)))], 2)

    return {
        "load_s": round(load_s, 2),
        "p50_ms": at(latencies, 0.5),
        "p95_ms": at(latencies, 0.95),
        "cpu_p50_ms": at(cpu_ms, 0.5),
        "cpu_p95_ms": at(cpu_ms, 0.95),
        "peak_rss_mb": peak_rss_mb(),
        "hits": hits,
    }


def side_by_side_worker(bundle_paths: list[str], queries_file: str, passes: int) -> dict:
    """Every bundle searched in this one process, query by query in turn (the order turning each query), so that
    each sees the same moments of a shared machine: p50/p95 of the median pass a query, wall and CPU."""
    from serving.ranking.search import Searcher

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    searchers = [Searcher(Path(path), embedder=vectors_at_hand()) for path in bundle_paths]
    for searcher in searchers:
        searcher.warm()
        for query in queries[:20]:
            searcher.search(query, k=10)
    runs = [[[] for _ in queries] for _ in searchers]
    cpu = [[[] for _ in queries] for _ in searchers]
    for _ in range(passes):
        for i, query in enumerate(queries):
            for turn in range(len(searchers)):
                b = (i + turn) % len(searchers)
                start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
                searchers[b].search(query, k=10)
                runs[b][i].append((time.perf_counter_ns() - start) / 1e6)
                cpu[b][i].append((time.process_time_ns() - cpu_start) / 1e6)

    def at(values: list[float], share: float) -> float:
        return round(values[min(len(values) - 1, int(share * len(values)))], 2)

    out = {}
    for path, wall_runs, cpu_runs in zip(bundle_paths, runs, cpu):
        wall = sorted(statistics.median(r) for r in wall_runs)
        cpu_ms = sorted(statistics.median(r) for r in cpu_runs)
        out[path] = {
            "p50_ms": at(wall, 0.5),
            "p95_ms": at(wall, 0.95),
            "cpu_p50_ms": at(cpu_ms, 0.5),
            "cpu_p95_ms": at(cpu_ms, 0.95),
        }
    return out


def run_search(bundle_path: Path, queries_file: Path, passes: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            str(bundle_path),
            "--queries-file",
            str(queries_file),
            "--passes",
            str(passes),
        ],
        capture_output=True,
        text=True,
        timeout=7200,
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout)


def agreement(a: list, b: list) -> dict:
    same = sum(x == y for x, y in zip(a, b))
    same_ids = sum([h[0] for h in x] == [h[0] for h in y] for x, y in zip(a, b))
    overlap = [len({h[0] for h in x} & {h[0] for h in y}) / max(1, len(x)) for x, y in zip(a, b) if x or y]
    return {
        "queries": len(a),
        "identical_hits_and_scores": same,
        "identical_hit_lists": same_ids,
        "top10_overlap_mean": round(float(np.mean(overlap)), 4) if overlap else 1.0,
    }


def search_rounds(n: int, work: Path, passes: int, whole: Path | None = None) -> dict:
    """Search over the bundles of size ``n`` in ``work`` (the grown one; the rebuilt one and its copy in the format
    before segments when they are there), each in a process of its own, twice in turn. ``whole``: the bundle to
    search as the whole one when none was rebuilt (the first night's: one segment a part, built whole)."""
    from mendel.index import bundle

    found = {
        "before_segments": work / f"unsegmented-{n}",
        "whole": work / f"whole-{n}" / "bundles",
        "segmented": work / f"home-{n}" / "bundles",
    }
    bundles = [(name, bundle.current_bundle(path)) for name, path in found.items() if path.exists()]
    if whole is not None and "whole" not in dict(bundles):
        bundles.insert(-1, ("whole", Path(whole)))
    rebuilt = {"whole", "segmented"} <= {name for name, _ in bundles}
    rounds = []
    for name, path in bundles * (2 if rebuilt else 1):
        log(f"{n:,} passages: search over the {name} bundle")
        rounds.append((name, run_search(path, work / f"queries-{n}.json", passes)))
    log(f"{n:,} passages: search over {', '.join(name for name, _ in bundles)} side by side, query by query")
    out = subprocess.run(
        [sys.executable, __file__, "--side-by-side", *[str(path) for _, path in bundles]]
        + ["--queries-file", str(work / f"queries-{n}.json"), "--passes", str(passes)],
        capture_output=True,
        text=True,
        timeout=7200,
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    side_by_side = json.loads(out.stdout)
    result: dict = {
        "load_avg_search": load_average(),
        "side_by_side": {name: side_by_side[str(path)] for name, path in bundles},
    }
    for name, _ in bundles:
        mine = [r for k, r in rounds if k == name]
        result[f"search_{name}"] = {
            key: [r[key] for r in mine] for key in ("p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms", "load_s")
        }
        result[f"search_{name}"]["peak_rss_mb"] = max(r["peak_rss_mb"] for r in mine)
    hits = {name: r["hits"] for name, r in rounds}
    if rebuilt:
        result["agreement"] = agreement(hits["whole"], hits["segmented"])
    if rebuilt and "before_segments" in hits:
        result["agreement_with_before_segments"] = agreement(hits["before_segments"], hits["whole"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", default=None, help="search this bundle alone")
    parser.add_argument("--side-by-side", nargs="+", default=None, help="search these bundles in turn")
    parser.add_argument("--queries-file", required=True)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(search_worker(args.worker, args.queries_file, args.passes)))
    elif args.side_by_side:
        print(json.dumps(side_by_side_worker(args.side_by_side, args.queries_file, args.passes)))
    else:
        parser.error("--worker or --side-by-side")


if __name__ == "__main__":
    main()
