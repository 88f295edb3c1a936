"""The vectorised BM25 build (mendel.index.lexical) writes exactly what bm25s' own indexer writes for the same
analysed texts: the same files, arrays equal element for element (float32 scores included), equal vocabulary and
parameters, and equal scores through bm25s.BM25.load + get_scores as serving uses them."""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import numpy as np
import pytest
from bm25s.tokenization import Tokenized

from benchmarks.scale_corpus import ScaleCorpus, real_sentences
from mendel.czech.analyzer import analyze
from mendel.index import lexical
from tests.support.index import ns_decisions

# Hand-made texts (made-up words and a pangram, not legal text) for the corners of the arithmetic.
EDGE_CORPORA = {
    "one text": ["alfa beta gama"],
    "one token": ["alfa"],
    "empty texts among others": ["", "alfa beta", "", "beta beta gama", "   ", "!!! ... ,,,", "a v se"],
    "repeated tokens": ["alfa alfa alfa alfa beta", "alfa", "beta beta", "gama " * 40],
    "term in every text": ["delta alfa", "delta beta", "delta gama delta", "delta"],
    "every term in every text": ["alfa beta", "beta alfa", "alfa beta alfa"],
    "long and short texts": ["alfa " * 500 + "beta", "alfa beta", "beta " * 3, "gama"],
    "unicode": [
        "Příliš žluťoučký kůň úpěl ďábelské ódy",
        "PŘÍLIŠ ŽLUŤOUČKÝ KŮŇ",
        "§ 7 odst. 2, čl. 4, 89/2012",
        "§7 §  7a čl.IV Ω ß straße Straße 中文 ﬁnance 🙂 e\u0301 é",
        "nula 0 00 ٣ ²",
    ],
}


def token_ids(texts: list[str]) -> tuple[list[list[int]], dict[str, int]]:
    """What write_bm25 analysed texts into before the vectorised build: analyze() per text, ids in order of
    first use."""
    vocabulary: dict[str, int] = {}
    corpus = [[vocabulary.setdefault(term, len(vocabulary)) for term in analyze(text)] for text in texts]
    return corpus, vocabulary


def bm25s_reference(texts: list[str], out: Path) -> None:
    """What write_bm25 wrote before the vectorised build: our analyser's ids through bm25s' own indexer."""
    corpus, vocabulary = token_ids(texts)
    if not corpus:
        corpus, vocabulary = [[0]], {"": 0}
    retriever = bm25s.BM25()
    retriever.index(Tokenized(ids=corpus, vocab=vocabulary), show_progress=False)
    retriever.save(str(out))


def assert_same_index(expected: Path, built: Path) -> None:
    names = sorted(p.name for p in expected.iterdir())
    assert sorted(p.name for p in built.iterdir()) == names
    for name in names:
        if name.endswith(".npy"):
            want, got = np.load(expected / name), np.load(built / name)
            assert got.dtype == want.dtype, name
            assert np.array_equal(got, want), name
        elif name.endswith(".json"):
            assert json.loads((built / name).read_text()) == json.loads((expected / name).read_text()), name
        assert (built / name).read_bytes() == (expected / name).read_bytes(), name


def queries(texts: list[str]) -> list[list[str]]:
    """A few term lists from the corpus: a text's first terms (repeats kept), the most and least common terms."""
    analysed = [analyze(t) for t in texts]
    terms = [term for tokens in analysed for term in tokens]
    if not terms:
        return []
    df: dict[str, int] = {}
    for tokens in analysed:
        for term in set(tokens):
            df[term] = df.get(term, 0) + 1
    by_df = sorted(df, key=lambda term: (df[term], term))
    first = next(tokens for tokens in analysed if tokens)
    return [first[:12], [by_df[-1]], [by_df[0]], by_df[:3] + by_df[-3:] + by_df[-1:]]


def check_corpus(texts: list[str], tmp_path: Path) -> None:
    ids = [f"chunk-{i}" for i in range(len(texts))]
    bm25s_reference(texts, tmp_path / "reference")
    info = lexical.write_bm25(tmp_path / "built", ids, texts, digest="d")
    assert_same_index(tmp_path / "reference", tmp_path / "built" / "bm25")
    assert json.loads((tmp_path / "built" / "ids.json").read_text()) == ids
    want, got = bm25s.BM25.load(str(tmp_path / "reference")), bm25s.BM25.load(str(tmp_path / "built" / "bm25"))
    assert info == {"chunks": len(ids), "vocabulary": len(want.vocab_dict), "analyzer": lexical.ANALYZER_VERSION}
    for query in queries(texts):
        expected = want.get_scores(query)
        assert expected.any()
        assert np.array_equal(got.get_scores(query), expected), query


@pytest.mark.parametrize("name", sorted(EDGE_CORPORA))
def test_edge_corpora_index_like_bm25s(name, tmp_path):
    check_corpus(EDGE_CORPORA[name], tmp_path)


def test_supreme_court_decisions_index_like_bm25s(tmp_path):
    decisions = ns_decisions()
    texts = [d["full_text"] for d in decisions] + [d["title"] for d in decisions]
    check_corpus(texts, tmp_path)


def test_synthetic_chunks_index_like_bm25s(tmp_path):
    corpus = ScaleCorpus(2_000, real_sentences("decisions"), seed=11)
    check_corpus([r.context_text for r in corpus.records(3)], tmp_path)


def test_empty_corpus_keeps_its_loadable_placeholder(tmp_path):
    check_corpus([], tmp_path)
    assert json.loads((tmp_path / "built" / "ids.json").read_text()) == []


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # bm25s' 0/0 average length
def test_texts_without_any_term_still_index(tmp_path):
    """bm25s' own indexer fails here (max() of an empty vocabulary); the build writes a loadable index with
    the empty term only, which serving never queries (analyze() yields no empty term)."""
    texts = ["a v se", "", "!!!"]
    with pytest.raises(ValueError):
        bm25s_reference(texts, tmp_path / "reference")
    info = lexical.write_bm25(tmp_path / "built", ["x", "y", "z"], texts)
    loaded = bm25s.BM25.load(str(tmp_path / "built" / "bm25"))
    assert info["chunks"] == 3 and loaded.scores["num_docs"] == 3 and loaded.vocab_dict == {"": 0}
    assert len(loaded.scores["data"]) == 0 and loaded.scores["indptr"].tolist() == [0]


def test_flat_token_ids_equal_token_ids():
    texts = EDGE_CORPORA["unicode"] + EDGE_CORPORA["empty texts among others"]
    texts += [d["full_text"] for d in ns_decisions()]
    corpus, vocabulary = token_ids(texts)
    flat, lengths, flat_vocabulary = lexical.token_id_arrays(texts)
    assert list(flat_vocabulary.items()) == list(vocabulary.items())  # same ids in the same order
    assert flat.dtype == np.int32 and lengths.dtype == np.int64
    assert lengths.tolist() == [len(ids) for ids in corpus]
    assert flat.tolist() == [i for ids in corpus for i in ids]


def test_other_bm25s_versions_use_bm25s_indexer(tmp_path, monkeypatch):
    monkeypatch.setattr(lexical, "BM25S_VERSION_MATCHED", "0.0.0")
    monkeypatch.setattr(lexical, "bm25_score_matrix", None)  # would fail if called
    check_corpus(EDGE_CORPORA["repeated tokens"] + EDGE_CORPORA["unicode"], tmp_path)


def test_comparison_catches_one_ulp(tmp_path):
    """The equality above is exact: one score one float32 step off, or k1 changed in the 7th digit, fails it."""
    texts = EDGE_CORPORA["long and short texts"] + EDGE_CORPORA["term in every text"]
    bm25s_reference(texts, tmp_path / "reference")
    lexical.write_bm25(tmp_path / "built", [str(i) for i in range(len(texts))], texts)
    data_path = tmp_path / "built" / "bm25" / "data.csc.index.npy"
    data = np.load(data_path)
    data[len(data) // 2] = np.nextafter(data[len(data) // 2], np.float32(np.inf))
    np.save(data_path, data)
    with pytest.raises(AssertionError):
        assert_same_index(tmp_path / "reference", tmp_path / "built" / "bm25")

    flat, lengths, vocabulary = lexical.token_id_arrays(texts)
    want = np.load(tmp_path / "reference" / "data.csc.index.npy")
    assert np.array_equal(lexical.bm25_score_matrix(flat, lengths, len(vocabulary))["data"], want)
    assert not np.array_equal(lexical.bm25_score_matrix(flat, lengths, len(vocabulary), k1=1.5000001)["data"], want)
