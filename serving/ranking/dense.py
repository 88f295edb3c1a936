"""The dense list of a bundle search: the query encoded and searched in a layer's FAISS index, on worker threads
while the calling thread ranks the other lists, and the query vectors kept for the relevance floor.

A query whose vector is at hand without encoding (the encoder's ``query_at_hand``: a text encoded lately) is
searched on the calling thread instead: a worker would only add its hand-over (waking a thread, then waiting for
the interpreter lock while the calling thread runs Python) to a ~1 ms FAISS search."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable

import numpy as np

from mendel.index.dense import FILTERED_ROWS, filtered_search_params

# Dense searches (query encoding + FAISS, both outside the GIL) run on worker threads while the calling thread
# does BM25, the graph list and fusion; one core has nothing to overlap with. One worker per usable CPU (started as
# needed), so concurrent API requests search in parallel as they did on their own threads.
DENSE_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
QUERY_VECTORS_KEPT = 256  # recent query vectors, for the floor's dense signal without encoding twice
# A search's products are small (one vector against a few thousand rows) and its lists already run on threads of
# their own; OpenBLAS's threads spin after every call and took the other core: on the whole-corpus bundle, with
# the encoder in the loop, CPU 38.6 / 39.7 -> 20.5 / 21.3 ms a search, p50 19.9 / 20.3 -> 17.9 / 18.6 ms on one
# thread (docs/benchmarks.md, 2026-12-06).
SEARCH_BLAS_THREADS = 1
_blas_limited = False


def limit_blas_threads() -> None:
    """BLAS on ``SEARCH_BLAS_THREADS`` in this process, from the first search set up on (once)."""
    global _blas_limited
    if not _blas_limited:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=SEARCH_BLAS_THREADS, user_api="blas")
        _blas_limited = True


@contextmanager
def one_faiss_thread():
    """Search one query vector in the calling thread: a thread team gains nothing for one vector, and waking
    one cost 40 ms of a 45 ms search on a busy 2-core machine (flat index, 10,000 chunks). The OpenMP thread
    count is per calling thread, so concurrent searches do not race on it."""
    import faiss

    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


class DenseLists:
    """Dense rankings over FAISS indexes; ``embedder`` is called for the query encoder when one is first needed."""

    def __init__(self, embedder: Callable[[], object]):
        limit_blas_threads()
        self._embedder = embedder
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._encoding: dict[str, Future] = {}  # queries being encoded now, by the worker that encodes them

    def close(self) -> None:
        """Stop the worker threads (searches still running finish)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)

    def vector(self, text: str) -> np.ndarray | None:
        """The vector of a query searched lately (None when it was not)."""
        with self._lock:
            return self._vectors.get(text)

    def _workers(self) -> ThreadPoolExecutor:
        pool = self._pool
        if pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(DENSE_WORKERS, thread_name_prefix="mendel-dense")
                pool = self._pool
        return pool

    def prefetch(self, *queries: str) -> None:
        """Start encoding ``queries`` on a worker, as soon as their texts are known: a dense search of one started
        later takes its vector or waits for this encoding (:meth:`encoded`). Several at once (a question's
        sub-queries) are encoded together when the embedder encodes batches (its ``queries``): one run of the
        encoder for all of them. Nothing when they would be searched here (one core) or their vectors are kept or
        at hand; an error is raised to the searches that ask for a vector."""
        if DENSE_WORKERS < 2:
            return
        with self._lock:
            wanted = [q for q in dict.fromkeys(queries) if q not in self._vectors and q not in self._encoding]
        at_hand = getattr(self._embedder(), "query_at_hand", None)
        if at_hand is not None:
            wanted = [q for q in wanted if at_hand(q) is None]
        together = len(wanted) > 1 and callable(getattr(self._embedder(), "queries", None))
        try:
            if together:
                self._workers().submit(self.encoded_together, wanted)
            else:
                for query in wanted:
                    self._workers().submit(self.encoded, query)
        except RuntimeError:  # closed: the search encodes them when it asks
            pass

    def settle(self, query: str) -> None:
        """Wait for ``query``'s encoding (or encode it here) when a lone query's encoding keeps every core busy
        (the embedder's ``solo_query_threads`` at least the workers): the search's other lists, ranked beside
        it, slow it about as much as they gain, while ranked after it they overlap the dense walk instead (two
        cores, alternating runs of the 100k benchmark: end to end p50 / p95 median 14.7 / 18.0 -> 12.9 / 16.1 ms;
        docs/benchmarks.md). Nothing on more cores, when the vector is kept or at hand, or for an embedder that
        does not say; an encoding's error is left to the dense list, which raises it."""
        threads = getattr(self._embedder(), "solo_query_threads", None)
        if DENSE_WORKERS < 2 or not threads or threads < DENSE_WORKERS:
            return
        with self._lock:
            if query in self._vectors:
                return
        try:
            self.encoded(query)
        except Exception:  # raised to the search by its dense list
            pass

    def encoded_together(self, queries: list[str]) -> None:
        """Encode ``queries`` in one call of the embedder's ``queries``, keeping their vectors as :meth:`encoded`
        does; a query already kept or under way is left to that encoding."""
        with self._lock:
            owned = {q: Future() for q in queries if q not in self._vectors and q not in self._encoding}
            self._encoding.update(owned)
        if not owned:
            return
        try:
            vectors = [unit_row(vector) for vector in self._embedder().queries(list(owned))]
        except Exception as error:
            for query, encoding in owned.items():
                self._finish(query, encoding, error=error)  # raised to the searches that wait for these vectors
            return
        for (query, encoding), vector in zip(owned.items(), vectors):
            self._finish(query, encoding, vector)

    def pending(self, faiss_index, query: str, n: int, allowed: np.ndarray | None) -> Future:
        """:meth:`scored` started on a worker thread (run here when there is one core, or when the query's vector
        is at hand without encoding): its future."""
        at_hand = getattr(self._embedder(), "query_at_hand", None) if faiss_index.ntotal else None
        vector = at_hand(query) if at_hand is not None else None
        if DENSE_WORKERS > 1 and vector is None:
            try:
                return self._workers().submit(self.scored, faiss_index, query, n, allowed)
            except RuntimeError:  # closed while this search ran: finish it here
                pass
        done: Future = Future()
        try:
            done.set_result(self.scored(faiss_index, query, n, allowed, vector))
        except Exception as error:  # raised where the result is read, as from a worker
            done.set_exception(error)
        return done

    def scored(
        self, faiss_index, query: str, n: int, allowed: np.ndarray | None, vector: np.ndarray | None = None
    ) -> tuple[list[int], list[float]]:
        """The ``n`` chunks nearest the query among ``allowed`` (all when None), with their cosine similarity;
        ``vector``: the query's, when already at hand (else the embedder encodes it)."""
        if faiss_index.ntotal == 0:
            return [], []
        vector = self.encoded(query, vector)
        with one_faiss_thread():
            return nearest(faiss_index, vector, n, allowed)

    def encoded(self, query: str, at_hand: np.ndarray | None = None) -> np.ndarray:
        """The query's unit vector, encoded once: a search of the same text among other rows (the acts' own list)
        on another worker waits for the encoding under way instead of encoding again; ``at_hand``: the encoder's
        vector when it already had one."""
        if at_hand is not None:
            vector = unit_row(at_hand)
            with self._lock:
                self._keep(query, vector)
            return vector
        with self._lock:
            vector = self._vectors.get(query)
            if vector is not None:
                self._vectors.move_to_end(query)
                return vector
            encoding = self._encoding.get(query)
            owner = encoding is None
            if owner:
                encoding = self._encoding[query] = Future()
        if not owner:
            return encoding.result()
        try:
            vector = unit_row(self._embedder().query(query))
        except Exception as error:
            self._finish(query, encoding, error=error)
            raise
        self._finish(query, encoding, vector)
        return vector

    def _finish(
        self, query: str, encoding: Future, vector: np.ndarray | None = None, error: Exception | None = None
    ) -> None:
        """End ``query``'s encoding under way: its vector kept and handed to the searches waiting for it, or its
        error raised to them."""
        with self._lock:
            if error is None:
                self._keep(query, vector)
            self._encoding.pop(query, None)
        if error is None:
            encoding.set_result(vector)
        else:
            encoding.set_exception(error)

    def _keep(self, query: str, vector: np.ndarray) -> None:
        """Keep a query's vector for the floor (the caller holds the lock)."""
        self._vectors[query] = vector
        self._vectors.move_to_end(query)
        while len(self._vectors) > QUERY_VECTORS_KEPT:
            self._vectors.popitem(last=False)


def unit_row(vector) -> np.ndarray:
    """``vector`` as one float32 row of unit length, a copy: what FAISS is searched with."""
    row = np.asarray(vector).reshape(1, -1).astype(np.float32)
    row /= max(float(np.linalg.norm(row)), 1e-12)
    return row


def approximate(index) -> bool:
    """Whether a search of ``index`` (FAISS, or a layer grown by segments) may miss a nearer row: a graph or a
    quantiser rather than a flat scan."""
    kinds = getattr(index, "kinds", None)  # mendel.index.segment_dense.SegmentedVectors
    if kinds is not None:
        return any(kind != "flat" for kind in kinds)
    import faiss

    return not isinstance(index, faiss.IndexFlat)


def nearest(index, vector: np.ndarray, n: int, allowed: np.ndarray | None) -> tuple[list[int], list[float]]:
    if hasattr(index, "nearest"):  # a layer grown by segments (mendel.index.segment_dense) searches itself
        return index.nearest(vector, n, allowed)
    if allowed is None:
        sims, ids = index.search(vector, min(n, index.ntotal))
        return [int(i) for i in ids[0] if i >= 0], [float(d) for i, d in zip(ids[0], sims[0]) if i >= 0]
    import faiss

    excluded = int(index.ntotal - np.count_nonzero(allowed[: index.ntotal]))
    if excluded <= n:  # a few left out (superseded act versions): the best n + excluded, less those
        sims, ids = index.search(vector, min(n + excluded, index.ntotal))
        kept = [(int(i), float(d)) for i, d in zip(ids[0], sims[0]) if i >= 0 and allowed[i]][:n]
        return [i for i, _ in kept], [d for _, d in kept]
    if getattr(index, "hnsw", None) is not None:  # few rows let through: all of them read, not the graph walked
        found = FILTERED_ROWS.top(index, allowed[: index.ntotal], vector, n)
        if found is not None:
            return found[1].tolist(), found[0].tolist()
    wanted = np.flatnonzero(allowed[: index.ntotal]).astype(np.int64)
    if wanted.size == 0:
        return [], []
    selector = faiss.IDSelectorBatch(wanted)
    params = filtered_search_params(index, selector, n)
    sims, ids = index.search(vector, min(n, int(wanted.size)), params=params)
    return [int(i) for i in ids[0] if i >= 0], [float(d) for i, d in zip(ids[0], sims[0]) if i >= 0]
