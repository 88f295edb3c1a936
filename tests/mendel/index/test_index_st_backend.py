"""The sentence-transformers embedder backend on tiny model directories built here (random weights, the
sentence-transformers layout: modules.json, config.json, model.safetensors, tokenizer.json, 1_Pooling,
optional 2_Normalize). No torch here, so the numpy backend runs them; the package path is checked with a
stand-in ``sentence_transformers`` module (only that the embedder hands the model and prompts to it)."""

from __future__ import annotations

import importlib.machinery
import json
import sys
import types

import numpy as np
import psycopg
import pytest

from mendel.encoder.safetensors import write_safetensors
from mendel.index import embed
from mendel.index.embed import (
    EmbedderError,
    NumpyBertEncoder,
    SentenceTransformerEmbedder,
    embed_with_cache,
    get_embedder,
)
from mendel.index.lexical import read_build_info
from serving.ranking.rerank import CrossEncoder

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = [
    "zakon",
    "soud",
    "sazba",
    "dan",
    "z",
    "prijmu",
    "bydleni",
    "podpora",
    "rozhodnuti",
    "##u",
    "##e",
    "query",
    "passage",
    ":",
    ".",
    ",",
]
VOCAB = SPECIALS + WORDS
TEXTS = [
    "Zákon o dani z příjmů.",
    "soud",
    "Rozhodnutí soudu o podpoře bydlení, sazba daně z příjmů zákonu.",
    "podpora",
    "zákon zákon zákon soud soud sazba",
    "dan z prijmu",
]


def bert_weights(seed: int, hidden: int, layers: int = 2, inner: int = 16, head: bool = False) -> dict:
    rng = np.random.default_rng(seed)

    def r(*shape):
        return rng.normal(0.0, 0.5, shape)

    w = {
        "embeddings.word_embeddings.weight": r(len(VOCAB), hidden),
        "embeddings.position_embeddings.weight": r(64, hidden),
        "embeddings.token_type_embeddings.weight": r(2, hidden),
        "embeddings.LayerNorm.weight": 1 + r(hidden) / 5,
        "embeddings.LayerNorm.bias": r(hidden) / 5,
    }
    for n in range(layers):
        p = f"encoder.layer.{n}."
        for name, shape in (
            ("attention.self.query", (hidden, hidden)),
            ("attention.self.key", (hidden, hidden)),
            ("attention.self.value", (hidden, hidden)),
            ("attention.output.dense", (hidden, hidden)),
            ("intermediate.dense", (inner, hidden)),
            ("output.dense", (hidden, inner)),
        ):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(*shape), r(shape[0])
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"], w[p + norm + ".bias"] = 1 + r(hidden) / 5, r(hidden) / 5
    if head:  # what a cross-encoder adds on top: pooler and a one-label classifier
        w.update(
            {
                "pooler.dense.weight": r(hidden, hidden),
                "pooler.dense.bias": r(hidden),
                "classifier.weight": r(1, hidden),
                "classifier.bias": r(1),
            }
        )
    return w


def st_model(
    directory,
    *,
    seed: int = 1,
    hidden: int = 8,
    layers: int = 2,
    pooling: str = "mean_tokens",
    normalize: bool = True,
    prompts: dict | None = None,
    include_prompt: bool = True,
    tokenizer_model: str = "WordPiece",
    head: bool = False,
    modules_extra: list | None = None,
):
    directory.mkdir(parents=True, exist_ok=True)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        (directory / "2_Normalize").mkdir(exist_ok=True)
    modules += modules_extra or []
    (directory / "modules.json").write_text(json.dumps(modules))
    (directory / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["BertModel"],
                "model_type": "bert",
                "hidden_size": hidden,
                "num_hidden_layers": layers,
                "num_attention_heads": 2,
                "intermediate_size": 16,
                "max_position_embeddings": 64,
                "type_vocab_size": 2,
                "layer_norm_eps": 1e-12,
                "hidden_act": "gelu",
                "num_labels": 1,
            }
        )
    )
    write_safetensors(directory / "model.safetensors", bert_weights(seed, hidden, layers, head=head))
    (directory / "tokenizer.json").write_text(
        json.dumps(
            {
                "normalizer": {
                    "type": "BertNormalizer",
                    "clean_text": True,
                    "handle_chinese_chars": True,
                    "strip_accents": None,
                    "lowercase": True,
                },
                "model": {
                    "type": tokenizer_model,
                    "unk_token": "[UNK]",
                    "continuing_subword_prefix": "##",
                    "max_input_chars_per_word": 100,
                    "vocab": {t: i for i, t in enumerate(VOCAB)},
                },
            }
        )
    )
    (directory / "vocab.txt").write_text("\n".join(VOCAB) + "\n")  # what the cross-encoder reads
    (directory / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 48, "do_lower_case": False}))
    (directory / "1_Pooling").mkdir(exist_ok=True)
    (directory / "1_Pooling" / "config.json").write_text(
        json.dumps(
            {
                "word_embedding_dimension": hidden,
                "pooling_mode_cls_token": pooling == "cls_token",
                "pooling_mode_mean_tokens": pooling == "mean_tokens",
                "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False,
                "include_prompt": include_prompt,
            }
        )
    )
    if prompts is not None:
        (directory / "config_sentence_transformers.json").write_text(json.dumps({"prompts": prompts}))
    return directory


def states_of(encoder: NumpyBertEncoder, text: str) -> np.ndarray:
    ids = np.asarray([encoder.encode_ids(text)])
    return encoder.token_states(ids, np.ones_like(ids, dtype=bool))[0]


def test_encoder_is_the_cross_encoders_network(tmp_path):
    """The embedder's token states, through the pooler and classifier, give serving's cross-encoder score."""
    directory = st_model(tmp_path / "m", head=True)
    cross = CrossEncoder.load(directory)
    encoder = NumpyBertEncoder(directory)
    w = encoder.weights
    for query, passage in (("podpora bydlení", TEXTS[2]), ("soud", "zákon o dani")):
        ids, token_types = cross.tokenizer.encode_pair(query, passage, cross.max_tokens)
        ids, token_types = np.asarray([ids]), np.asarray([token_types])
        states = encoder.token_states(ids, np.ones_like(ids, dtype=bool), token_types)
        pooled = np.tanh(states[0, 0] @ w["pooler.dense.weight"].T + w["pooler.dense.bias"])
        expected = (pooled @ w["classifier.weight"].T + w["classifier.bias"])[0]
        assert cross.score(query, [passage])[0] == pytest.approx(expected, rel=1e-4, abs=1e-5)


def test_mean_and_cls_pooling(tmp_path):
    mean = SentenceTransformerEmbedder(st_model(tmp_path / "mean", normalize=False))
    cls = SentenceTransformerEmbedder(st_model(tmp_path / "cls", pooling="cls_token", normalize=False))
    assert mean.dim == cls.dim == 8 and mean.backend == cls.backend == "numpy"
    text = TEXTS[2]
    states = states_of(mean._encoder, text)
    pieces = [VOCAB[i] for i in mean._encoder.encode_ids(text)]
    assert pieces == [
        "[CLS]",
        "rozhodnuti",
        "soud",
        "##u",
        "[UNK]",
        "[UNK]",
        "bydleni",
        ",",
        "sazba",
        "dan",
        "##e",
        "z",
        "prijmu",
        "zakon",
        "##u",
        ".",
        "[SEP]",
    ] and len(states) == len(pieces)
    np.testing.assert_allclose(mean.passages([text])[0], states.mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cls.passages([text])[0], states[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(states.mean(axis=0), states[0], atol=1e-3)


def test_normalize_module(tmp_path):
    plain = SentenceTransformerEmbedder(st_model(tmp_path / "plain", normalize=False)).passages(TEXTS)
    unit = SentenceTransformerEmbedder(st_model(tmp_path / "unit", normalize=True)).passages(TEXTS)
    norms = np.linalg.norm(plain, axis=1)
    assert np.abs(norms - 1).max() > 1e-2  # without 2_Normalize the vectors are not unit
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(unit, plain / norms[:, None], rtol=1e-5, atol=1e-6)


def test_batching_gives_the_same_vectors(tmp_path):
    directory = st_model(tmp_path / "m")
    batched = SentenceTransformerEmbedder(directory, batch_size=4).passages(TEXTS)  # padded, length-sorted batches
    single = np.stack([SentenceTransformerEmbedder(directory, batch_size=1).passages([t])[0] for t in TEXTS])
    np.testing.assert_allclose(batched, single, rtol=1e-4, atol=1e-5)
    assert len({tuple(np.round(v, 4)) for v in batched}) == len(TEXTS)  # distinct texts, distinct rows, in order
    assert SentenceTransformerEmbedder(directory).passages([]).shape == (0, 8)


def test_prompts_and_include_prompt(tmp_path):
    prompted = SentenceTransformerEmbedder(
        st_model(tmp_path / "p", prompts={"query": "query: ", "passage": "passage: "})
    )
    bare = SentenceTransformerEmbedder(st_model(tmp_path / "bare"))
    np.testing.assert_allclose(prompted.query("soud"), bare.passages(["query: soud"])[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        prompted.passages(["soud"])[0], bare.passages(["passage: soud"])[0], rtol=1e-5, atol=1e-6
    )
    # include_prompt off: [CLS] and the prompt's tokens stay out of the mean, as in sentence-transformers.
    excluded = SentenceTransformerEmbedder(
        st_model(tmp_path / "x", normalize=False, include_prompt=False, prompts={"query": "query: "})
    )
    states = states_of(excluded._encoder, "query: zakon soud")  # [CLS] query : zakon soud [SEP]
    np.testing.assert_allclose(excluded.query("zakon soud"), states[3:].mean(axis=0), rtol=1e-5, atol=1e-6)


def test_cache_key_includes_the_model(tmp_path, fresh_db):
    first = SentenceTransformerEmbedder(st_model(tmp_path / "a", seed=1, hidden=384, layers=1))
    second = SentenceTransformerEmbedder(st_model(tmp_path / "b", seed=2, hidden=384, layers=1))
    assert first.dim == 384 and first.name != second.name and first.name.startswith("st/a@")
    texts = TEXTS[:4]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        vectors, newly = embed_with_cache(conn, first, texts)
        assert newly == 4
        np.testing.assert_allclose(vectors, first.passages(texts), atol=1e-6)
        assert embed_with_cache(conn, first, texts)[1] == 0  # cached
        vectors, newly = embed_with_cache(conn, second, texts)
        assert newly == 4  # another model never reuses the first one's vectors
        np.testing.assert_allclose(vectors, second.passages(texts), atol=1e-6)
        assert not np.allclose(vectors, first.passages(texts), atol=1e-2)
        # New weights in the same directory are another model too.
        write_safetensors(tmp_path / "a" / "model.safetensors", bert_weights(3, 384, 1))
        replaced = SentenceTransformerEmbedder(tmp_path / "a")
        assert replaced.name != first.name
        assert embed_with_cache(conn, replaced, texts)[1] == 4
        models = {m for (m,) in conn.execute("SELECT DISTINCT model FROM embedding_cache")}
        assert models == {first.name, second.name, replaced.name}


def test_model_chosen_by_configuration(tmp_path, monkeypatch):
    monkeypatch.setattr(embed, "_embedders", {})
    directory = st_model(tmp_path / "m384", hidden=384, layers=1)
    monkeypatch.setenv("MENDEL_EMBED_MODEL", str(directory))
    chosen = get_embedder()
    assert isinstance(chosen, SentenceTransformerEmbedder) and chosen.path == directory and chosen.dim == 384
    assert get_embedder() is chosen  # loaded once per process
    with pytest.raises(EmbedderError, match="384"):
        get_embedder(str(st_model(tmp_path / "small")))  # 8 dimensions: the indexes store 384
    with pytest.raises(ValueError, match="unknown embedder"):
        get_embedder(str(tmp_path / "nowhere"))


def test_unusable_directories_are_refused(tmp_path):
    with pytest.raises(EmbedderError, match="modules.json"):
        SentenceTransformerEmbedder(tmp_path)
    with pytest.raises(EmbedderError, match="tokenizers"):
        SentenceTransformerEmbedder(st_model(tmp_path / "unigram", tokenizer_model="Unigram"))
    dense_module = [{"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}]
    with pytest.raises(EmbedderError, match="Dense"):
        SentenceTransformerEmbedder(st_model(tmp_path / "dense", modules_extra=dense_module))
    broken = st_model(tmp_path / "broken")
    weights = bert_weights(1, 8)
    del weights["encoder.layer.1.output.dense.weight"]
    write_safetensors(broken / "model.safetensors", weights)
    with pytest.raises(EmbedderError, match="encoder.layer.1.output.dense.weight"):
        SentenceTransformerEmbedder(broken)


def test_sentence_transformers_package_is_used_when_importable(tmp_path, monkeypatch):
    calls = []

    class StandInModel:
        def __init__(self, path, device=None):
            calls.append(("load", path, device))

        def get_sentence_embedding_dimension(self):
            return 3

        def encode(self, texts, batch_size, prompt, convert_to_numpy, show_progress_bar):
            calls.append(("encode", list(texts), batch_size, prompt))
            return np.asarray([[len(t), 1.0, 0.0] for t in texts])

    module = types.ModuleType("sentence_transformers")
    module.__spec__ = importlib.machinery.ModuleSpec("sentence_transformers", None)
    module.SentenceTransformer = StandInModel
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    directory = st_model(tmp_path / "m", prompts={"query": "query: "})
    embedder = SentenceTransformerEmbedder(directory, batch_size=5)
    assert embedder.backend == "sentence-transformers" and embedder.dim == 3
    np.testing.assert_array_equal(embedder.passages(["ab", "abc"]), [[2, 1, 0], [3, 1, 0]])
    np.testing.assert_array_equal(embedder.query("soud"), [4, 1, 0])
    assert calls == [
        ("load", str(directory), None),
        ("encode", ["ab", "abc"], 5, None),
        ("encode", ["soud"], 5, "query: "),
    ]
    # The same files are the same model, whichever backend runs it: one cache key.
    assert embedder.name == SentenceTransformerEmbedder(directory, backend="numpy").name


# --- faiss-gpu guard (no GPU and no faiss-gpu here: only the fallback and the dispatch are tested) ---------


def test_faiss_without_gpu_builds_on_cpu(tmp_path):
    import faiss

    from mendel.index import dense

    assert dense.faiss_gpus() == 0  # faiss-cpu: no GPU classes
    matrix = dense.normalized(np.random.default_rng(0).standard_normal((300, 384)).astype(np.float32))
    dense.write_faiss(tmp_path / "flat", [str(i) for i in range(300)], matrix, kind="flat")
    assert read_build_info(tmp_path / "flat")["built_on"] == "cpu"
    index = faiss.read_index(str(tmp_path / "flat" / "dense.faiss"))
    assert dense.search_index(index) is index
    assert index.search(matrix[:5], 1)[1].ravel().tolist() == [0, 1, 2, 3, 4]


def test_faiss_gpu_dispatch_with_stand_in_gpu(tmp_path, monkeypatch):
    """With GPU classes present and one GPU reported, flat and IVF-PQ go through index_cpu_to_gpu and come back
    as CPU indexes; HNSW never does. The stand-in 'GPU' index is the CPU index itself."""
    import faiss

    from mendel.index import dense

    moves = []
    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 1)
    monkeypatch.setattr(faiss, "StandardGpuResources", lambda: "resources", raising=False)
    monkeypatch.setattr(faiss, "GpuClonerOptions", types.SimpleNamespace, raising=False)
    monkeypatch.setattr(
        faiss,
        "index_cpu_to_gpu",
        lambda res, device, index, options: moves.append(("to_gpu", type(index).__name__, options.useFloat16)) or index,
        raising=False,
    )
    monkeypatch.setattr(faiss, "index_gpu_to_cpu", lambda index: moves.append(("to_cpu",)) or index, raising=False)
    assert dense.faiss_gpus() == 1
    matrix = dense.normalized(np.random.default_rng(1).standard_normal((400, 384)).astype(np.float32))
    ids = [str(i) for i in range(400)]
    for kind in ("flat", "ivfpq", "hnsw"):
        moves.clear()
        dense.write_faiss(tmp_path / kind, ids, matrix, kind=kind)
        info = read_build_info(tmp_path / kind)
        index = faiss.read_index(str(tmp_path / kind / "dense.faiss"))
        assert index.ntotal == 400 and index.search(matrix[:3], 1)[1].ravel().tolist() == [0, 1, 2]
        if kind == "hnsw":
            assert moves == [] and info["built_on"] == "cpu"
            assert dense.search_index(index) is index
        else:
            assert moves == [("to_gpu", type(index).__name__, True), ("to_cpu",)] and info["built_on"] == "gpu"
            moves.clear()
            dense.search_index(index)
            assert moves == [("to_gpu", type(index).__name__, True)]
    ivfpq = faiss.read_index(str(tmp_path / "ivfpq" / "dense.faiss"))
    assert (ivfpq.nlist, ivfpq.nprobe) == (10, 10)  # nprobe set after the round trip: min(16, lists)
    monkeypatch.setenv("MENDEL_FAISS_GPU", "0")
    assert dense.faiss_gpus() == 0  # turned off by configuration

    def broken():
        raise RuntimeError("CUDA driver version is insufficient")

    monkeypatch.delenv("MENDEL_FAISS_GPU")
    monkeypatch.setattr(faiss, "get_num_gpus", broken)
    assert dense.faiss_gpus() == 0
