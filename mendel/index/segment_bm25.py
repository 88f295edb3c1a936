"""BM25 in segments (mendel.index.segments): each segment keeps a layer's chunk rows (``chunks.jsonl``) and their
postings — per term the rows holding it and how often, per row its length in terms — not scores, because idf and
the mean length belong to the whole live collection and change whenever any document does.

:class:`SegmentedBM25` scores at load what bm25s scores at build: the same Lucene BM25 (k1 1.5, b 0.75), the same
arithmetic step for step (mendel.index.lexical.bm25_score_matrix), over the live rows only — so a layer of many
segments with tombstones scores every row exactly as a layer rebuilt whole from the same chunks, and exactly as
bm25s would; a query then costs what it costs bm25s (one scatter-add per term and segment).
"""

from __future__ import annotations

import heapq
import json
import math
import os
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from mendel.index import segment_updates, segments
from mendel.index.layout import BM25_PART as PART
from mendel.index.layout import CHUNKS
from mendel.index.lexical import token_id_arrays

TERMS = "terms.json"
POSTINGS = ("indptr", "rows", "freqs", "lengths")  # <name>.npy each
K1, B = 1.5, 0.75  # bm25s.BM25() defaults: the whole-rebuild index used them
SCORE_BLOCK = 1 << 20  # postings scored at once at load


def _postings_files(path: Path) -> dict[str, np.ndarray]:
    return {name: np.load(Path(path) / f"{name}.npy", mmap_mode="r") for name in POSTINGS}


def _save(directory: Path, name: str, array: np.ndarray) -> None:
    with (Path(directory) / f"{name}.npy").open("wb") as handle:
        np.save(handle, array)


def _csc(rows: np.ndarray, terms: np.ndarray, freqs: np.ndarray, n_rows: int, n_terms: int):
    """Postings as (indptr over terms, rows ascending within a term, frequencies)."""
    import scipy.sparse as sp

    matrix = sp.csc_matrix((freqs, (rows, terms)), shape=(n_rows, n_terms))
    matrix.sum_duplicates()
    matrix.sort_indices()
    return matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), matrix.data.astype(np.int32)


def write_segment(
    part_dir: Path, layer: int, documents: Sequence[segments.DocumentRows], analyzer: str
) -> segments.Segment:
    """A segment of ``documents`` (sorted by id), each row a ``(chunk_id, bundle row, indexed text)``."""
    documents = sorted(documents, key=lambda d: d.doc_id)
    seg_id = segments.segment_id(PART, layer, [(d.doc_id, d.digest) for d in documents])
    tmp = segments.begin_segment(part_dir, seg_id)
    ids, texts = [], []
    with (tmp / CHUNKS).open("w", encoding="utf-8") as handle:
        for doc in documents:
            for chunk_id, row, text in doc.rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                ids.append(chunk_id)
                texts.append(text)
    flat_ids, lengths, vocabulary = token_id_arrays(texts)
    doc_of_token = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    indptr, rows, freqs = _csc(
        doc_of_token, flat_ids, np.ones(len(flat_ids), dtype=np.int32), len(lengths), len(vocabulary)
    )
    del texts, flat_ids, doc_of_token
    _write_postings(tmp, list(vocabulary), indptr, rows, freqs, lengths.astype(np.int32))
    meta = {"id": seg_id, "part": PART, "layer": layer, "analyzer": analyzer, "vocabulary": len(vocabulary)}
    documents_meta = [(d.doc_id, d.digest, len(d.rows)) for d in documents]
    return segments.Segment.open(segments.finish_segment(tmp, meta, documents_meta, ids))


def _write_postings(directory: Path, terms: list[str], indptr, rows, freqs, lengths) -> None:
    (directory / TERMS).write_text(json.dumps(terms, ensure_ascii=False))
    for name, array in zip(POSTINGS, (indptr, rows, freqs, lengths)):
        _save(directory, name, array)


def _line_offsets(path: Path) -> tuple[np.ndarray, np.ndarray]:
    starts, ends, offset = [], [], 0
    with Path(path).open("rb") as handle:
        for line in handle:
            starts.append(offset)
            offset += len(line)
            ends.append(offset)
    return np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)


def merge_segments(
    part_dir: Path, layer: int, state: segments.PartState, group: Sequence[segments.Segment], analyzer: str
) -> segments.Segment:
    """One segment holding the live rows of ``group`` (documents by id), postings carried over, not re-analysed."""
    documents = segment_updates.merged_documents(state, group)
    seg_id = segments.segment_id(PART, layer, [(d, digest) for _, d, digest, _, _ in documents])
    tmp = segments.begin_segment(part_dir, seg_id)
    new_of_local = {s.id: np.full(s.rows, -1, dtype=np.int64) for s in group}
    position = 0
    for seg, _, _, start, n in documents:
        new_of_local[seg.id][start : start + n] = np.arange(position, position + n)
        position += n
    n_rows = position
    vocabulary: dict[str, int] = {}
    all_rows, all_terms, all_freqs = [], [], []
    lengths = np.zeros(n_rows, dtype=np.int32)
    ids: list[str | None] = [None] * n_rows
    fds = {}
    try:
        for seg in group:
            postings = _postings_files(seg.path)
            new_rows = new_of_local[seg.id]
            kept_rows = new_rows >= 0
            lengths[new_rows[kept_rows]] = postings["lengths"][kept_rows]
            for local, chunk_id in enumerate(seg.chunk_ids()):
                if new_rows[local] >= 0:
                    ids[int(new_rows[local])] = chunk_id
            indptr = np.asarray(postings["indptr"])
            rows = new_rows[np.asarray(postings["rows"])]
            terms_local = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
            keep = rows >= 0
            terms = json.loads((seg.path / TERMS).read_text())
            used = np.unique(terms_local[keep])
            merged_of_local = np.full(len(terms), -1, dtype=np.int64)
            merged_of_local[used] = [vocabulary.setdefault(terms[t], len(vocabulary)) for t in used.tolist()]
            all_rows.append(rows[keep])
            all_terms.append(merged_of_local[terms_local[keep]])
            all_freqs.append(np.asarray(postings["freqs"])[keep])
            fds[seg.id] = os.open(seg.path / CHUNKS, os.O_RDONLY)
        indptr, rows, freqs = _csc(
            np.concatenate(all_rows) if all_rows else np.zeros(0, np.int64),
            np.concatenate(all_terms) if all_terms else np.zeros(0, np.int64),
            np.concatenate(all_freqs) if all_freqs else np.zeros(0, np.int32),
            n_rows,
            len(vocabulary),
        )
        del all_rows, all_terms, all_freqs
        _write_postings(tmp, list(vocabulary), indptr, rows, freqs, lengths)
        offsets = {s.id: _line_offsets(s.path / CHUNKS) for s in group}
        with (tmp / CHUNKS).open("wb") as out:
            for seg, _, _, start, n in documents:
                starts, ends = offsets[seg.id]
                first, last = int(starts[start]), int(ends[start + n - 1])
                out.write(os.pread(fds[seg.id], last - first, first))
    finally:
        for fd in fds.values():
            os.close(fd)
    meta = {"id": seg_id, "part": PART, "layer": layer, "analyzer": analyzer, "vocabulary": len(vocabulary)}
    documents_meta = [(d, digest, n) for _, d, digest, _, n in documents]
    return segments.Segment.open(segments.finish_segment(tmp, meta, documents_meta, ids))


# --- reading ---------------------------------------------------------------------------------------------------


def _live_blocks(indptr: np.ndarray, rows, global_rows: np.ndarray) -> Iterator[tuple[int, np.ndarray, ...]]:
    """The postings of a segment (``indptr`` over terms, ``rows`` their local rows) in blocks of ``SCORE_BLOCK``:
    (first posting, each posting's local term, its local row, whether that row is live)."""
    total = int(indptr[-1])
    for start in range(0, total, SCORE_BLOCK):
        stop = min(start + SCORE_BLOCK, total)
        first = int(np.searchsorted(indptr, start, side="right")) - 1
        last = int(np.searchsorted(indptr, stop - 1, side="right")) - 1
        spans = np.diff(np.clip(indptr[first : last + 2], start, stop))
        terms_at = np.repeat(np.arange(first, last + 1), spans)
        block_rows = np.asarray(rows[start:stop])
        yield start, terms_at, block_rows, global_rows[block_rows] >= 0


class SegmentedBM25:
    """BM25 over a segmented part's live rows, in serving order (:class:`mendel.index.segments.LiveRows`), with
    the bm25s surface serving uses: ``vocab_dict`` (terms with a live row), ``get_scores(tokens)`` (float32 per
    row, bm25s' numbers exactly) and ``scores`` (``num_docs`` and ``indptr``, whose differences are each term's
    live document frequency)."""

    def __init__(self, live: segments.LiveRows, k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self.num_docs = len(live)
        loaded = []
        total_length = 0
        for number, seg in enumerate(live.segments):
            postings = _postings_files(seg.path)
            global_rows = live.global_of_local[number]
            lengths = np.asarray(postings["lengths"])
            total_length += int(lengths[global_rows >= 0].sum(dtype=np.int64))
            loaded.append((seg, postings, global_rows, lengths))
        # lengths.mean() in float64, as bm25s: a sum of integers is exact, so the order of summing is not felt
        avg = np.float64(total_length) / self.num_docs if self.num_docs else np.float64(0)
        self.vocab_dict: dict[str, int] = {}
        parts = []
        for seg, postings, global_rows, lengths in loaded:
            indptr = np.asarray(postings["indptr"])
            live_df = np.zeros(len(indptr) - 1, dtype=np.int64)
            for _, terms_at, _, live in _live_blocks(indptr, postings["rows"], global_rows):
                live_df += np.bincount(terms_at[live], minlength=len(live_df))
            terms = json.loads((seg.path / TERMS).read_text())
            term_ids = np.full(len(terms), -1, dtype=np.int64)
            for local in np.flatnonzero(live_df).tolist():
                term_ids[local] = self.vocab_dict.setdefault(terms[local], len(self.vocab_dict))
            parts.append((indptr, live_df, term_ids, global_rows, lengths, postings))
        df = np.zeros(len(self.vocab_dict), dtype=np.int64)
        for _, live_df, term_ids, *_ in parts:
            used = term_ids >= 0
            np.add.at(df, term_ids[used], live_df[used])
        # idf as bm25s computes it: math.log of Python numbers per distinct df, stored as float32
        distinct, group = np.unique(df, return_inverse=True)
        idf_of_df = np.array(
            [math.log(1 + (self.num_docs - d + 0.5) / (d + 0.5)) if d else 0.0 for d in distinct.tolist()],
            dtype=np.float64,
        )
        idf = np.zeros(len(df), dtype=np.float32)
        idf[:] = idf_of_df[group]
        self.scores = {"num_docs": self.num_docs, "indptr": np.concatenate([[0], np.cumsum(df)])}
        self._segments = []
        for indptr, live_df, term_ids, global_rows, lengths, postings in parts:
            with np.errstate(divide="ignore", invalid="ignore"):
                norm = k1 * ((1 - b) + b * lengths.astype(np.float64) / avg)
            data = np.empty(int(live_df.sum()), dtype=np.float32)
            rows = np.empty(len(data), dtype=np.int32)  # serving rows, as bm25s keeps its indices
            filled = 0
            # block by block: no temporary as long as the postings (at a million passages ~78 M postings, whole-length
            # temporaries were ~1.2 GB of a serving process's peak)
            for start, terms_at, block_rows, live in _live_blocks(indptr, postings["rows"], global_rows):
                local_rows = block_rows[live]
                tf = (
                    np.asarray(postings["freqs"][start : start + len(live)])[live].astype(np.float32).astype(np.float64)
                )
                term = term_ids[terms_at[live]]
                end = filled + len(local_rows)
                data[filled:end] = idf[term].astype(np.float64) * (tf / (norm[local_rows] + tf))
                rows[filled:end] = global_rows[local_rows]
                filled = end
            local_of_term = np.full(len(self.vocab_dict), -1, dtype=np.int64)
            used = np.flatnonzero(term_ids >= 0)
            local_of_term[term_ids[used]] = np.arange(len(used))
            starts = np.concatenate([[0], np.cumsum(live_df[used])])
            self._segments.append((local_of_term, starts, rows, data))
        self._idf = idf

    def get_scores(self, tokens: list[str]) -> np.ndarray:
        """The BM25 score of every live row for ``tokens`` (a repeated token counts again, a token no live row holds
        counts nothing), summed in float32 in the order of the tokens, as bm25s sums them."""
        scores = np.zeros(self.num_docs, dtype=np.float32)
        for token in tokens:
            term = self.vocab_dict.get(token)
            if term is None:
                continue
            for local_of_term, starts, rows, data in self._segments:
                local = local_of_term[term]
                if local >= 0:
                    a, b = starts[local], starts[local + 1]
                    scores[rows[a:b]] += data[a:b]  # a row at most once per term: the same sums as np.add.at
        return scores


# --- the chunk table ---------------------------------------------------------------------------------------------


def chunk_files(live: segments.LiveRows) -> list[Path]:
    return [seg.path / CHUNKS for seg in live.segments]


def scan_live(live: segments.LiveRows) -> Iterator[tuple[int, int, int, int, dict]]:
    """Every live row as (serving row, segment number, start offset, end offset, parsed row), segment by
    segment (not in serving order)."""
    for number, seg in enumerate(live.segments):
        global_rows = live.global_of_local[number]
        with (seg.path / CHUNKS).open("rb") as handle:
            offset = 0
            for local, line in enumerate(handle):
                g = int(global_rows[local])
                if g >= 0:
                    yield g, number, offset, offset + len(line), json.loads(line)
                offset += len(line)


def layer_rows(part_dir: Path) -> Iterator[dict]:
    """The chunk rows of a layer's BM25 part in serving order: documents by id, each document's rows in order."""
    live = segments.LiveRows(part_dir)

    def rows_of(number: int, seg: segments.Segment) -> Iterable[tuple[str, dict]]:
        global_rows = live.global_of_local[number]
        with (seg.path / CHUNKS).open(encoding="utf-8") as handle:
            for local, line in enumerate(handle):
                if global_rows[local] >= 0:
                    row = json.loads(line)
                    yield row["doc_id"], int(global_rows[local]), row

    merged = heapq.merge(*(rows_of(n, s) for n, s in enumerate(live.segments)), key=lambda item: item[1])
    for _, _, row in merged:
        yield row
