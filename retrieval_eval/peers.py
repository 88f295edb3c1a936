"""Peer retrievers side by side with Mendel's own (rank-bm25, FAISS, Haystack, tantivy, LanceDB), on the same bundle's
passages, questions and relevance judging as :mod:`retrieval_eval.retrieval`.

Latency is the ranking call alone: query vectors are computed once per question beforehand. tantivy and LanceDB come
with the optional extra ``peers`` and are listed under ``skipped`` without it. Passage vectors are cached on disk
(:class:`EmbeddingCache`), so only the first run pays for the embedder.

    python -m retrieval_eval.peers [--bundles DIR] [--questions FILE ...] [--out benchmarks/results/retrieval_peers.json]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from retrieval_eval import DEV_QUESTIONS, HELDOUT_QUESTIONS
from retrieval_eval.retrieval import DEFAULT_KS, NDCG_K, QUESTION_TYPES, _mean, judge, load_questions, score_ranking

log = logging.getLogger("retrieval_eval.peers")

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS_DIR / "retrieval_peers.json"
DEFAULT_CACHE_DIR = RESULTS_DIR / "cache"
CACHE_FILE = "embeddings.sqlite"
DEPTH = 50  # as deep as evaluate() ranks (serving.ranking.search.CANDIDATES)
PLAIN_TOKEN_RE = re.compile(r"\w+", re.UNICODE)

SYSTEMS = (
    "rank-bm25 (plain tokens)",
    "rank-bm25 (Czech analyser)",
    "faiss-flat (raw chunks)",
    "haystack bm25",
    "haystack embedding",
    "tantivy bm25 (default tokenizer)",
    "tantivy bm25 (Czech analyser)",
    "lancedb dense",
    "lancedb fts (Czech analyser)",
    "lancedb hybrid",
    "mendel bm25",
    "mendel dense",
    "mendel default",
)
# systems whose engine comes with the optional extra ``peers``: system name prefix -> importable module
EXTRA_ENGINES = {"tantivy": "tantivy", "lancedb": "lancedb"}
RAW_VECTOR_SYSTEMS = frozenset({"faiss-flat (raw chunks)", "haystack embedding"})
TANTIVY_TOKENS = "mendel_tokens"  # tantivy tokenizer name for text already split by our analyser


# --- passage vectors, cached on disk ----------------------------------------------------------------------


class EmbeddingCache:
    """Passage vectors by (model name, sha256 of the text) in one SQLite file; every batch commits, so an
    interrupted run keeps what it paid for."""

    def __init__(self, directory: Path | None = None):
        directory = Path(directory or os.environ.get("MENDEL_EVAL_CACHE") or DEFAULT_CACHE_DIR)
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self._conn = sqlite3.connect(self.path, timeout=120)
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL,"
            " dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash))"
        )
        self._conn.commit()

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def lookup(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = sorted(set(hashes))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            # the hashes travel as one JSON parameter, so the statement text never depends on the data
            rows = self._conn.execute(
                "SELECT hash, vector FROM vectors WHERE model = ? AND hash IN (SELECT value FROM json_each(?))",
                [model, json.dumps(part)],
            ).fetchall()
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

    def vectors(
        self, embedder, texts: Sequence[str], batch_size: int = 16, progress: Callable[[int, int], None] | None = None
    ) -> tuple[np.ndarray, int]:
        """Vectors of ``texts`` (row i for text i), embedding only what the cache lacks; returns (matrix, how
        many were newly embedded)."""
        hashes = [self.key(t) for t in texts]
        cached = self.lookup(embedder.name, hashes)
        missing = list({h: t for h, t in zip(hashes, texts) if h not in cached}.items())
        started = time.monotonic()
        for start in range(0, len(missing), batch_size):
            batch = missing[start : start + batch_size]
            matrix = np.asarray(embedder.passages([t for _, t in batch]), dtype=np.float32)
            self._conn.executemany(
                "INSERT OR IGNORE INTO vectors (model, hash, dim, vector) VALUES (?, ?, ?, ?)",
                [(embedder.name, h, matrix.shape[1], v.tobytes()) for (h, _), v in zip(batch, matrix)],
            )
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
    from mendel.core.config import get_settings

    return get_settings().bundles_dir


def read_chunks(bundle_path: Path) -> list[dict]:
    from mendel.index import bundle

    return list(bundle.layer_rows(Path(bundle_path), 3))


def as_hit(chunk: dict) -> dict:
    return {
        "doc_id": chunk["doc_id"],
        "page": chunk["page_start"],
        "page_end": chunk["page_end"],
        "text": chunk["text"],
    }


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


def haystack_systems(
    chunks: Sequence[dict], vectors: np.ndarray | None, queries: QueryVectors | None, depth: int = DEPTH
) -> dict[str, Callable[[str], list[int]]]:
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
        vector_store.write_documents(
            [Document(id=str(i), content=c["text"], embedding=unit[i].tolist()) for i, c in enumerate(chunks)]
        )
        dense = InMemoryEmbeddingRetriever(document_store=vector_store, top_k=depth)

        def dense_ranking(query: str) -> list[int]:
            vector = normalized(queries.query(query).reshape(1, -1))[0]
            return [int(d.id) for d in dense.run(query_embedding=vector.tolist())["documents"]]

        out["haystack embedding"] = dense_ranking
    return out


def bundle_vectors(bundle_path: Path) -> np.ndarray:
    """The bundle's own L3 passage vectors (row i = chunk i), read back from its FAISS index: the dense peers
    search exactly the vectors ``mendel dense`` searches, and nothing is embedded again."""
    import faiss

    from mendel.index import bundle, segment_dense, segments

    part = bundle.part_path(Path(bundle_path), bundle.DENSE_PART)
    if segments.is_segmented(part):
        return segment_dense.layer_vectors(part)
    index = faiss.read_index(str(bundle.faiss_index_path(Path(bundle_path))))
    if hasattr(index, "make_direct_map"):  # IVF indexes reconstruct only through a direct map (lossy for PQ)
        index.make_direct_map()
    return np.asarray(index.reconstruct_n(0, index.ntotal), dtype=np.float32)


def tantivy_system(chunks: Sequence[dict], tokenize: Callable[[str], list[str]] | None = None, depth: int = DEPTH):
    """tantivy BM25 over the raw chunks, in RAM. ``tokenize=None``: tantivy's ``default`` analyser (split on
    non-alphanumerics, drop tokens over 40 bytes, lower-case); otherwise the text is indexed as ``tokenize``'s
    tokens joined by spaces through a whitespace tokenizer. A query is the OR of term queries of its tokens,
    made by the same analyser, so query syntax characters (``:``, ``-``, quotes) cannot change its meaning."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("row", fast=True)
    builder.add_text_field("text", tokenizer_name="default" if tokenize is None else TANTIVY_TOKENS)
    schema = builder.build()
    index = tantivy.Index(schema)  # no path: in RAM
    if tokenize is None:
        analyser = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .build()
        )  # what "default" is
        query_tokens = analyser.analyze
    else:
        index.register_tokenizer(TANTIVY_TOKENS, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())
        query_tokens = tokenize
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for i, chunk in enumerate(chunks):
        document = tantivy.Document()
        document.add_unsigned("row", i)
        document.add_text("text", chunk["text"] if tokenize is None else " ".join(tokenize(chunk["text"])))
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def ranking(query: str) -> list[int]:
        tokens = query_tokens(query)
        if not tokens:
            return []
        parsed = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", t)) for t in tokens]
        )
        hits = searcher.search(parsed, depth).hits
        rows = searcher.fast_field_values("row", [address for _, address in hits])
        return [int(row) for (score, _), row in zip(hits, rows) if score > 0]

    return ranking


def lancedb_systems(
    chunks: Sequence[dict],
    vectors: np.ndarray,
    queries: QueryVectors,
    directory: Path,
    tokenize: Callable[[str], list[str]],
    depth: int = DEPTH,
) -> dict[str, Callable[[str], list[int]]]:
    """LanceDB over one table in ``directory``: ``row`` (the chunk's row), ``vector`` (the unit vector given) and
    ``tokens`` (``tokenize``'s tokens joined by spaces, under a native full-text index with a whitespace
    tokenizer and no stemming, stop words or folding of its own). No vector index is built, so vector search is
    an exact scan, like FAISS flat; the hybrid query fuses the two with LanceDB's default RRF reranker."""
    # Lance's logger warns on every hybrid query that it adds score columns by itself: errors only
    os.environ.setdefault("LANCEDB_LOG", "error")
    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS

    from mendel.index.dense import normalized

    unit = normalized(np.asarray(vectors, dtype=np.float32))
    data = pa.table(
        {
            "row": pa.array(np.arange(len(chunks), dtype=np.int32)),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(unit.reshape(-1)), unit.shape[1]),
            "tokens": pa.array([" ".join(tokenize(c["text"])) for c in chunks], pa.string()),
        }
    )
    table = lancedb.connect(str(directory)).create_table("chunks", data=data, mode="overwrite")
    table.create_index(
        "tokens",
        config=FTS(
            base_tokenizer="whitespace",
            lower_case=False,
            stem=False,
            remove_stop_words=False,
            ascii_folding=False,
            max_token_length=None,
        ),
    )

    def rows(builder, *score: str) -> list[int]:
        # the score column is named so Lance does not warn that it adds it on its own
        return [int(r) for r in builder.select(["row", *score]).limit(depth).to_arrow()["row"].to_pylist()]

    def unit_query(query: str) -> np.ndarray:
        return normalized(queries.query(query).reshape(1, -1))[0]

    def dense(query: str) -> list[int]:
        return rows(table.search(unit_query(query), query_type="vector").distance_type("dot"), "_distance")

    def fts(query: str) -> list[int]:
        text = " ".join(tokenize(query))
        return rows(table.search(text, query_type="fts", fts_columns="tokens"), "_score") if text else []

    def hybrid(query: str) -> list[int]:
        text = " ".join(tokenize(query))
        if not text:
            return dense(query)
        return rows(
            table.search(query_type="hybrid", fts_columns="tokens")
            .vector(unit_query(query))
            .text(text)
            .distance_type("dot")
        )

    return {"lancedb dense": dense, "lancedb fts (Czech analyser)": fts, "lancedb hybrid": hybrid}


def engine_missing(name: str) -> str | None:
    """Why ``name`` cannot run here (its optional engine is not installed), or None."""
    module = next((m for prefix, m in EXTRA_ENGINES.items() if name.startswith(prefix)), None)
    if module and importlib.util.find_spec(module) is None:
        return f"not run: {module} is not installed (pip install -e '.[peers]')"
    return None


def mendel_systems(bundle_path: Path, queries: QueryVectors, depth: int = DEPTH):
    from serving.ranking.search import Searcher

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
    return {
        "p50": percentile_ms(seconds, 50),
        "p95": percentile_ms(seconds, 95),
        "mean": round(float(np.mean(seconds)) * 1000.0, 2) if seconds else 0.0,
        "max": round(float(np.max(seconds)) * 1000.0, 2) if seconds else 0.0,
    }


def score_system(
    ranking: Callable[[str], list],
    questions: Sequence[dict],
    to_hit: Callable,
    ks: Sequence[int] = DEFAULT_KS,
    depth: int = DEPTH,
) -> dict:
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
    return {
        "overall": _mean([s for _, s in rows]),
        "by_type": {t: _mean([s for q, s in rows if q["type"] == t]) for t in types},
        "latency_ms": latency(seconds),
        "first_relevant_rank": first,
    }


NOTES = {
    "rank-bm25 (plain tokens)": "rank_bm25.BM25Okapi (k1 1.5, b 0.75) over lower-cased \\w+ tokens of the raw chunk",
    "rank-bm25 (Czech analyser)": "rank_bm25.BM25Okapi over mendel.czech.analyzer tokens of the raw chunk",
    "faiss-flat (raw chunks)": "faiss.IndexFlatIP over vectors of the raw chunk text (embedded for this study, "
    "cached), no context",
    "haystack bm25": "Haystack 2 InMemoryDocumentStore defaults (BM25L, its own tokeniser) + InMemoryBM25Retriever",
    "haystack embedding": "Haystack 2 InMemoryEmbeddingRetriever over the same raw-chunk vectors "
    "(dot product of unit vectors)",
    "tantivy bm25 (default tokenizer)": "tantivy (in RAM, BM25 k1 1.2, b 0.75) over the raw chunk with its default "
    "analyser (simple tokenizer, long-token filter, lower case); query = OR of "
    "its term queries",
    "tantivy bm25 (Czech analyser)": "tantivy over mendel.czech.analyzer tokens of the raw chunk (whitespace "
    "tokenizer); query = OR of the query's analyser tokens",
    "lancedb dense": "LanceDB exact vector scan (no ANN index, dot product) over the bundle's own passage vectors",
    "lancedb fts (Czech analyser)": "LanceDB native full-text index (BM25) over mendel.czech.analyzer tokens of the "
    "raw chunk (whitespace tokenizer, no stemming/stop words/folding)",
    "lancedb hybrid": "LanceDB hybrid query: the two above fused by its default RRFReranker",
    "mendel bm25": "bm25s over contextual texts (citation, title, section, document summary where the bundle "
    "has one, then the chunk), Czech analyser",
    "mendel dense": "FAISS over the bundle's vectors of the contextual texts",
    "mendel default": "Searcher.search: hybrid RRF + exact-reference fast paths + graph list + decomposition",
}


def question_sets(questions) -> dict[str, list[dict]]:
    """``questions`` as named sets: a mapping name -> list or JSONL path, or one list or path (named "")."""
    named = questions if isinstance(questions, dict) else {"": questions}
    return {name: list(qs) if isinstance(qs, (list, tuple)) else load_questions(Path(qs)) for name, qs in named.items()}


def type_counts(questions: Sequence[dict]) -> dict[str, int]:
    return {
        t: sum(1 for q in questions if q["type"] == t) for t in QUESTION_TYPES if any(q["type"] == t for q in questions)
    }


def run(
    bundle_dir: Path,
    questions,
    *,
    embedder=None,
    cache_dir: Path | None = None,
    systems: Sequence[str] = SYSTEMS,
    ks: Sequence[int] = DEFAULT_KS,
    depth: int = DEPTH,
    embed_missing: bool = True,
) -> dict:
    """Every system in ``systems`` over the bundle's L3 chunks, built once, and scored on ``questions``: one
    set (a list or a JSONL path) gives ``{"systems": {name: {"overall", "by_type", "latency_ms", "notes", ...}},
    "skipped": {name: why}, ...}``; a mapping of set names to sets gives ``{"sets": {name: {"questions",
    "types", "systems"}}, "skipped", ...}``. With ``embed_missing=False`` the raw-chunk vector systems run only
    when the cache already holds every raw chunk's vector; systems whose optional engine is not installed, and
    those, are listed under ``skipped``."""
    sets = question_sets(questions)
    started = time.perf_counter()
    bundle_path = resolve_bundle(bundle_dir)
    chunks = read_chunks(bundle_path)
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        raise ValueError(f"unknown systems {sorted(unknown)}; choose from {SYSTEMS}")
    skipped = {name: why for name in systems if (why := engine_missing(name))}
    systems = [s for s in systems if s not in skipped]
    queries = QueryVectors(embedder or default_embedder())
    from mendel.index.bundle import read_manifest

    bundle_model = read_manifest(bundle_path).get("model")
    if bundle_model and bundle_model != queries.name:
        log.warning("queries are embedded by %s but the bundle's vectors by %s", queries.name, bundle_model)
    needs_vectors = RAW_VECTOR_SYSTEMS & set(systems)
    vectors, newly, embed_seconds = None, 0, 0.0
    if needs_vectors:
        clock = time.perf_counter()
        cache = EmbeddingCache(cache_dir)
        try:
            lacking = 0 if embed_missing else cache.missing(queries.name, [c["text"] for c in chunks])
            if lacking:
                why = (
                    f"not run: {lacking} of {len(chunks)} raw chunks have no cached {queries.name} vector yet "
                    f"(rerun without --no-embed to embed them)"
                )
                skipped.update(dict.fromkeys(sorted(needs_vectors), why))
                systems = [s for s in systems if s not in needs_vectors]
            else:
                vectors, newly = cache.vectors(queries.inner, [c["text"] for c in chunks])
        finally:
            cache.close()
        embed_seconds = time.perf_counter() - clock
    for qs in sets.values():  # every dense system reads the same query vector
        for q in qs:
            queries.query(q["question"])

    from mendel.czech.analyzer import analyze

    def by_index(i):
        return as_hit(chunks[i])

    rankers: dict[str, tuple[Callable, Callable]] = {}
    build_seconds: dict[str, float] = {}
    with contextlib.ExitStack() as resources:
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
                for found, ranking in haystack_systems(
                    chunks, vectors if wanted else None, queries if wanted else None, depth
                ).items():
                    if found in systems:
                        rankers[found] = (ranking, by_index)
            elif name == "tantivy bm25 (default tokenizer)":
                rankers[name] = (tantivy_system(chunks, None, depth), by_index)
            elif name == "tantivy bm25 (Czech analyser)":
                rankers[name] = (tantivy_system(chunks, analyze, depth), by_index)
            elif name.startswith("lancedb"):
                directory = Path(resources.enter_context(tempfile.TemporaryDirectory(prefix="mendel-peers-lancedb-")))
                found_vectors = bundle_vectors(bundle_path)
                if len(found_vectors) != len(chunks):
                    raise ValueError(f"{bundle_path}: {len(found_vectors)} vectors for {len(chunks)} chunks")
                for found, ranking in lancedb_systems(
                    chunks, found_vectors, queries, directory, analyze, depth
                ).items():
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

        def scored_systems(qs: Sequence[dict]) -> dict:
            out = {}
            for name in systems:
                ranking, to_hit = rankers[name]
                out[name] = score_system(ranking, qs, to_hit, ks, depth)
                out[name]["notes"] = NOTES[name]
                out[name]["index_seconds"] = build_seconds.get(name, 0.0)
            return out

        scored = {set_name: scored_systems(qs) for set_name, qs in sets.items()}

    result = {
        "bundle": str(bundle_path),
        "bundle_model": bundle_model,
        "chunks": len(chunks),
        "ks": list(ks),
        "embedder": queries.name,
        "passages_embedded_now": newly,
        "passage_embedding_seconds": round(embed_seconds, 1),
        "query_embedding_ms": latency(queries.seconds),
        "latency_note": "per-query ranking time; query vectors computed beforehand (query_embedding_ms)",
    }
    if list(sets) == [""]:
        only = sets[""]
        result.update({"questions": len(only), "types": type_counts(only), "systems": scored[""]})
    else:
        result["sets"] = {
            name: {"questions": len(qs), "types": type_counts(qs), "systems": scored[name]} for name, qs in sets.items()
        }
    result["skipped"] = skipped
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def format_table(result: dict) -> str:
    ks = result["ks"]
    metrics = [f"recall@{k}" for k in ks] + ["mrr", f"ndcg@{NDCG_K}"]
    sets = result.get("sets") or {"": {"questions": result["questions"], "systems": result["systems"]}}
    lines = []
    for set_name, data in sets.items():
        label = f" ({set_name})" if set_name else ""
        lines += [
            f"Peers{label}: {data['questions']} questions over {result['chunks']} chunks",
            "",
            "| system | " + " | ".join(metrics) + " | p50 ms | p95 ms |",
            "|---|" + "---:|" * (len(metrics) + 2),
        ]
        for name, system in data["systems"].items():
            lines.append(
                f"| {name} | "
                + " | ".join(f"{system['overall'].get(m, 0.0):.3f}" for m in metrics)
                + f" | {system['latency_ms']['p50']:.1f} | {system['latency_ms']['p95']:.1f} |"
            )
        for name, why in (result.get("skipped") or {}).items():
            lines.append(f"| {name} | {why} |")
        lines.append("")
    q = result.get("query_embedding_ms") or {}
    if q.get("p50"):
        lines += [
            f"{result.get('embedder')} query embedding (shared by every dense system, not in the figures "
            f"above): p50 {q['p50']:.0f} ms, p95 {q['p95']:.0f} ms"
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.peers", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--bundles",
        type=Path,
        default=None,
        help="a bundles directory (its CURRENT bundle) or one bundle (default: settings)",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        action="append",
        default=None,
        help="a question set (JSONL; repeatable, named by its file stem); default: dev and held-out",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument(
        "--no-embed",
        action="store_true",
        help="embed no passages: raw-vector systems run only when the cache holds every vector",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    bundles = args.bundles or default_bundles_dir()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    sets = {path.stem: path for path in args.questions or (DEV_QUESTIONS, HELDOUT_QUESTIONS)}
    result = run(bundles, sets, cache_dir=args.cache_dir, systems=systems, embed_missing=not args.no_embed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(result))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
