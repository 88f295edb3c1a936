"""A layer's BM25 scores for a query's terms, the last few kept: one search scores its query's terms for the BM25
list and again for the relevance floor (``serving.ranking.coverage``), each time a pass over every row."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

RECENT_SCORES = 4  # term lists whose scores are kept (one search asks for a few; 4 bytes a row each)


class LayerBM25:
    """``index`` (a loaded ``bm25s.BM25`` or ``mendel.index.segment_bm25.SegmentedBM25``) with the surface serving
    uses: ``vocab_dict``, ``scores`` and ``get_scores``, which returns the index's own float32 scores as a
    read-only array (the next caller asking for the same terms gets the same one)."""

    def __init__(self, index):
        self.index = index
        self.vocab_dict = index.vocab_dict
        self.scores = index.scores
        self._recent: OrderedDict[tuple[str, ...], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_scores(self, tokens: list[str]) -> np.ndarray:
        """Every row's BM25 score for ``tokens`` (terms of the vocabulary; a repeated one counts again)."""
        key = tuple(tokens)
        with self._lock:
            found = self._recent.get(key)
            if found is not None:
                self._recent.move_to_end(key)
                return found
        if key:
            scores = np.asarray(self.index.get_scores(list(key)))  # a new array each call: ours to freeze
        else:  # bm25s cannot score no terms
            scores = np.zeros(int(self.scores["num_docs"]), dtype=np.float32)
        scores.setflags(write=False)
        with self._lock:
            self._recent[key] = scores
            while len(self._recent) > RECENT_SCORES:
                self._recent.popitem(last=False)
        return scores
