"""BM25 over PostgreSQL's lexemes as bm25s scores it (``serving.ranking.pg_lists``): the query terms' postings (the
live passages holding a term, with its frequency in each) read from ``chunks.lexemes``, then scored in memory.

Reading a term's frequencies means detoasting the lexemes of every passage read (about 10 µs a passage: 160 ms for a
term in 16,000 of 100,000 passages). The candidates are the passages holding the query's rarest terms (its
selective terms); those terms' postings are read whole and kept per searcher (the live passages change only when a
bundle is published; the most recently used up to ``POSTINGS_KEPT`` entries in all), since a common word that is
the rarest of its query ("pokud by mu bylo možno") costs that much each time. The other terms not kept are read
whole as well when they are in fewer passages than the candidates, else over the candidates only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from mendel.index.fulltext import tsquery_literal
from serving.ranking.graph_retrieval import top_positions
from serving.ranking.pg_sql import TERM_FREQUENCIES

POSTINGS_KEPT = 4_000_000  # (passage, frequency) entries kept per searcher: about 50 MB


class Postings:
    """Term -> (rows of the live passages holding it, ascending; its frequency in each), read on demand."""

    def __init__(self, layer, kept: int = POSTINGS_KEPT):
        self._layer, self._kept = layer, kept
        self._terms: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._entries = 0
        self._lock = threading.Lock()

    def of(
        self, conn, selective: list[str], others: list[str], frequency: dict[str, int]
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Postings of the ``selective`` terms (whole: their passages are the candidates) and of the ``others``
        (``frequency``: each term's number of passages), what is not kept read in one statement: the others not
        kept read whole too (and kept) when that reads fewer passages than the candidates are, else over the
        candidates only (a common term costs little there, all its passages a lot)."""
        with self._lock:
            found = {t: self._terms[t] for t in (*selective, *others) if t in self._terms}
            for term in found:
                self._terms.move_to_end(term)
        unread = [t for t in selective if t not in found]
        rest = [t for t in others if t not in found]
        if not (unread or rest):
            return found
        whole = sum(frequency[t] for t in rest) <= sum(frequency[t] for t in selective)
        # the passages holding a term read whole, or every candidate when another term is read over them
        read = self._read(conn, unread + rest if whole else selective, unread + rest)
        found.update(read)
        self._keep({t: read[t] for t in (unread + rest if whole else unread)})
        return found

    def _keep(self, read: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        with self._lock:
            for term, postings in read.items():
                if term not in self._terms:
                    self._terms[term] = postings
                    self._entries += len(postings[0])
            while self._entries > self._kept and len(self._terms) > 1:
                _, (rows, _) = self._terms.popitem(last=False)
                self._entries -= len(rows)

    def _read(self, conn, matching: list[str], terms: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The postings of ``terms`` over the passages holding any of ``matching``."""
        position = self._layer.position
        rows: dict[str, list[int]] = {t: [] for t in terms}
        counts: dict[str, list[int]] = {t: [] for t in terms}
        values = {"any": tsquery_literal(matching), "terms": terms, "docs": None}
        for chunk_id, term, frequency in conn.execute(TERM_FREQUENCIES, values):
            row = position(chunk_id)
            if row is not None and term in rows:  # a passage no longer live, or a lexeme marked before
                rows[term].append(row)
                counts[term].append(frequency)
        found = {}
        for term in terms:
            order = np.argsort(rows[term], kind="stable")
            found[term] = (
                np.asarray(rows[term], dtype=np.int64)[order],
                np.asarray(counts[term], dtype=np.float64)[order],
            )
        return found


def bm25_top(
    postings: dict[str, tuple[np.ndarray, np.ndarray]],
    weight: dict[str, float],
    selective: list[str],
    norms: np.ndarray,
    n: int,
    allowed: np.ndarray | None,
) -> list[tuple[int, float]]:
    """The best ``n`` rows (of ``allowed``) among those holding a ``selective`` term, by BM25 as bm25s scores it (its
    "lucene" method: no (k1 + 1) factor): the sum over the terms of ``weight`` (idf times the term's weight in the
    query) x tf / (tf + ``norms`` (k1 (1 - b + b length / mean length), by row)). Ties in row order."""
    candidates = np.unique(np.concatenate([postings[t][0] for t in selective]))
    if allowed is not None:
        candidates = candidates[allowed[candidates]]
    if not candidates.size:
        return []
    scores = np.zeros(len(candidates), dtype=np.float64)
    for term, w in weight.items():
        rows, frequency = postings[term]
        at = np.searchsorted(candidates, rows)
        held = at < len(candidates)
        held[held] = candidates[at[held]] == rows[held]
        tf = frequency[held]
        scores[at[held]] += w * tf / (tf + norms[rows[held]])
    best = top_positions(scores, n)
    return [(int(candidates[i]), float(scores[i])) for i in best]
