"""The dense lists (serving/ranking/dense.py): a query is encoded once, however many dense lists search it."""

from __future__ import annotations

import threading

import faiss
import numpy as np

from serving.ranking.dense import DenseLists


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
