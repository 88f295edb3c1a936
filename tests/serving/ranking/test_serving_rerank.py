"""Cross-encoder rerank from a local model directory (numpy BERT): tiny models built here in the Hugging Face
layout (config.json, model.safetensors, vocab.txt).

One model is constructed so its score has a closed form: attention is uniform (zero query/key weights), values
and projections are identities and the feed-forward block is zero, so the [CLS] output depends only on the share
``p`` of tokens that are the marker word; the test computes the expected score from ``p`` by hand. Another has
random weights (several layers and heads) and checks what must hold for any weights.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from mendel.encoder import ModelError
from mendel.encoder.safetensors import read_safetensors, write_safetensors
from mendel.encoder.wordpiece import WordPieceTokenizer
from serving.ranking.rerank import CrossEncoder, CrossEncoderError
from serving.ranking.search import RERANK_MAX, Searcher
from serving.web.api import create_app
from serving.web.server import reranker_from_env
from tests.support.bundle import EMBEDDER, HOUSING_QUERY, base_docs, build_bundle

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ["bydleni", "podpora", "vyhovujici", "zakon", "sazba", "nahrady", "##u", "##e", "soud"]
MARKER = "bydleni"


def _layer_names(n: int) -> list[str]:
    p = f"bert.encoder.layer.{n}."
    return [
        p + x
        for x in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
            "intermediate.dense",
            "output.dense",
        )
    ]


def write_model(
    directory, weights: dict, hidden: int, layers: int, heads: int, intermediate: int, vocab: list[str], **config
) -> CrossEncoder:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (directory / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["BertForSequenceClassification"],
                "model_type": "bert",
                "hidden_size": hidden,
                "num_hidden_layers": layers,
                "num_attention_heads": heads,
                "intermediate_size": intermediate,
                "max_position_embeddings": 128,
                "type_vocab_size": 2,
                "layer_norm_eps": 1e-12,
                "hidden_act": "gelu",
                "num_labels": 1,
                **config,
            }
        )
    )
    (directory / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}))
    write_safetensors(directory / "model.safetensors", weights)
    return CrossEncoder.load(directory)


def marker_model(directory) -> CrossEncoder:
    """Score = tanh(p / sqrt((p² + z²) / 2)), z = √2·(2 − p) + p, p = share of marker tokens in the pair."""
    vocab = SPECIALS + WORDS
    h = 4
    eye, zeros, zero, one = np.eye(h), np.zeros((h, h)), np.zeros(h), np.ones(h)
    word = np.tile([0.0, 0.0, 1.0, -1.0], (len(vocab), 1))
    word[vocab.index(MARKER)] = [1.0, -1.0, 1.0, -1.0]
    w = {
        "bert.embeddings.word_embeddings.weight": word,
        "bert.embeddings.position_embeddings.weight": np.zeros((128, h)),
        "bert.embeddings.token_type_embeddings.weight": np.zeros((2, h)),
        "bert.embeddings.LayerNorm.gamma": one,
        "bert.embeddings.LayerNorm.beta": zero,  # old names load too
        "bert.pooler.dense.weight": eye,
        "bert.pooler.dense.bias": zero,
        "classifier.weight": np.array([[1.0, 0.0, 0.0, 0.0]]),
        "classifier.bias": np.zeros(1),
    }
    query, key, value, attention_out, inner, out = _layer_names(0)
    for name, matrix in (
        (query, zeros),
        (key, zeros),
        (value, eye),
        (attention_out, eye),
        (inner, zeros),
        (out, zeros),
    ):
        w[name + ".weight"], w[name + ".bias"] = matrix, zero
    for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
        w[f"bert.encoder.layer.0.{norm}.weight"], w[f"bert.encoder.layer.0.{norm}.bias"] = one, zero
    return write_model(directory, w, hidden=h, layers=1, heads=2, intermediate=h, vocab=vocab)


def expected_marker_score(p: float) -> float:
    z = math.sqrt(2.0) * (2.0 - p) + p
    return math.tanh(p / math.sqrt((p * p + z * z) / 2.0))


def random_model(directory, seed: int = 7) -> CrossEncoder:
    rng = np.random.default_rng(seed)
    vocab = SPECIALS + WORDS
    h, inner, layers = 8, 16, 2

    def r(*shape):
        return rng.normal(0.0, 0.5, shape)

    w = {
        "bert.embeddings.word_embeddings.weight": r(len(vocab), h),
        "bert.embeddings.position_embeddings.weight": r(128, h),
        "bert.embeddings.token_type_embeddings.weight": r(2, h),
        "bert.embeddings.LayerNorm.weight": 1 + r(h) / 5,
        "bert.embeddings.LayerNorm.bias": r(h) / 5,
        "bert.pooler.dense.weight": r(h, h),
        "bert.pooler.dense.bias": r(h),
        "classifier.weight": r(2, h),
        "classifier.bias": r(2),
    }
    for n in range(layers):
        query, key, value, attention_out, inner_dense, out = _layer_names(n)
        for name, shape in (
            (query, (h, h)),
            (key, (h, h)),
            (value, (h, h)),
            (attention_out, (h, h)),
            (inner_dense, (inner, h)),
            (out, (h, inner)),
        ):
            w[name + ".weight"], w[name + ".bias"] = r(*shape), r(shape[0])
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"bert.encoder.layer.{n}.{norm}.weight"] = 1 + r(h) / 5
            w[f"bert.encoder.layer.{n}.{norm}.bias"] = r(h) / 5
    return write_model(directory, w, hidden=h, layers=layers, heads=2, intermediate=inner, vocab=vocab, num_labels=2)


# --- the pieces ------------------------------------------------------------------------------------------


def test_wordpiece_tokenizer():
    tokenizer = WordPieceTokenizer(SPECIALS + WORDS)
    ids = tokenizer.tokenize("Podpora BYDLENÍ, zákonu soudé xyz")
    vocab = SPECIALS + WORDS
    assert [vocab[i] for i in ids] == ["podpora", "bydleni", "[UNK]", "zakon", "##u", "soud", "##e", "[UNK]"]
    ids, types = tokenizer.encode_pair("podpora bydlení", "zákon " * 50, max_tokens=12)
    assert len(ids) == 12 and ids[0] == tokenizer.cls and ids.count(tokenizer.sep) == 2
    assert types == [0] * 4 + [1] * 8  # [CLS] podpora bydleni [SEP] | zakon ×7 [SEP]: the longer side was cut
    with pytest.raises(ModelError, match=r"\[CLS\]"):
        WordPieceTokenizer(["[PAD]", "[UNK]", "[SEP]"])


def test_safetensors_round_trip(tmp_path):
    tensors = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([0.5], dtype=np.float32)}
    write_safetensors(tmp_path / "m.safetensors", tensors)
    loaded = read_safetensors(tmp_path / "m.safetensors")
    assert set(loaded) == {"a", "b"} and np.array_equal(loaded["a"], tensors["a"]) and loaded["b"][0] == 0.5
    (tmp_path / "bad.safetensors").write_bytes(b"\xff" * 16)
    with pytest.raises(ModelError, match="not a safetensors file"):
        read_safetensors(tmp_path / "bad.safetensors")


def test_constructed_model_scores_match_the_closed_form(tmp_path):
    model = marker_model(tmp_path / "marker")
    query = "podpora bydlení"
    passages = ["bydlení bydlení bydlení", "zákon zákon zákon zákon zákon bydlení", "sazba náhrady", "soud"]
    scores = model.score(query, passages)
    shares = []
    for passage, score in zip(passages, scores):
        words = passage.split()
        tokens = 3 + 2 + len(words)  # [CLS] query [SEP] passage [SEP], one token a word
        shares.append((1 + words.count("bydlení")) / tokens)
        assert score == pytest.approx(expected_marker_score(shares[-1]), abs=1e-5)
    assert list(np.argsort(-scores)) == list(np.argsort(-np.array(shares)))  # a larger share, a higher score


def test_scores_do_not_depend_on_batching_or_padding(tmp_path):
    model = random_model(tmp_path / "random")
    query = "podpora bydlení"
    passages = ["soud", "zákon " * 40 + "bydlení", "sazba náhrady bydlení", "vyhovující"]
    together = model.score(query, passages)
    alone = np.array([model.score(query, [p])[0] for p in passages])
    assert np.allclose(together, alone, atol=1e-5)  # padded positions are never attended
    assert np.allclose(model.score(query, passages[::-1]), together[::-1], atol=1e-5)
    assert len(set(np.round(together, 4))) == len(passages)  # the pair decides the score
    assert model.score(query, []).shape == (0,)


def test_model_directories_that_cannot_load(tmp_path):
    marker_model(tmp_path / "ok")
    with pytest.raises(CrossEncoderError, match="not a model directory"):
        CrossEncoder.load(tmp_path / "missing")
    xlmr = tmp_path / "xlmr"
    xlmr.mkdir()
    (xlmr / "config.json").write_text(
        json.dumps({"model_type": "xlm-roberta", "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 1})
    )
    with pytest.raises(CrossEncoderError, match="xlm-roberta"):
        CrossEncoder.load(xlmr)
    no_weights = tmp_path / "no-weights"
    no_weights.mkdir()
    (no_weights / "config.json").write_text((tmp_path / "ok" / "config.json").read_text())
    with pytest.raises(CrossEncoderError, match="model.safetensors"):
        CrossEncoder.load(no_weights)
    partial = tmp_path / "partial"
    partial.mkdir()
    for name in ("config.json", "vocab.txt"):
        (partial / name).write_text((tmp_path / "ok" / name).read_text())
    weights = read_safetensors(tmp_path / "ok" / "model.safetensors")
    del weights["classifier.weight"]
    write_safetensors(partial / "model.safetensors", weights)
    with pytest.raises(CrossEncoderError, match="classifier.weight"):
        CrossEncoder.load(partial)
    (tmp_path / "ok" / "vocab.txt").unlink()
    with pytest.raises(CrossEncoderError, match="vocab.txt"):
        CrossEncoder.load(tmp_path / "ok")


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_runtimes_score_like_numpy(tmp_path, monkeypatch, runtime):
    """The cross-encoder on a runtime runs the same network: the graph built from its weights, converted once."""
    monkeypatch.setenv("MENDEL_ENCODER_CACHE", str(tmp_path / "cache"))
    random_model(tmp_path / "random")
    numpy_model = CrossEncoder.load(tmp_path / "random", runtime="numpy")
    query, passages = "podpora bydlení", ["soud", "zákon " * 40 + "bydlení", "sazba náhrady bydlení", "vyhovující"]
    expected = numpy_model.score(query, passages)
    monkeypatch.setenv("MENDEL_RERANK_RUNTIME", runtime)  # how serving chooses it
    model = CrossEncoder.load(tmp_path / "random")
    assert model.runtime == runtime
    scores = model.score(query, passages)
    # ONNX Runtime computes in float32 like numpy; OpenVINO in bf16 where the CPU has it
    np.testing.assert_allclose(scores, expected, atol=1e-4 if runtime == "onnxruntime" else 0.1)
    assert list(np.argsort(-scores)) == list(np.argsort(-expected))
    graphs = list((tmp_path / "cache").glob("cross-encoder-*/encoder.onnx"))
    assert len(graphs) == 1
    CrossEncoder.load(tmp_path / "random", runtime=runtime)
    assert list((tmp_path / "cache").glob("cross-encoder-*/encoder.onnx")) == graphs  # re-used, not rebuilt
    on_runtime = marker_model(tmp_path / "marker")  # the closed-form model, on the runtime too
    assert on_runtime.runtime == runtime
    shares = [(1 + 2) / 7, 1 / 6]  # marker tokens / all tokens of "[CLS] podpora bydleni [SEP] passage [SEP]"
    np.testing.assert_allclose(
        on_runtime.score(query, ["bydlení bydlení", "soud"]),
        [expected_marker_score(p) for p in shares],
        atol=1e-4 if runtime == "onnxruntime" else 0.02,
    )
    with pytest.raises(ValueError, match="unknown runtime"):
        CrossEncoder.load(tmp_path / "random", runtime="tensorflow")


# --- in search and the API ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, corpus):
    bundles_dir = tmp_path_factory.mktemp("bundles")
    build_bundle(bundles_dir, base_docs(corpus))
    return bundles_dir


@pytest.fixture(scope="module")
def marker(tmp_path_factory):
    return marker_model(tmp_path_factory.mktemp("models") / "marker")


def test_rerank_reorders_candidates_by_the_model(bundles, marker):
    searcher = Searcher.latest(bundles, embedder=EMBEDDER, reranker=marker)
    plain = searcher.search(HOUSING_QUERY, k=RERANK_MAX)
    reranked = searcher.search(HOUSING_QUERY, k=RERANK_MAX, rerank=True)
    assert {h.chunk_id for h in reranked} == {h.chunk_id for h in plain}  # the same candidates ...
    assert [h.chunk_id for h in reranked] != [h.chunk_id for h in plain]  # ... in the model's order
    position = {c["chunk_id"]: i for i, c in enumerate(searcher.chunks)}
    expected = marker.score(HOUSING_QUERY, [searcher.passage_text(position[h.chunk_id]) for h in reranked])
    assert [h.rerank_score for h in reranked] == pytest.approx(list(expected), abs=1e-6)
    assert [h.rerank_score for h in reranked] == sorted((h.rerank_score for h in reranked), reverse=True)
    assert all(h.lists[-1] == "rerank" for h in reranked) and all(h.rerank_score is None for h in plain)
    # rerank is off unless asked for
    assert [h.chunk_id for h in searcher.search(HOUSING_QUERY, k=RERANK_MAX)] == [h.chunk_id for h in plain]


def test_at_most_rerank_max_candidates_are_scored(bundles, marker, monkeypatch):
    import serving.ranking.answer

    monkeypatch.setattr(serving.ranking.answer, "RERANK_MAX", 10)  # the test bundle has fewer than 30 chunks
    calls: list[int] = []

    class Counting:
        def score(self, query, passages):
            calls.append(len(passages))
            return marker.score(query, passages)

    searcher = Searcher.latest(bundles, embedder=EMBEDDER, reranker=Counting())
    hits = searcher.search("zákon soud rozhodl bydlení náhrady ústava", k=100, rerank=True)
    assert calls == [10] and len(hits) > 10
    assert all(h.rerank_score is not None for h in hits[:10])
    assert all(h.rerank_score is None for h in hits[10:])
    assert RERANK_MAX == 30


def test_rerank_needs_a_model(bundles, marker, tmp_path):
    with pytest.raises(ValueError, match="no cross-encoder"):
        Searcher.latest(bundles, embedder=EMBEDDER).search(HOUSING_QUERY, rerank=True)
    without = TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))
    response = without.get("/search", params={"q": HOUSING_QUERY, "rerank": "true"})
    assert response.status_code == 400 and "cross-encoder" in response.json()["detail"]
    with_model = TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0, reranker=marker))
    body = with_model.get("/search", params={"q": HOUSING_QUERY, "rerank": "true", "k": 5}).json()
    scores = [r["rerank_score"] for r in body["results"]]
    assert len(scores) == 5 and scores == sorted(scores, reverse=True) and body["results"][0]["lists"][-1] == "rerank"
    assert with_model.get("/search", params={"q": HOUSING_QUERY}).json()["results"][0]["rerank_score"] is None
    # the serving process takes the model directory from MENDEL_RERANK_MODEL; unset means no rerank
    assert reranker_from_env({}) is None
    assert isinstance(reranker_from_env({"MENDEL_RERANK_MODEL": str(marker.path)}), CrossEncoder)
    with pytest.raises(CrossEncoderError):
        reranker_from_env({"MENDEL_RERANK_MODEL": str(tmp_path / "nowhere")})
