"""Peak memory of a serving process holding one bundle: the API's own holder (``serving.web.holder``: the bundle
verified, loaded and warmed as the API loads it), then ``--queries`` searches, then this process's peak RSS.

    /usr/bin/time -v .venv/bin/python benchmarks/serving_memory.py BUNDLES_DIR --queries-file Q.json [--encoder]

Without ``--encoder`` each query's vector is at hand (random, as a scale bundle's passages are: no encoder is loaded,
the bundle's own memory alone); with it the default query encoder embeds each query as the API does. The queries
file is a JSON list of strings (``bench_segments.py`` writes one beside each size's bundles). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def status_mb(field: str) -> float:
    """A /proc/self/status figure in MB (VmHWM: the peak resident set; VmRSS: the present one)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no {field} in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundles_dir", type=Path)
    parser.add_argument("--queries-file", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--encoder", action="store_true", help="embed the queries with the default encoder")
    args = parser.parse_args()

    from serving.web.holder import SearcherHolder

    embedder = None
    if not args.encoder:
        from benchmarks.segments_search import vectors_at_hand

        embedder = vectors_at_hand()
    queries = json.loads(args.queries_file.read_text(encoding="utf-8"))[: args.queries]
    clock = time.perf_counter()
    holder = SearcherHolder(args.bundles_dir, embedder=embedder)
    searcher = holder.current()
    if searcher is None:
        raise SystemExit(f"no bundle loaded from {args.bundles_dir}: {holder.last_error}")
    load_s = time.perf_counter() - clock
    after_load = {"rss_mb": status_mb("VmRSS"), "peak_rss_mb": status_mb("VmHWM")}
    clock = time.perf_counter()
    answered = sum(1 for query in queries if searcher.search_with_coverage(query, k=10) is not None)
    print(
        json.dumps(
            {
                "bundle": searcher.path.name,
                "passages": len(searcher.chunks),
                "encoder": args.encoder,
                "load_seconds": round(load_s, 1),
                "after_load": after_load,
                "queries": answered,
                "query_seconds": round(time.perf_counter() - clock, 1),
                "rss_mb": status_mb("VmRSS"),
                "peak_rss_mb": status_mb("VmHWM"),
                "ru_maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
