"""The HNSW graph's build breadth (efConstruction) over a bundle's real passage vectors: build time, and how far the
graph's top 10 / 50 agree with an exact search of the dev questions at the search breadth the serving uses (all dev
questions, and the code sets' alone). The bundle's own graph is measured first.

    .venv/bin/python benchmarks/hnsw_build_breadth.py --bundles .mendel/bundles 40 80 160 200
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import faiss
import numpy as np

from mendel.index.dense import HNSW_EF_SEARCH, HNSW_M
from retrieval_eval.release import SETS
from retrieval_eval.retrieval import load_questions
from serving.ranking.search import Searcher


def agreement(found: np.ndarray, truth: np.ndarray, depth: int) -> np.ndarray:
    """Per query, the share of the exact search's first ``depth`` that the graph's first ``depth`` hold."""
    return np.array([len(set(f[:depth]) & set(t[:depth])) / depth for f, t in zip(found, truth)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundles", type=Path, default=Path(".mendel/bundles"))
    parser.add_argument("breadths", type=int, nargs="*", default=[40, 200])
    args = parser.parse_args()
    searcher = Searcher.latest(args.bundles)
    segment = sorted((searcher.path / "dense" / "segments").glob("L3-*"))[0]
    own = faiss.read_index(str(segment / "dense.faiss"))
    vectors = own.reconstruct_n(0, own.ntotal).astype(np.float32)
    questions, of_codes = [], []
    for question_set in SETS:
        if question_set.role != "dev":
            continue
        for question in load_questions(question_set.path):
            questions.append(question["question"])
            of_codes.append("codes" in question_set.file)
    queries = np.vstack([searcher._dense.encoded(q) for q in questions]).astype(np.float32)
    codes = np.array(of_codes)
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(vectors)
    _, truth = exact.search(queries, 50)
    print(f"{len(vectors):,} passage vectors, {len(questions)} dev questions ({codes.sum()} of the codes)")

    def measure(index, name: str, build_s: float) -> None:
        faiss.omp_set_num_threads(1)
        index.hnsw.efSearch = HNSW_EF_SEARCH
        started = time.perf_counter()
        _, found = index.search(queries, 50)
        ms = (time.perf_counter() - started) / len(queries) * 1000
        top10, top50 = agreement(found, truth, 10), agreement(found, truth, 50)
        print(
            f"{name:16s} build {build_s:6.1f} s  search {ms:.2f} ms a query  top 10 {top10.mean():.4f} "
            f"(codes {top10[codes].mean():.4f})  top 50 {top50.mean():.4f} (codes {top50[codes].mean():.4f})"
        )

    measure(own, f"bundle's ({own.hnsw.efConstruction})", 0.0)
    for breadth in args.breadths:
        faiss.omp_set_num_threads(2)
        index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = breadth
        started = time.perf_counter()
        index.add(vectors)
        measure(index, f"efConstruction {breadth}", time.perf_counter() - started)


if __name__ == "__main__":
    main()
