"""The vector index in segments (mendel.index.segments): one FAISS index per segment over its rows (local ids), of
the kind the layer's size asks for (mendel.index.dense.choose_kind) unless the segment is small enough to search
exactly; searched segment by segment and merged.

:class:`SegmentedVectors` reproduces what one FAISS index over the live rows returns, tie for tie: FAISS keeps the
lowest ids among equal similarities and lists equal similarities highest id first, and a search among some rows
either over-fetches and filters or selects ids as ``serving.ranking.dense.nearest`` does. Over exact (flat)
segments the hits are those of a flat index rebuilt whole; over HNSW or IVF-PQ segments each segment is searched
approximately, as Lucene searches one graph per segment, so the hits are those of another approximate index.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from mendel.index import dense, segment_updates, segments

PART = "dense"
FAISS_FILE = "dense.faiss"
VECTORS = "vectors.npy"  # kept beside an index that cannot give its vectors back exactly (IVF-PQ, float16), for merges
# what each kind keeps of a vector: the float32 itself, float16 widened back (exact for a similarity computed again
# the same way wherever a row sits), or only a code
KEEPS_VECTORS = ("flat", "hnsw", "hnsw_fp16")
KEEPS_FLOAT32 = ("flat", "hnsw")
# A segment this small is searched exactly whatever the layer's size: a graph or quantiser buys nothing there.
EXACT_MAX_ROWS = 2_000
DIM = 384  # a part without segments: the dimension of the default encoder
# How far FAISS's float32 inner product of unit vectors may be from the exact one (a bound, with room), and the
# most candidates one segment is asked for while a run of equal similarities reaches past the last one fetched.
FAISS_ERROR = 1e-5
MAX_FETCH = 4096


def segment_kind(rows: int, layer_rows: int, ivfpq_min: int | None = None) -> str:
    """The FAISS kind of a segment of ``rows`` in a layer of ``layer_rows`` live rows."""
    kind = dense.choose_kind(layer_rows, ivfpq_min)
    if kind == "flat" or rows <= EXACT_MAX_ROWS:
        return "flat"
    if kind == "ivfpq" and rows < dense.HNSW_THRESHOLD:
        return "hnsw"  # a quantiser trained on few vectors is a poor one
    return kind


def build_recipe(kind: str) -> str | None:
    """The settings a segment of ``kind`` is built with, for the kinds that have any of their own (a graph's
    neighbours and build breadth); None for the others."""
    if kind in dense.GRAPHS:
        return f"{kind} M={dense.HNSW_M} efConstruction={dense.HNSW_EF_CONSTRUCTION}"
    return None


def outdated(seg: segments.Segment) -> bool:
    """A graph segment built with settings other than today's, or before its segment recorded them (the graphs
    built 40 wide): the merges rebuild it from its own vectors (``mendel.index.segment_updates.plan_merges``)."""
    kind = seg.meta.get("index_type")
    return kind in dense.GRAPHS and seg.meta.get("recipe") != build_recipe(kind)


def write_segment(
    part_dir: Path,
    layer: int,
    documents: Sequence[segments.DocumentRows],
    vectors: np.ndarray,
    kind: str,
    dim: int,
    unit: bool = False,
) -> segments.Segment:
    """A segment of ``documents`` (each row a chunk id) whose rows are ``vectors`` in that order, normalised here
    unless ``unit`` (vectors of a segment already: normalising again would move their last bits)."""
    import faiss

    order = sorted(range(len(documents)), key=lambda i: documents[i].doc_id)
    starts = np.concatenate([[0], np.cumsum([len(d.rows) for d in documents])])
    documents = [documents[i] for i in order]
    matrix = np.concatenate([vectors[starts[i] : starts[i + 1]] for i in order]) if order else vectors[:0]
    matrix = np.ascontiguousarray(matrix, dtype=np.float32).reshape(-1, dim)
    matrix = matrix if unit else dense.normalized(matrix)
    ids = [chunk_id for d in documents for chunk_id in d.rows]
    kind = "flat" if kind == "ivfpq" and len(ids) < 40 else kind
    recipe = build_recipe(kind)
    seg_id = segments.segment_id(PART, layer, [(d.doc_id, d.digest) for d in documents], recipe or "")
    tmp = segments.begin_segment(part_dir, seg_id)
    faiss.write_index(dense.build_index(matrix, kind), str(tmp / FAISS_FILE))
    if kind not in KEEPS_FLOAT32:
        with (tmp / VECTORS).open("wb") as handle:
            np.save(handle, matrix)
    meta = {"id": seg_id, "part": PART, "layer": layer, "index_type": kind, "dim": dim}
    if recipe:
        meta["recipe"] = recipe
    return segments.Segment.open(
        segments.finish_segment(tmp, meta, [(d.doc_id, d.digest, len(d.rows)) for d in documents], ids)
    )


def segment_vectors(seg: segments.Segment) -> np.ndarray:
    """Every row's unit vector, as stored."""
    import faiss

    if (seg.path / VECTORS).exists():
        return np.load(seg.path / VECTORS)
    index = faiss.read_index(str(seg.path / FAISS_FILE))
    return index.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, seg.meta["dim"]), np.float32)


def merge_segments(
    part_dir: Path, layer: int, state: segments.PartState, group: Sequence[segments.Segment], kind: str
) -> segments.Segment:
    """One segment holding the live rows of ``group`` (documents by id), their vectors carried over."""
    documents = segment_updates.merged_documents(state, group)
    stored = {seg.id: segment_vectors(seg) for seg in group}
    local_ids = {seg.id: seg.chunk_ids() for seg in group}
    rows = [
        segments.DocumentRows(doc_id, digest, local_ids[seg.id][start : start + n])
        for seg, doc_id, digest, start, n in documents
    ]
    dim = group[0].meta["dim"]
    blocks = [stored[seg.id][start : start + n] for seg, _, _, start, n in documents]
    matrix = np.concatenate(blocks) if blocks else np.zeros((0, dim), np.float32)
    return write_segment(part_dir, layer, rows, matrix, kind, dim, unit=True)


# --- reading ---------------------------------------------------------------------------------------------------


def layer_vectors(part_dir: Path) -> np.ndarray:
    """The vectors of a segmented part's live rows in serving order (as stored: IVF-PQ segments keep theirs)."""
    live = segments.LiveRows(part_dir)
    matrix = np.zeros((len(live), live.segments[0].meta["dim"] if live.segments else DIM), dtype=np.float32)
    for number, seg in enumerate(live.segments):
        rows = live.global_of_local[number]
        matrix[rows[rows >= 0]] = segment_vectors(seg)[rows >= 0]
    return matrix


class SegmentedVectors:
    """The vectors of a segmented part's live rows in serving order (:class:`mendel.index.segments.LiveRows`), with
    the surface serving uses of a FAISS index: ``ntotal``, ``reconstruct(row)`` and :meth:`nearest`."""

    def __init__(self, live: segments.LiveRows):
        import faiss

        self.live = live
        self.ntotal = len(live)
        self.indexes = []
        for number, seg in enumerate(live.segments):
            index = dense.searchable(faiss.read_index(str(seg.path / FAISS_FILE)))
            global_rows = live.global_of_local[number]
            self.indexes.append((index, global_rows, bool((global_rows < 0).any())))
        # each segment's live rows as a mask and as the bitmap FAISS reads, made once: most searches filter nothing
        self.live_masks = [global_rows >= 0 for _, global_rows, _ in self.indexes]
        self.live_bits = [np.packbits(mask, bitorder="little") for mask in self.live_masks]
        # where the stored vectors come back as stored (flat, HNSW, float16 HNSW), similarities are computed from them
        self.exact = [seg.meta["index_type"] in KEEPS_VECTORS for seg in live.segments]
        self.flat = [seg.meta["index_type"] == "flat" for seg in live.segments]
        self.d = live.segments[0].meta["dim"] if live.segments else DIM
        self.kinds = sorted({seg.meta["index_type"] for seg in live.segments})

    def reconstruct(self, row: int) -> np.ndarray:
        index, _, _ = self.indexes[int(self.live.segment[row])]
        return index.reconstruct(int(self.live.local[row]))

    def _faiss_top(
        self, number: int, vector: np.ndarray, k: int, mask: np.ndarray | None, bits: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """FAISS's best ``k`` of segment ``number`` among the local rows ``mask`` lets through (all when None):
        (similarities as FAISS computed them, local rows), best first. A mask is a bitmap FAISS reads row by row
        as it scans (one bit test a row: tombstones cost next to nothing)."""
        import faiss

        index = self.indexes[number][0]
        if mask is None:
            sims, ids = index.search(vector, min(k, index.ntotal))
        else:
            wanted = int(np.count_nonzero(mask))
            if wanted == 0:
                return np.zeros(0, np.float32), np.zeros(0, np.int64)
            if getattr(index, "hnsw", None) is not None:  # few rows let through: read them all, exactly
                found = dense.FILTERED_ROWS.top(index, mask, vector, k)
                if found is not None:
                    return found
            bits = np.packbits(mask, bitorder="little") if bits is None else bits
            selector = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits))
            params = dense.filtered_search_params(index, selector, k)
            sims, ids = index.search(vector, min(k, wanted), params=params)
            del bits, selector  # read by FAISS until here
        keep = ids[0] >= 0
        return sims[0][keep], ids[0][keep]

    def _top(self, number: int, vector: np.ndarray, k: int, allowed: np.ndarray | None) -> list[tuple[float, int]]:
        """Up to ``k`` (similarity, serving row) of segment ``number`` among its live rows that ``allowed`` (over
        serving rows) lets through: the best by similarity, lower rows first among equals.

        FAISS's similarities differ in the last bits with a row's place in its index (its kernels work on blocks
        of rows), so the candidates' similarities are computed again from their stored vectors, the same wherever
        a row sits; FAISS is asked for more until every row it left out is certainly below the last one kept."""
        index, global_rows, has_deleted = self.indexes[number]
        if index.ntotal == 0 or k <= 0:
            return []
        mask = bits = None
        if allowed is not None:
            mask = self.live_masks[number] & allowed[np.maximum(global_rows, 0)]
        elif has_deleted:
            mask, bits = self.live_masks[number], self.live_bits[number]
        exact = self.exact[number]
        # an exhaustive (flat) segment is asked for more until ties at the cut are settled; a graph or quantiser
        # search is approximate whatever it is asked for, so it is asked for what is wanted
        flat = self.flat[number]
        fetch = 2 * k if flat else k
        while True:
            faiss_sims, local = self._faiss_top(number, vector, fetch, mask, bits)
            if exact and len(local):
                stored = np.asarray(index.reconstruct_batch(local.astype(np.int64)), dtype=np.float64)
                sims = (stored @ vector[0].astype(np.float64)).astype(np.float32)
            else:
                sims = faiss_sims
            found = sorted(zip(sims.tolist(), global_rows[local].tolist()), key=lambda item: (-item[0], item[1]))[:k]
            exhausted = len(local) < fetch or fetch >= MAX_FETCH
            if not flat or exhausted or len(found) < k or float(faiss_sims[-1]) < found[-1][0] - FAISS_ERROR:
                return found
            fetch *= 2

    def _best(self, vector: np.ndarray, k: int, allowed: np.ndarray | None) -> list[tuple[float, int]]:
        """The ``k`` best over every segment, listed as FAISS lists them: by similarity, higher rows first among
        equals (having kept the lower rows among equals)."""
        found = [hit for number in range(len(self.indexes)) for hit in self._top(number, vector, k, allowed)]
        kept = sorted(found, key=lambda item: (-item[0], item[1]))[:k]
        return sorted(kept, key=lambda item: (-item[0], -item[1]))

    def nearest(self, vector: np.ndarray, n: int, allowed: np.ndarray | None) -> tuple[list[int], list[float]]:
        """``serving.ranking.dense.nearest`` over the live rows: the ``n`` nearest among ``allowed`` (all when None)."""
        vector = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1)
        if self.ntotal == 0:
            return [], []
        if allowed is None:
            best = self._best(vector, min(n, self.ntotal), None)
        else:
            excluded = int(self.ntotal - np.count_nonzero(allowed[: self.ntotal]))
            if excluded <= n:  # as one index: the best n + excluded, less those
                best = [hit for hit in self._best(vector, min(n + excluded, self.ntotal), None) if allowed[hit[1]]][:n]
            else:
                wanted = self.ntotal - excluded
                best = self._best(vector, min(n, wanted), allowed) if wanted else []
        return [row for _, row in best], [sim for sim, _ in best]

    def search(self, vectors: np.ndarray, k: int):
        """FAISS's ``search`` for one or more query vectors: (similarities, rows), -1 where fewer than ``k``."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.d)
        sims = np.full((len(vectors), k), -np.inf, dtype=np.float32)
        rows = np.full((len(vectors), k), -1, dtype=np.int64)
        for q, vector in enumerate(vectors):
            found, scores = self.nearest(vector, k, None)
            rows[q, : len(found)], sims[q, : len(found)] = found, scores
        return sims, rows
