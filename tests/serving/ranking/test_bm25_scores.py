"""A layer's BM25 scores (serving.ranking.bm25_scores) are bm25s' own, bit for bit, whatever index holds them, and
a search asking twice for the same terms gets the same read-only scores. Made-up terms, no text."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest

from serving.ranking.bm25_scores import RECENT_SCORES, LayerBM25


@pytest.fixture(scope="module")
def index() -> bm25s.BM25:
    rng = np.random.default_rng(11)
    terms = [f"t{i}" for i in range(40)]
    corpus = [list(rng.choice(terms, size=rng.integers(1, 30))) for _ in range(300)]  # repeated terms in a row too
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    return retriever


class OwnScorer:
    """An index that scores itself (as mendel.index.segment_bm25.SegmentedBM25 does): bm25s' numbers."""

    def __init__(self, index):
        self.vocab_dict, self.scores, self._index = index.vocab_dict, {"num_docs": index.scores["num_docs"]}, index
        self.calls = 0

    def get_scores(self, tokens):
        self.calls += 1
        return self._index.get_scores(tokens)


@pytest.mark.parametrize(
    "tokens",
    [["t1"], ["t3", "t7", "t3"], ["t0", "t39", "t12", "t5", "t5", "t5"], ["t2", "unknown"], ["t8", "t1", "t30"]],
)
@pytest.mark.parametrize("wrapped", ["bm25s", "own scorer"])
def test_scores_are_bm25s_bit_for_bit(index, tokens, wrapped):
    layer = LayerBM25(index if wrapped == "bm25s" else OwnScorer(index))
    known = [t for t in tokens if t in index.vocab_dict]
    expected = index.get_scores(known)
    got = layer.get_scores(known)
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(got, expected)
    assert layer.vocab_dict is index.vocab_dict


def test_no_terms_score_nothing(index):
    for layer in (LayerBM25(index), LayerBM25(OwnScorer(index))):
        scores = layer.get_scores([])
        assert scores.shape == (index.scores["num_docs"],) and not scores.any()


def test_the_same_terms_again_get_the_same_read_only_scores(index):
    scorer = OwnScorer(index)
    layer = LayerBM25(scorer)
    first = layer.get_scores(["t1", "t2"])
    assert layer.get_scores(["t1", "t2"]) is first and scorer.calls == 1
    with pytest.raises(ValueError):
        first[0] = 1.0  # shared with the next caller: read-only
    assert layer.get_scores(["t2", "t1"]) is not first  # another order sums otherwise: scored anew
    for n in range(RECENT_SCORES):
        layer.get_scores([f"t{10 + n}"])
    assert layer.get_scores(["t1", "t2"]) is not first  # the oldest left
    assert scorer.calls == 3 + RECENT_SCORES
