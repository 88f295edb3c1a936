"""FAISS inner-product indexes over unit vectors, one per layer, written as one bundle part (``dense.faiss``,
``ids.json``, ``build_info.json``). The kind follows the layer's size: flat, HNSW from ``HNSW_THRESHOLD`` vectors,
HNSW over float16 vectors from ``HNSW_FP16_MIN``, IVF-PQ from ``MENDEL_FAISS_IVFPQ_MIN``. With faiss-gpu and a
visible GPU, flat and IVF-PQ are built and searched on it (``MENDEL_FAISS_GPU=0`` turns that off); the files are the
same either way.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import numpy as np

from mendel.index.bundle import BUILD_INFO, FAISS_INDEX, IDS
from mendel.index.lexical import read_build_info

HNSW_THRESHOLD = 50_000
# From this many vectors a graph keeps them as float16 (768 bytes a vector, not 1,536): at a million passages the
# sections' layer (~420,000 vectors) took 752 MB of a serving process as float32, ~430 MB so. A unit vector's
# components lose ~5e-5 each, an inner product ~1e-4 -- far below the gaps between neighbours that matter here.
HNSW_FP16_MIN = 200_000
HNSW_M = 32
# The graph's build breadth: FAISS's default 40 left the passages' graph of the sample corpus (85,111 e5 vectors)
# agreeing with an exact search on the dev questions' top 10 for 0.842 of the hits at efSearch 512 (the codes'
# questions 0.786: dense alone lost their recall@10 0.800 -> 0.650); 200 agrees for 0.944 (codes 0.928), built in
# 18.0 s instead of 4.7 s, searched as fast (docs/benchmarks.md). A segment records both settings
# (``segment_dense.build_recipe``); one built with others is rebuilt from its vectors by the merges.
HNSW_EF_CONSTRUCTION = 200
# The graph's search breadth: at 128 the passages' top 10 agreed with an exact search for 0.82–0.84 of the hits
# on the whole-corpus bundle (84,672 passages, dev questions; e5 vectors crowd a narrow cone), at 512 for 0.93,
# ~1 ms more a search. Applied when an index is read (:func:`searchable`), so bundles built before follow it.
HNSW_EF_SEARCH = 512
IVF_NPROBE = 16
PQ_CODE_BYTES = 48  # 384 dimensions in 48 sub-vectors of 8, one byte each
KINDS = ("flat", "hnsw", "hnsw_fp16", "ivfpq")
GRAPHS = ("hnsw", "hnsw_fp16")


def ivfpq_threshold(environ: dict[str, str] | None = None) -> int | None:
    value = ((os.environ if environ is None else environ).get("MENDEL_FAISS_IVFPQ_MIN") or "").strip()
    return int(value) if value else None


def choose_kind(n: int, ivfpq_min: int | None = None) -> str:
    if ivfpq_min is not None and n >= ivfpq_min:
        return "ivfpq"
    if n >= HNSW_FP16_MIN:
        return "hnsw_fp16"
    return "hnsw" if n >= HNSW_THRESHOLD else "flat"


def searchable(index):
    """``index`` as read from disk, an HNSW graph searched at least :data:`HNSW_EF_SEARCH` wide."""
    hnsw = getattr(index, "hnsw", None)
    if hnsw is not None and hnsw.efSearch < HNSW_EF_SEARCH:
        hnsw.efSearch = HNSW_EF_SEARCH
    return index


# A filtered search letting at most this many rows through reads them all: exact, and cheaper than the graph's
# filtered walk. A lay question's list over the acts in force (~11,000 of the whole corpus's 84,672 passages) took
# ~0.3 ms that way against ~2 ms through the HNSW graph at efSearch 512, whose filtered walk (most of the graph's
# neighbours filtered out) missed answers the exact search finds: dev codes 2 recall@10 0.808 -> 0.894 on one build
# of the corpus, 0.894 on another with the graph alone (graphs differ build to build). The limit is the one under
# which a whole layer is searched exactly (``HNSW_THRESHOLD``).
EXACT_FILTER_ROWS = HNSW_THRESHOLD
FILTER_SUBSETS_KEPT = 2  # the allowed rows' vectors gathered for the last filters (at most ~77 MB each)


def stored_vectors(index) -> np.ndarray | None:
    """The rows ``index`` stores as they were added (a flat index, an HNSW graph over flat storage), as a read-only
    view of its memory; None for a quantised index."""
    import faiss

    storage = index if isinstance(index, faiss.IndexFlat) else getattr(index, "storage", None)
    if storage is None:
        return None
    storage = faiss.downcast_index(storage)
    if not isinstance(storage, faiss.IndexFlat) or storage.ntotal == 0:
        return None
    return faiss.rev_swig_ptr(storage.get_xb(), storage.ntotal * storage.d).reshape(storage.ntotal, storage.d)


def kept_vectors(index, rows: np.ndarray) -> np.ndarray | None:
    """The vectors of ``rows`` as ``index`` keeps them (float32, or a graph's float16 widened back), for an exact
    search among them; None for an index that keeps only codes (IVF-PQ)."""
    import faiss

    vectors = stored_vectors(index)
    if vectors is not None:
        return np.ascontiguousarray(vectors[rows])
    storage = getattr(index, "storage", None)
    storage = None if storage is None else faiss.downcast_index(storage)
    if not isinstance(storage, faiss.IndexScalarQuantizer):
        return None
    return np.asarray(storage.reconstruct_batch(np.asarray(rows, dtype=np.int64)), np.float32)


class FilteredRows:
    """Exact searches among the rows a filter lets through, their vectors gathered once per index and filter (the
    acts in force are the same filter for every lay question of a bundle)."""

    def __init__(self, kept: int = FILTER_SUBSETS_KEPT):
        self._kept = kept
        self._lock = threading.Lock()
        self._subsets: OrderedDict[tuple, tuple] = OrderedDict()

    def top(self, index, mask: np.ndarray, vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(similarities, rows) of the ``k`` best rows of ``index`` that ``mask`` (a flag a row) lets through, best
        first; None when more than :data:`EXACT_FILTER_ROWS` pass or the index keeps only codes of its vectors
        (:func:`kept_vectors`; the caller then searches the index)."""
        mask = np.asarray(mask, dtype=bool)
        count = int(np.count_nonzero(mask))
        if count == 0 or count > EXACT_FILTER_ROWS or k <= 0:
            return None
        key = (id(index), hashlib.blake2b(np.packbits(mask).tobytes(), digest_size=16).digest())
        with self._lock:
            entry = self._subsets.get(key)
            if entry is not None and entry[0]() is index:
                self._subsets.move_to_end(key)
            else:
                entry = None
        if entry is None:
            import faiss

            rows = np.flatnonzero(mask).astype(np.int64)
            vectors = kept_vectors(index, rows)
            if vectors is None:
                return None
            # a flat FAISS index of the rows, not a numpy product: BLAS's thread team on a busy machine took
            # 10-25 ms for what one thread does in 0.5 ms
            subset = faiss.IndexFlatIP(vectors.shape[1])
            subset.add(vectors)
            entry = (weakref.ref(index), rows, subset)
            with self._lock:
                self._subsets[key] = entry
                while len(self._subsets) > self._kept:
                    self._subsets.popitem(last=False)
        _, rows, subset = entry
        query = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(1, -1))
        sims, local = subset.search(query, min(k, rows.size))
        found = local[0] >= 0
        return sims[0][found], rows[local[0][found]]


FILTERED_ROWS = FilteredRows()


def filtered_search_params(index, selector, k: int):
    """FAISS search parameters for ``index`` with ``selector`` letting rows through: each index kind takes its own
    (an IVF index refuses the generic ones: "IndexIVF params have incorrect type"), a graph searched at least
    ``k`` wide, an IVF index with its own ``nprobe``."""
    import faiss

    hnsw = getattr(index, "hnsw", None)
    if hnsw is not None:
        return faiss.SearchParametersHNSW(sel=selector, efSearch=max(int(hnsw.efSearch), k))
    if isinstance(index, faiss.IndexIVF):
        return faiss.SearchParametersIVF(sel=selector, nprobe=int(index.nprobe))
    return faiss.SearchParameters(sel=selector)


def fingerprint(ids: Sequence[str], vector_hashes: Sequence[str | None]) -> str:
    """Digest of the chunk ids in order and the hash of what each vector was computed from."""
    digest = hashlib.sha256()
    for chunk_id, vector_hash in zip(ids, vector_hashes, strict=True):
        digest.update(f"{chunk_id}:{vector_hash}\n".encode())
    return digest.hexdigest()


def normalized(matrix: np.ndarray) -> np.ndarray:
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


def centroid(vectors: np.ndarray) -> np.ndarray:
    """The unit mean of unit vectors: an L1/L2 chunk's vector from its L3 passages (no model call, and it
    covers the whole span where a 512-token model would see only its start)."""
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    return (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)


def faiss_gpus() -> int:
    """GPUs FAISS can use here: 0 with faiss-cpu (no GPU classes), when none is visible, when the query fails,
    or when ``MENDEL_FAISS_GPU=0``."""
    import faiss

    if os.environ.get("MENDEL_FAISS_GPU", "").strip() == "0":
        return 0
    if not (hasattr(faiss, "StandardGpuResources") and hasattr(faiss, "get_num_gpus")):
        return 0
    try:
        return max(int(faiss.get_num_gpus()), 0)
    except RuntimeError:  # a CUDA build without a usable driver
        return 0


def _gpu_options():
    import faiss

    options = faiss.GpuClonerOptions()
    options.useFloat16 = True  # IVF-PQ with 48 sub-quantisers needs float16 lookup tables on most GPUs
    return options


def search_index(index):
    """``index`` on the GPU where one exists and the kind has a GPU version (flat, IVF), else ``index`` itself."""
    import faiss

    if isinstance(index, faiss.IndexHNSW) or faiss_gpus() == 0:
        return index
    resources = faiss.StandardGpuResources()
    device_index = faiss.index_cpu_to_gpu(resources, 0, index, _gpu_options())
    faiss.add_to_referenced_objects(device_index, resources)  # the GPU memory must live as long as the index
    return device_index


def _ivf_lists(n: int) -> int:
    # ~2·sqrt(n) lists, each with at least ~40 training points (FAISS warns below 39).
    return max(1, min(int(2 * math.sqrt(n)), n // 40))


def build_index(matrix: np.ndarray, kind: str, seed: int = 1234, gpu: bool | None = None):
    """A FAISS index of ``kind`` holding the rows of ``matrix`` (unit vectors) at ids 0..n-1, always a CPU index.
    ``gpu``: train and add on the GPU (default: when :func:`faiss_gpus` finds one; never for HNSW)."""
    import faiss

    n, dim = matrix.shape
    gpu = (faiss_gpus() > 0 if gpu is None else gpu) and kind not in GRAPHS
    sample = matrix
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    elif kind == "hnsw_fp16":
        index = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_fp16, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    elif kind == "ivfpq":
        nlist = _ivf_lists(n)
        code_bytes = max(m for m in range(1, min(PQ_CODE_BYTES, dim) + 1) if dim % m == 0)
        # Built directly: index_factory's IVF-PQ adds polysemous training, costly and of no use to this search.
        # (faiss' Python layer keeps the quantizer alive as long as the index.)
        index = faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, nlist, code_bytes, 8, faiss.METRIC_INNER_PRODUCT)
        index.pq.cp.min_points_per_centroid = 1  # small layers train on what they have, without warnings
        if n > 64 * nlist:  # k-means needs tens of points per list, not all of them
            rows = np.random.default_rng(seed).choice(n, 64 * nlist, replace=False)
            sample = matrix[np.sort(rows)]
    else:
        raise ValueError(f"unknown FAISS index kind {kind!r}; expected one of {KINDS}")
    target = index
    if gpu:
        resources = faiss.StandardGpuResources()
        target = faiss.index_cpu_to_gpu(resources, 0, index, _gpu_options())
    if kind == "ivfpq":
        target.train(sample)
    if n:
        target.add(matrix)
    if gpu:
        index = faiss.index_gpu_to_cpu(target)
        del target, resources
    if kind == "ivfpq":
        index.nprobe = min(IVF_NPROBE, index.nlist)  # stored with the index
    return index


def is_current(out_dir: Path, digest: str, kind: str) -> bool:
    info = read_build_info(out_dir)
    return (
        info.get("fingerprint") == digest and info.get("index_type") == kind and (Path(out_dir) / FAISS_INDEX).exists()
    )


def write_faiss(
    out_dir: Path,
    ids: Sequence[str],
    matrix: np.ndarray,
    *,
    kind: str | None = None,
    digest: str | None = None,
    dim: int = 384,
) -> dict:
    """Write the index of ``matrix`` (row i belongs to ``ids[i]``; rows are normalised here) into ``out_dir``."""
    import faiss

    matrix = np.asarray(matrix, dtype=np.float32).reshape(len(ids), dim)
    kind = kind or choose_kind(len(ids), ivfpq_threshold())
    if kind == "ivfpq" and len(ids) < 40:
        kind = "flat"  # too few vectors to train a quantiser
    gpu = faiss_gpus() > 0 and kind not in GRAPHS
    index = build_index(normalized(matrix), kind, gpu=gpu)
    out_dir = Path(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    faiss.write_index(index, str(out_dir / FAISS_INDEX))
    (out_dir / IDS).write_text(json.dumps(list(ids)))
    info = {"vectors": len(ids), "index_type": kind, "dim": dim}
    (out_dir / BUILD_INFO).write_text(
        json.dumps({**info, "fingerprint": digest, "built_on": "gpu" if gpu else "cpu"}, indent=1)
    )
    return info


def parse_vector(text: str) -> np.ndarray:
    """A pgvector text value ``[0.1,0.2,...]`` as float32."""
    return np.asarray(text.strip("[]").split(","), dtype=np.float32)
