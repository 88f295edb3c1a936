"""BM25 (bm25s) over the Czech analyser, written as one bundle part.

A part directory holds ``bm25/`` (bm25s' own files), ``ids.json`` (row i of the index -> chunk id) and
``build_info.json`` (the input fingerprint, so an unchanged corpus is not re-indexed).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from array import array
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

# TOKEN_RE and _term are analyze()'s own two steps; token_id_arrays applies them with a per-token cache and
# tests/mendel/index/test_bm25_build.py proves its ids equal those of analyze() text by text.
from mendel.czech.analyzer import TOKEN_RE, _term
from mendel.index.layout import BM25_INDEX, BUILD_INFO, IDS

# Bump when the analyser's output changes: indexes built with the old one must be rebuilt.
ANALYZER_VERSION = "cs-1"


def fingerprint(ids: Sequence[str], texts: Sequence[str]) -> str:
    """Digest of what an index is built from: the chunk ids in order and the text indexed for each."""
    digest = hashlib.sha256(ANALYZER_VERSION.encode())
    for chunk_id, text in zip(ids, texts, strict=True):
        digest.update(chunk_id.encode())
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def read_build_info(out_dir: Path) -> dict:
    try:
        return json.loads((Path(out_dir) / BUILD_INFO).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def is_current(out_dir: Path, digest: str) -> bool:
    """The part in ``out_dir`` is complete and was built from inputs with this fingerprint."""
    out_dir = Path(out_dir)
    return read_build_info(out_dir).get("fingerprint") == digest and (out_dir / IDS).exists()


class _TermIdsByToken(dict):
    """Raw token (as TOKEN_RE finds it in lower-cased text) -> vocabulary id, or -1 for a dropped token. A miss
    analyses the token once and gives a new term the next id, so ids keep the order of first use."""

    def __init__(self, vocabulary: dict[str, int]):
        super().__init__()
        self.vocabulary = vocabulary

    def __missing__(self, raw: str) -> int:
        term = _term(raw)
        term_id = -1 if term is None else self.vocabulary.setdefault(term, len(self.vocabulary))
        self[raw] = term_id
        return term_id


def token_id_arrays(texts: Iterable[str]) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Analysed texts as term ids: every text's ids one after another (int32), each text's number of terms
    (int64) and the vocabulary (ids in order of first use, so a rebuild of the same corpus writes the same files). Four bytes a token and a dict lookup in C per token instead of Python
    calls, so a million chunks fit in memory and analyse in a fraction of the time."""
    vocabulary: dict[str, int] = {}
    term_id = _TermIdsByToken(vocabulary).__getitem__
    flat = array("i")
    lengths = array("q")
    dropped = array("q")
    for text in texts:
        ids = list(map(term_id, TOKEN_RE.findall(text.lower())))
        flat.extend(ids)
        lengths.append(len(ids))
        dropped.append(ids.count(-1))
    flat_ids = np.frombuffer(flat, dtype=np.int32) if len(flat) else np.zeros(0, dtype=np.int32)
    lengths_array = np.frombuffer(lengths, dtype=np.int64) if len(lengths) else np.zeros(0, dtype=np.int64)
    dropped_array = np.frombuffer(dropped, dtype=np.int64) if len(dropped) else np.zeros(0, dtype=np.int64)
    if dropped_array.any():
        flat_ids = flat_ids[flat_ids >= 0]
        lengths_array = lengths_array - dropped_array
    return flat_ids, lengths_array, vocabulary


# The vectorised builder reproduces bm25s 0.3.16's index() arithmetic (scoring._build_scores_and_indices_for_matrix
# under NumPy 2 promotion rules) for its "lucene" method; any other version or setting uses bm25s' own indexer.
BM25S_VERSION_MATCHED = "0.3.16"
# Score entries computed per block: bounds the float64 temporaries at a million chunks.
SCORE_BLOCK = 1 << 20


def _vectorised_build_applies(retriever) -> bool:
    import bm25s

    return (
        bm25s.__version__ == BM25S_VERSION_MATCHED
        and int(np.__version__.split(".")[0]) >= 2
        and retriever.method == "lucene"
        and retriever.idf_method == "lucene"
        and np.dtype(retriever.dtype) == np.float32
        and np.dtype(retriever.int_dtype) == np.int32
    )


def bm25_score_matrix(
    flat_ids: np.ndarray,
    lengths: np.ndarray,
    n_vocab: int,
    k1: float = 1.5,
    b: float = 0.75,
    dtype="float32",
    int_dtype="int32",
) -> dict:
    """bm25s' ``scores`` dict (CSC over documents x terms: data, indices, indptr, num_docs) for term ids
    ``flat_ids`` split into documents of ``lengths``, with bm25s' Lucene BM25 arithmetic step for step: idf in
    Python floats stored as float32, the tf component in float64, the product rounded once to float32."""
    import scipy.sparse as sp

    n_docs = len(lengths)
    lengths = np.asarray(lengths, dtype=np.int64)
    # Counting term occurrences per document: a CSR row per document with every token as an entry, turned
    # column-major (scipy keeps rows ascending within a column) and with duplicates summed.
    doc_ptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_ptr[1:])
    tokens = sp.csr_matrix((np.ones(len(flat_ids), dtype=np.int32), flat_ids, doc_ptr), shape=(n_docs, n_vocab))
    counts = tokens.tocsc()
    del tokens
    counts.sum_duplicates()
    term_freqs, doc_of_entry = counts.data, counts.indices.astype(int_dtype, copy=False)
    indptr = counts.indptr.astype(np.int64)
    del counts
    doc_freqs = np.diff(indptr)

    # idf per term as bm25s computes it: math.log of Python floats, then stored into a float32 array.
    idf = np.zeros(n_vocab, dtype=dtype)
    distinct_dfs, df_group = np.unique(doc_freqs, return_inverse=True)
    idf_of_df = np.array(
        [math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) if df else 0.0 for df in distinct_dfs.tolist()],
        dtype=np.float64,
    )
    idf[:] = idf_of_df[df_group]
    # Per-document length normalisation, in float64 like bm25s' numpy-scalar expression.
    avg_doc_len = lengths.mean() if n_docs else np.float64(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        norm_of_doc = k1 * ((1 - b) + b * lengths.astype(np.float64) / avg_doc_len)

    data = np.empty(len(term_freqs), dtype=dtype)
    for start in range(0, len(data), SCORE_BLOCK):
        end = min(start + SCORE_BLOCK, len(data))
        term_of_entry = np.searchsorted(indptr, np.arange(start, end), side="right") - 1
        tf = term_freqs[start:end].astype(dtype).astype(np.float64)
        tfc = tf / (norm_of_doc[doc_of_entry[start:end]] + tf)
        data[start:end] = idf[term_of_entry].astype(np.float64) * tfc
    return {"data": data, "indices": doc_of_entry, "indptr": indptr, "num_docs": n_docs}


def write_bm25(out_dir: Path, ids: Sequence[str], texts: Iterable[str], digest: str | None = None) -> dict:
    """Index ``texts`` (row i belongs to ``ids[i]``) into ``out_dir``, replacing what was there."""
    import bm25s
    from bm25s.tokenization import Tokenized

    out_dir = Path(out_dir)
    flat_ids, lengths, vocabulary = token_id_arrays(texts)
    if len(lengths) != len(ids):
        raise ValueError(f"{len(ids)} ids for {len(lengths)} texts")
    if not len(lengths):
        # bm25s can't index nothing; one empty row keeps the files loadable and ids.json says there is no chunk.
        flat_ids, lengths, vocabulary = np.zeros(1, np.int32), np.ones(1, np.int64), {"": 0}
    retriever = bm25s.BM25()
    if _vectorised_build_applies(retriever):
        retriever.scores = bm25_score_matrix(
            flat_ids,
            lengths,
            len(vocabulary),
            k1=retriever.k1,
            b=retriever.b,
            dtype=retriever.dtype,
            int_dtype=retriever.int_dtype,
        )
        retriever.nonoccurrence_array = None
        # As bm25s.BM25.index(create_empty_token=True): an empty term after the last id (no column of its own).
        if "" not in vocabulary:
            vocabulary[""] = max(vocabulary.values(), default=-1) + 1
        retriever.vocab_dict = vocabulary
        retriever.unique_token_ids_set = set(vocabulary.values())
    else:
        ends = np.cumsum(lengths)
        corpus = [flat_ids[end - length : end].tolist() for end, length in zip(ends.tolist(), lengths.tolist())]
        retriever.index(Tokenized(ids=corpus, vocab=vocabulary), show_progress=False)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    retriever.save(str(out_dir / BM25_INDEX))
    (out_dir / IDS).write_text(json.dumps(list(ids)))
    info = {"chunks": len(ids), "vocabulary": len(retriever.vocab_dict), "analyzer": ANALYZER_VERSION}
    (out_dir / BUILD_INFO).write_text(json.dumps({**info, "fingerprint": digest}, indent=1))
    return info
