"""How much of the exact top 10 pgvector's HNSW index returns at each ``hnsw.ef_search``, on a real home's passages.

    MENDEL_HOME=/path/to/home .venv/bin/python benchmarks/pg_hnsw_recall.py --ef 40,100,200,400,800

The passages (layer 3, with a vector) are read once; each question's vector is searched exactly in numpy and
through the database's HNSW index (``serving.ranking.pg_sql.NEAREST``, the statement the PostgreSQL backend runs)
at each breadth. Questions: the dev sets (never a blind or held-out set). Prints recall@10 and latency per breadth
and writes benchmarks/results/pg_hnsw_recall.json.
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

from mendel.core.db import connect, ready_url  # noqa: E402
from mendel.index.dense import parse_vector  # noqa: E402
from mendel.index.embed import get_embedder  # noqa: E402
from mendel.index.pgvector import vector_literal  # noqa: E402
from retrieval_eval import QUESTIONS_DIR  # noqa: E402
from serving.ranking.pg_sql import NEAREST, SESSION_SEARCH  # noqa: E402

DEV_SETS = ("dev.jsonl", "dev_codes.jsonl", "dev_codes2.jsonl")
K = 10


def dev_questions() -> list[str]:
    texts = []
    for name in DEV_SETS:
        for line in (QUESTIONS_DIR / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["question"])
    return texts


def passages(conn) -> tuple[list[str], np.ndarray]:
    rows = conn.execute(
        "SELECT chunk_id, embedding::text FROM chunks WHERE embedding IS NOT NULL AND layer = 3 ORDER BY chunk_id"
    ).fetchall()
    return [row[0] for row in rows], np.stack([parse_vector(row[1]) for row in rows]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ef", default="40,100,200,400,800")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "pg_hnsw_recall.json")
    args = parser.parse_args()
    breadths = [int(value) for value in args.ef.split(",")]
    embedder = get_embedder()
    questions = dev_questions()
    vectors = np.stack([embedder.query(text) for text in questions]).astype(np.float32)
    url = ready_url()
    with connect(url) as conn:
        ids, matrix = passages(conn)
        exact = [{ids[i] for i in np.argsort(-(matrix @ vector))[:K]} for vector in vectors]
        results = {}
        for ef in breadths:
            found, times = [], []
            for vector, truth in zip(vectors, exact, strict=True):
                started = time.perf_counter()
                with conn.transaction():
                    conn.execute(
                        SESSION_SEARCH.replace("false", "true"), (str(ef), "strict_order")
                    )  # as the searcher sets it
                    rows = conn.execute(NEAREST, {"q": vector_literal(vector), "k": K, "docs": None})
                    got = {row[0] for row in rows.fetchall()}
                times.append((time.perf_counter() - started) * 1000)
                found.append(len(got & truth) / K)
            results[ef] = {
                "recall@10": round(statistics.fmean(found), 4),
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(float(np.percentile(times, 95)), 2),
            }
            print(
                f"ef_search {ef:4d}: recall@10 {results[ef]['recall@10']:.3f}, "
                f"p50 {results[ef]['p50_ms']:.1f} ms, p95 {results[ef]['p95_ms']:.1f} ms"
            )
    report = {
        "home": os.environ.get("MENDEL_HOME"),
        "passages": len(ids),
        "questions": len(questions),
        "question_sets": list(DEV_SETS),
        "load_average": os.getloadavg()[0],
        "by_ef_search": results,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
