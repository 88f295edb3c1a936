"""The PostgreSQL serving backend against the bundle backend: search latency over the same SYNTHETIC scale passages,
the two backends alternating query by query.

    nice -n 5 .venv/bin/python benchmarks/bench_pg_backend.py --sizes 10000,100000
    nice -n 5 .venv/bin/python benchmarks/bench_pg_backend.py --sizes 10000 --repeat 1 --work /tmp/pgbench

Each size is a scale bundle (benchmarks/scale_corpus.py, random vectors) loaded whole into a fresh embedded
PostgreSQL (:func:`load_bundle`). Writes benchmarks/results/pg_backend.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.pg_bundle import _scan, load_bundle  # noqa: E402,F401  (load_bundle: what tests import from here)
from mendel.index import bundle  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "pg_backend.json"
DEV_QUESTIONS = ROOT / "retrieval_eval" / "questions" / "dev.jsonl"


# --- the benchmark ---------------------------------------------------------------------------------------------


def queries_for(bundle_path: Path, n_windows: int = 40, seed: int = 7) -> list[str]:
    """The dev questions and word windows (4-8 words) of the bundle's own passages."""
    questions = [
        json.loads(line)["question"] for line in DEV_QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    rng = np.random.default_rng(seed)
    rows = [c["text"] for _, _, c in _scan(bundle_path / bundle.CHUNKS)]
    windows = []
    for i in rng.choice(len(rows), size=min(n_windows, len(rows)), replace=False).tolist():
        words = rows[i].split()
        if len(words) >= 8:
            start = int(rng.integers(0, len(words) - 8 + 1))
            windows.append(" ".join(words[start : start + int(rng.integers(4, 9))]))
    return questions + windows


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))], 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
        "queries": len(ordered),
    }


def bench_size(n: int, work: Path, server_url: str, repeat: int, log, before: Path | None = None) -> dict:
    """One size timed: the bundle backend, this checkout's postgres backend and, with ``before`` (another checkout,
    say main's), that checkout's postgres backend over the same database (``benchmarks.checkout_searcher``), in
    turns query by query."""
    from benchmarks.checkout_searcher import CheckoutSearcher
    from benchmarks.scale_corpus import RandomQueryEmbedder, write_scale_bundle
    from mendel.core import db
    from serving.ranking.pg_search import PostgresSearcher
    from serving.ranking.search import Searcher

    result: dict = {"passages": n, "load_avg_1m": round(os.getloadavg()[0], 2)}
    bundles_dir = work / f"bundles-{n}"
    clock = time.perf_counter()
    if bundle.current_version(bundles_dir) is None:
        write_scale_bundle(bundles_dir, n)
        result["bundle_build_seconds"] = round(time.perf_counter() - clock, 1)
    path = bundle.current_bundle(bundles_dir)
    dbname = f"pgbench_{n}_{path.name.replace('-', '').replace('.', '')[-12:]}".lower()
    url = db.with_database(server_url, dbname)
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone()
    if not exists:
        db.create_database(server_url, dbname)
        db.migrate(url)
        timings: dict = {}
        clock = time.perf_counter()
        with psycopg.connect(url) as conn:
            result["loaded"] = load_bundle(conn, path, timings)
        result["load_seconds"] = {**timings, "total": round(time.perf_counter() - clock, 1)}
        log(f"  {n}: loaded into {dbname} in {result['load_seconds']}")
    embedder = RandomQueryEmbedder()
    clock = time.perf_counter()
    searchers = {"bundle": Searcher(path, embedder=embedder)}
    result["bundle_open_seconds"] = round(time.perf_counter() - clock, 2)
    clock = time.perf_counter()
    searchers["postgres"] = PostgresSearcher(path, embedder=embedder, database_url=url)
    result["postgres_open_seconds"] = round(time.perf_counter() - clock, 2)
    if before is not None:
        searchers["postgres_before"] = CheckoutSearcher(before, path, url)
        result["postgres_before_open_seconds"] = searchers["postgres_before"].open_seconds

    def timed(name: str, query: str, k: int = 10) -> tuple[list[str], float]:
        if isinstance(searchers[name], CheckoutSearcher):
            return searchers[name].search(query, k)
        clock = time.perf_counter()
        hits = searchers[name].search(query, k=k)
        return [h.chunk_id for h in hits], (time.perf_counter() - clock) * 1000

    queries = queries_for(path)
    for query in queries[:10]:  # warm-up: caches, the query analyser, connections
        for name in searchers:
            timed(name, query + " zákon")
    passes: dict[str, list[list[float]]] = {name: [[] for _ in queries] for name in searchers}
    overlaps: dict[str, list[float]] = {name: [] for name in searchers if name != "bundle"}
    for number in range(repeat):
        for i, query in enumerate(queries):
            turn = (i + number) % len(searchers)  # each backend first as often as the others
            order = list(searchers)[turn:] + list(searchers)[:turn]
            found = {}
            for name in order:
                found[name], elapsed = timed(name, query)
                passes[name][i].append(elapsed)
            if number == 0:
                for name in overlaps:
                    a, b = set(found["bundle"]), set(found[name])
                    overlaps[name].append(len(a & b) / max(len(a | b), 1))
    for name in searchers:
        result[name] = summary([statistics.median(times) for times in passes[name]])
    for name, found in overlaps.items():
        result["top10_jaccard_mean" + name.removeprefix("postgres")] = round(statistics.fmean(found), 3)
    result["queries"] = len(queries)
    result["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
    for searcher in searchers.values():
        searcher.close()
    return result


def compare_dev(bundles_dir: Path, database_url: str, questions_path: Path = DEV_QUESTIONS, embedder=None) -> dict:
    """R@1/R@10/MRR of both backends' default search on the questions grounded in the live bundle, over the bundle
    and the database it was built from (``retrieval_eval.retrieval.judge``); also each backend's lexical list alone
    (BM25 against IDF-weighted ``ts_rank_cd``) and the top-10 overlap of the two default searches."""
    from mendel.index.embed import HashedBowEmbedder, get_embedder
    from retrieval_eval.retrieval import answerable, judge, load_questions, score_ranking, split_grounded
    from serving.ranking.pg_search import PostgresSearcher
    from serving.ranking.search import CANDIDATES, Searcher

    path = bundle.current_bundle(bundles_dir)
    if embedder is None:  # the bundle's model (a test home's hashed bag of words, or the configured one)
        hashed = bundle.read_manifest(path).get("model") == HashedBowEmbedder.name
        embedder = HashedBowEmbedder() if hashed else get_embedder()
    searchers = {
        "bundle": Searcher(path, embedder=embedder),
        "postgres": PostgresSearcher(path, embedder=embedder, database_url=database_url),
    }
    questions, problems = split_grounded(
        [q for q in load_questions(questions_path) if answerable(q)],
        searchers["bundle"].chunks,
        searchers["bundle"].documents,
    )
    rows: dict[str, list[dict]] = {}
    overlaps, latency = [], {name: [] for name in searchers}
    # both backends run the same stages (serving.ranking.answer); "bundle:rrf" is the bundle's search without the
    # lay-to-legal bridge and the learned second stage, to show what those two add
    plain = {"bridge": False, "learned": False}
    for q in questions:
        tops = {}
        for name, searcher in searchers.items():
            clock = time.perf_counter()
            hits = searcher.search(q["question"], k=CANDIDATES)
            latency[name].append((time.perf_counter() - clock) * 1000)
            rows.setdefault(name, []).append(score_ranking(judge(hits, q["gold"]), len(q["gold"]), (1, 10)))
            tops[name] = {h.chunk_id for h in hits[:10]}
        hits = searchers["bundle"].search(q["question"], k=CANDIDATES, **plain)
        rows.setdefault("bundle:rrf", []).append(score_ranking(judge(hits, q["gold"]), len(q["gold"]), (1, 10)))
        overlaps.append(len(tops["bundle"] & tops["postgres"]) / max(len(tops["bundle"] | tops["postgres"]), 1))
        bundle_lexical = [
            searchers["bundle"].chunks[i] for i in searchers["bundle"].bm25_ranking(q["question"], n=CANDIDATES)
        ]
        with searchers["postgres"].connection() as conn:
            ids = searchers["postgres"].lexical_ranking(
                conn, q["question"], CANDIDATES, searchers["postgres"].allowed_documents(None)
            )
            by_id = searchers["postgres"]._chunk_rows(conn, ids)
        for name, hits in (("bundle:bm25", bundle_lexical), ("postgres:fulltext", [by_id[i] for i in ids])):
            rows.setdefault(name, []).append(score_ranking(judge(hits, q["gold"]), len(q["gold"]), (1, 10)))
    means = {
        name: {key: round(statistics.fmean(r[key] for r in found), 4) for key in ("recall@1", "recall@10", "mrr")}
        for name, found in rows.items()
    }
    return {
        "bundle": path.name,
        "model": getattr(embedder, "name", None),
        "questions": len(questions),
        "not_grounded": len(problems),
        "metrics": means,
        "top10_jaccard_mean": round(statistics.fmean(overlaps), 3) if overlaps else None,
        "latency_p50_ms": {name: round(statistics.median(v), 1) for name, v in latency.items() if v},
    }


def server_setting(url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT current_setting(%s)", (name,)).fetchone()[0]


def set_shared_buffers(pgdata: Path, url: str, size: str) -> str:
    """The embedded server's shared_buffers set to ``size`` (ALTER SYSTEM: kept in its pgdata) and the server
    restarted for it to apply; its URL."""
    import psycopg
    from psycopg import sql

    from mendel.core import db

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(sql.Literal(size)))
    db.stop_embedded(pgdata)
    return db.embedded_url(pgdata)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/mendel-bench-pg"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--dev-home",
        type=Path,
        default=None,
        help="compare both backends on the dev questions over this MENDEL_HOME's live bundle and "
        "its database (--database-url, or the home's embedded pgdata) instead of timing",
    )
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--shared-buffers",
        default=None,
        help="set the embedded server's shared_buffers (e.g. 1GB: the 100,000-passage database fits) and restart "
        "it first; kept in its pgdata for later runs. Default: leave the server's own (PostgreSQL's 128MB)",
    )
    parser.add_argument("--dbname", default=None, help="the database on the home's embedded server (default: its own)")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="another checkout of the project (say main's, exported with git archive): its postgres backend is timed "
        "too, in a child process over the same database, in turns with this checkout's (postgres_before)",
    )
    args = parser.parse_args(argv)
    from benchmarks.checkout_searcher import checkout_commit
    from mendel.core import db

    if args.dev_home is not None:
        import psycopg

        from mendel.index.fulltext import fill_lexemes

        url = args.database_url or db.embedded_url(args.dev_home / "pgdata")
        url = db.with_database(url, args.dbname) if args.dbname else url
        db.migrate(url)
        with psycopg.connect(url) as conn:  # a database indexed before migration 0016 has no lexemes yet
            print("lexemes:", fill_lexemes(conn), flush=True)
        print(json.dumps(compare_dev(args.dev_home / "bundles", url), indent=2))
        return 0

    args.work.mkdir(parents=True, exist_ok=True)
    args.work.chmod(0o755)  # as root, pgserver's own user must enter it
    server_url = db.embedded_url(args.work / "pgdata")
    if args.shared_buffers:
        server_url = set_shared_buffers(args.work / "pgdata", server_url, args.shared_buffers)

    def log(message: str) -> None:
        print(message, flush=True)

    results = {
        "commit": checkout_commit(ROOT),
        "before": {"checkout": str(args.before), "commit": checkout_commit(args.before)} if args.before else None,
        "machine": {
            "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "shared_buffers": server_setting(server_url, "shared_buffers"),
        },
        "repeat": args.repeat,
        "sizes": {},
    }
    for n in (int(s) for s in args.sizes.split(",") if s.strip()):
        log(f"size {n}")
        results["sizes"][str(n)] = bench_size(n, args.work, server_url, args.repeat, log, args.before)
        log(json.dumps(results["sizes"][str(n)]))
    results["machine"]["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(f"\n{'passages':>9} {'backend':>16} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'top-10 Jaccard':>15}")
    for n, found in results["sizes"].items():
        for name in ("bundle", "postgres", "postgres_before"):
            if name in found:
                s = found[name]
                overlap = (
                    found.get("top10_jaccard_mean" + name.removeprefix("postgres"), "") if name != "bundle" else ""
                )
                print(f"{n:>9} {name:>16} {s['p50_ms']:>8} {s['p95_ms']:>8} {s['mean_ms']:>8} {overlap:>15}")
    db.stop_embedded(args.work / "pgdata")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
