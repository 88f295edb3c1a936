"""The dense list (serving.ranking.dense): a query whose vector is at hand is searched on the calling thread, one to
encode on a worker, and both give the same list (random unit vectors, no text); a query is encoded once, however
many dense lists search it."""

from __future__ import annotations

import threading

import faiss
import numpy as np
import pytest

from serving.ranking import dense
from serving.ranking.dense import DenseLists

DIM, ROWS = 16, 200


def unit(rng, *shape) -> np.ndarray:
    vectors = rng.standard_normal((*shape, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


class Encoder:
    """Vectors by text; records which thread encoded each (``query``) and what was looked up (``query_at_hand``)."""

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors
        self.encoded_on: list[str] = []

    def query(self, text: str) -> np.ndarray:
        self.encoded_on.append(threading.current_thread().name)
        return self.vectors[text]


class CachingEncoder(Encoder):
    """As the default encoder with the text in its cache: the vector is at hand, nothing is encoded."""

    def query_at_hand(self, text: str) -> np.ndarray | None:
        return self.vectors.get(text)


class ColdEncoder(Encoder):
    """As the default encoder with an empty cache: nothing at hand, the text must be encoded."""

    def query_at_hand(self, text: str) -> np.ndarray | None:
        return None


@pytest.fixture
def index_and_queries():
    rng = np.random.default_rng(5)
    index = faiss.IndexFlatIP(DIM)
    index.add(unit(rng, ROWS))
    return index, {f"q{i}": v for i, v in enumerate(unit(rng, 6))}


@pytest.fixture(autouse=True)
def two_workers(monkeypatch):
    monkeypatch.setattr(dense, "DENSE_WORKERS", 2)


@pytest.mark.parametrize("allowed_share", [None, 0.5])
def test_a_vector_at_hand_is_searched_here_and_others_on_a_worker(index_and_queries, allowed_share):
    index, queries = index_and_queries
    allowed = None if allowed_share is None else np.random.default_rng(1).random(ROWS) < allowed_share
    at_hand, to_encode = CachingEncoder(queries), Encoder(queries)
    here, worker = DenseLists(lambda: at_hand), DenseLists(lambda: to_encode)
    try:
        for text in queries:
            mine = here.pending(index, text, 10, allowed)
            assert mine.done()  # searched before pending returned: no worker
            theirs = worker.pending(index, text, 10, allowed).result(timeout=30)
            assert mine.result() == theirs and len(theirs[0]) == 10
            if allowed is not None:
                assert all(allowed[row] for row in theirs[0])
            np.testing.assert_array_equal(here.vector(text), worker.vector(text))  # kept for the floor
        assert here._pool is None and at_hand.encoded_on == []
        assert len(to_encode.encoded_on) == len(queries)
        assert all(name.startswith("mendel-dense") for name in to_encode.encoded_on)
    finally:
        here.close()
        worker.close()


@pytest.mark.parametrize("prefetched", [False, True])
def test_a_vector_not_at_hand_is_encoded_once_on_a_worker(index_and_queries, prefetched):
    index, queries = index_and_queries
    encoder = ColdEncoder(queries)
    lists = DenseLists(lambda: encoder)
    try:
        if prefetched:  # its encoding started before the search: the search takes that vector
            lists.prefetch("q0")
            lists.prefetch("q0")  # under way or kept: not again
        found = lists.pending(index, "q0", 5, None).result(timeout=30)
        assert lists._pool is not None and len(found[0]) == 5
        assert len(encoder.encoded_on) == 1 and encoder.encoded_on[0].startswith("mendel-dense")
        assert found == DenseLists(lambda: Encoder(queries)).scored(index, "q0", 5, None)
    finally:
        lists.close()


def test_a_search_process_runs_blas_on_one_thread(index_and_queries, monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    index, queries = index_and_queries
    monkeypatch.setattr(dense, "_blas_limited", False)  # a fresh process
    with threadpool_limits(limits=2, user_api="blas"):  # as a process starts on a 2-core machine (restored after)
        lists = DenseLists(lambda: ColdEncoder(queries))
        try:
            blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
            assert blas and all(pool["num_threads"] == dense.SEARCH_BLAS_THREADS for pool in blas)
            assert lists.pending(index, "q0", 5, None).result(timeout=30)[0]
        finally:
            lists.close()


def test_nothing_is_prefetched_at_hand_or_on_one_core(index_and_queries, monkeypatch):
    index, queries = index_and_queries
    at_hand = CachingEncoder(queries)
    lists = DenseLists(lambda: at_hand)
    lists.prefetch("q0")
    assert lists._pool is None and at_hand.encoded_on == []
    monkeypatch.setattr(dense, "DENSE_WORKERS", 1)
    cold = ColdEncoder(queries)
    lists = DenseLists(lambda: cold)
    lists.prefetch("q0")
    assert lists._pool is None and cold.encoded_on == []
    assert lists.pending(index, "q0", 5, None).result()[0] and cold.encoded_on == ["MainThread"]


def test_an_empty_index_is_never_searched():
    encoder = CachingEncoder({"q": np.ones(DIM, np.float32)})
    assert DenseLists(lambda: encoder).pending(faiss.IndexFlatIP(DIM), "q", 5, None).result() == ([], [])


class CountingEmbedder:
    """Query vectors of a fixed table, counting the encodings (slow enough for two workers to overlap)."""

    def __init__(self):
        self.calls = 0
        self.lock = threading.Lock()
        self.started = threading.Event()

    def query(self, text: str) -> np.ndarray:
        with self.lock:
            self.calls += 1
        self.started.set()
        threading.Event().wait(0.05)
        return np.array([1.0, 0.5, 0.0, 0.0], dtype=np.float32)


class BatchingEmbedder(CountingEmbedder):
    """:class:`CountingEmbedder` that also encodes several texts in one call, recording each call's texts."""

    def __init__(self):
        super().__init__()
        self.batches: list[list[str]] = []

    def queries(self, texts: list[str]) -> list[np.ndarray]:
        self.batches.append(list(texts))
        threading.Event().wait(0.05)
        return [np.array([1.0 - i, 0.5, float(i), 0.0], dtype=np.float32) for i, _ in enumerate(texts)]


def test_sub_queries_prefetched_together_are_encoded_in_one_call():
    embedder = BatchingEmbedder()
    lists = DenseLists(lambda: embedder)
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    try:
        lists.prefetch("nájem bytu", "výpověď z nájmu", "nájem bytu")
        first, second = (lists.pending(index, text, 4, None) for text in ("nájem bytu", "výpověď z nájmu"))
        assert first.result(timeout=30)[0][0] == 0 and second.result(timeout=30)[0][0] == 2  # each its own vector
        assert embedder.batches == [["nájem bytu", "výpověď z nájmu"]] and embedder.calls == 0  # never one by one
        lists.prefetch("nájem bytu", "výpověď z nájmu")  # kept: nothing to encode
        lists.prefetch("podnájem")  # one text: the embedder's own query
        assert lists.pending(index, "podnájem", 4, None).result(timeout=30)[0]
        assert len(embedder.batches) == 1 and embedder.calls == 1
    finally:
        lists.close()


def test_a_failed_batch_is_raised_to_each_search_that_waits_for_it():
    started, release = threading.Event(), threading.Event()

    class Failing(BatchingEmbedder):
        def queries(self, texts):
            started.set()
            release.wait(5)
            raise RuntimeError("encoder gone")

    lists = DenseLists(lambda: Failing())
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    try:
        lists.prefetch("a", "b")
        assert started.wait(5)
        waiting = lists.pending(index, "a", 2, None)  # under way: it waits for the batch
        release.set()
        with pytest.raises(RuntimeError, match="encoder gone"):
            waiting.result(timeout=30)
        assert not lists._encoding  # nothing left under way: a later search encodes afresh
    finally:
        lists.close()


@pytest.mark.parametrize("threads, waits", [(2, True), (4, True), (1, False), (None, False)])
def test_a_search_waits_for_an_encoding_that_fills_every_core(monkeypatch, threads, waits):
    monkeypatch.setattr(dense, "DENSE_WORKERS", 2)
    release = threading.Event()

    class Held(CountingEmbedder):
        solo_query_threads = threads

        def query(self, text):
            release.wait(10)  # an encoding that lasts until the test lets it end (at once when the search waits)
            return super().query(text)

    embedder = Held()
    if waits:
        release.set()
    lists = DenseLists(lambda: embedder)
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    try:
        lists.prefetch("krádež")
        lists.settle("krádež")
        assert (lists.vector("krádež") is not None) == waits  # encoded when it returns, or still under way
        release.set()
        assert lists.pending(index, "krádež", 2, None).result(timeout=30)[0][0] == 0
        assert embedder.calls == 1  # once, whoever encoded it
        lists.settle("krádež")  # kept: nothing more
        assert embedder.calls == 1
    finally:
        release.set()
        lists.close()


def test_an_encoding_that_fails_is_raised_by_the_dense_list_not_by_the_wait(monkeypatch):
    monkeypatch.setattr(dense, "DENSE_WORKERS", 2)

    class Failing(CountingEmbedder):
        solo_query_threads = 2

        def query(self, text):
            raise RuntimeError("encoder gone")

    lists = DenseLists(lambda: Failing())
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    try:
        lists.settle("krádež")
        with pytest.raises(RuntimeError, match="encoder gone"):
            lists.pending(index, "krádež", 2, None).result(timeout=30)
    finally:
        lists.close()


def test_a_query_is_encoded_once_for_its_dense_lists():
    embedder = CountingEmbedder()
    lists = DenseLists(lambda: embedder)
    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    acts = np.array([False, True, True, False])
    try:
        everything = lists.pending(index, "krádež", 4, None)
        embedder.started.wait(1)
        among_acts = lists.pending(index, "krádež", 4, acts)  # while the first worker still encodes
        assert everything.result()[0][:2] == [0, 1] and among_acts.result()[0] == [1, 2]
        assert embedder.calls == 1
        lists.scored(index, "krádež", 2, None)  # searched lately: the kept vector
        assert embedder.calls == 1 and lists.vector("krádež") is not None
        lists.scored(index, "podvod", 2, None)
        assert embedder.calls == 2
    finally:
        lists.close()


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivfpq"])
def test_a_whole_index_of_any_kind_answers_a_filtered_search_from_allowed_rows(kind):
    from mendel.index.dense import build_index

    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((2000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = build_index(vectors, kind)
    allowed = np.zeros(len(vectors), dtype=bool)
    allowed[::3] = True  # far more left out than wanted: the search takes a selector, in the index's own parameters
    ids, sims = dense.nearest(index, vectors[:1], 10, allowed)
    assert ids and all(allowed[i] for i in ids) and len(ids) == len(sims) <= 10


def hnsw_of(vectors: np.ndarray, ef_search: int) -> faiss.IndexHNSWFlat:
    index = faiss.IndexHNSWFlat(vectors.shape[1], 8, faiss.METRIC_INNER_PRODUCT)
    index.add(vectors)
    index.hnsw.efSearch = ef_search
    return index


def exact_among(vectors: np.ndarray, allowed: np.ndarray, vector: np.ndarray, n: int) -> list[int]:
    rows = np.flatnonzero(allowed)
    sims = vectors[rows] @ vector.reshape(-1)
    return [int(rows[i]) for i in np.lexsort((rows, -sims))[:n]]


@pytest.mark.parametrize("share", [0.02, 0.1, 0.3])
def test_a_graph_searched_through_a_narrow_filter_answers_exactly(share):
    """A filter letting few rows through (the acts in force for a lay question) reads those rows: the graph's
    filtered walk, most neighbours filtered out, misses some of the best (it does at efSearch 16 here)."""
    rng = np.random.default_rng(11)
    vectors = unit(rng, 3000)
    index = hnsw_of(vectors, ef_search=16)
    allowed = rng.random(len(vectors)) < share
    queries = unit(rng, 40)
    walked = []
    for vector in queries:
        ids, sims = dense.nearest(index, vector.reshape(1, -1), 10, allowed)
        want = exact_among(vectors, allowed, vector, 10)
        assert ids == want
        assert sims == pytest.approx((vectors[want] @ vector).tolist(), abs=1e-5)
        selector = faiss.IDSelectorBatch(np.flatnonzero(allowed).astype(np.int64))
        _, graph = index.search(vector.reshape(1, -1), 10, params=faiss.SearchParametersHNSW(sel=selector, efSearch=16))
        walked.append([int(i) for i in graph[0] if i >= 0] == want)
    assert not all(walked)  # the graph alone would have missed some: the test can tell the two apart


def test_a_wide_filter_walks_the_graph(monkeypatch):
    from mendel.index import dense as dense_index

    rng = np.random.default_rng(12)
    vectors = unit(rng, 500)
    index = hnsw_of(vectors, ef_search=64)
    allowed = rng.random(len(vectors)) < 0.5
    monkeypatch.setattr(dense_index, "EXACT_FILTER_ROWS", 100)  # fewer than the filter lets through
    gathered = dense_index.FilteredRows()
    assert gathered.top(index, allowed, vectors[0], 10) is None
    ids, _ = dense.nearest(index, vectors[:1], 10, allowed)
    assert ids and all(allowed[i] for i in ids)


def test_the_rows_of_a_filter_are_gathered_once_and_follow_the_index():
    from mendel.index.dense import FilteredRows

    rng = np.random.default_rng(13)
    vectors = unit(rng, 400)
    first, second = hnsw_of(vectors, 16), hnsw_of(vectors[::-1].copy(), 16)
    allowed = rng.random(len(vectors)) < 0.2
    gathered = FilteredRows(kept=2)
    sims, rows = gathered.top(first, allowed, vectors[3], 5)
    assert rows.tolist() == exact_among(vectors, allowed, vectors[3], 5)
    assert len(gathered._subsets) == 1
    gathered.top(first, allowed, vectors[4], 5)
    assert len(gathered._subsets) == 1  # the same index and filter: gathered once
    _, other = gathered.top(second, allowed, vectors[3], 5)  # another index, same filter: its own rows
    assert other.tolist() == exact_among(vectors[::-1], allowed, vectors[3], 5)
    gathered.top(first, ~allowed, vectors[3], 5)
    assert len(gathered._subsets) == 2  # the oldest let go
