"""BM25 over the stored postings (the passages' ``chunk_postings``, migration 0034; the document and section layers'
``layer_postings``, migration 0035) as bm25s scores it, for ``serving.ranking.pg_lists``: the same numbers as the
bundle's index of the layer, bit for bit, and the same best ``n``.

The arithmetic is the bundle's (``mendel.index.segment_bm25.SegmentedBM25``, bm25s' "lucene" method): a term's idf
computed in Python floats and rounded to float32, each (term, passage) contribution idf x tf / (tf + k1 (1 - b + b
length / mean length)) computed in float64 and rounded to float32, a passage's score the float32 sum of its
contributions in the order of the query's tokens (a repeated token counts again), the expansion's terms' sum
weighted after.

Reading every posting of a query whose terms are all common costs most (a term in half of 100,000 passages is
50,000 postings), so the best ``n`` are found MaxScore-wise. The postings of the rare terms are read whole (their
document frequency is told by them) with those of the common terms kept from earlier queries; the passages they hold
are the candidates. The other common terms are read whole, rarest first, only until what they could add at most
(each contribution is below the term's idf times its weight in the query; once a term was read, below its largest
contribution) is less than a score the ``n``-th best reaches (the ``n``-th best candidate's score so far, or the
lowest full score of the ``n`` best candidates, the unread terms looked up for them): no passage outside the
candidates can then be among the best ``n``, nor a candidate whose score so far plus that most is below it. The
unread terms' postings are looked up for the candidates left, and those are scored exactly.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from mendel.index.fulltext import MAX_LEXEME_CHARS
from serving.ranking.graph_retrieval import top_positions
from serving.ranking.pg_sql import LAYER_POSTINGS, LAYER_POSTINGS_OF, POSTINGS, POSTINGS_OF

POSTINGS_KEPT = 4_000_000  # (passage, contribution) entries kept per searcher: about 50 MB
# Bounds are compared with this much room: a float32 sum of a few terms differs from the float64 sum of the same
# float32 contributions by far less (2**-24 per addition).
ROUNDING_ROOM = 1e-5
# A term's postings are read whole rather than looked up for the candidates left when it is in fewer passages than
# this many times the candidates: a posting read in a range costs about a tenth of one looked up (at 100,000
# passages: ~0.2-0.4 us against ~3-4 us), and a lookup of thousands of passages reads most of the range anyway.
LOOKUP_COST = 10
_POSTING = np.dtype([("passage", ">i4"), ("frequency", ">i2")])  # int4send || int2send, as POSTINGS sends them
_LAYER_POSTING = np.dtype([("passage", ">i4"), ("frequency", ">i4")])  # int4send || int4send: LAYER_POSTINGS


@dataclass(frozen=True)
class PostingsTable:
    """Where a layer's postings are read: the statement for whole terms, the one for some passages, the packed
    posting's layout and the statements' other values."""

    whole: str
    some: str
    posting: np.dtype
    values: tuple = ()

    @staticmethod
    def of_layer(layer: int) -> "PostingsTable":
        """The passages' ``chunk_postings`` (layer 3), an upper layer's rows of ``layer_postings``."""
        if layer == 3:
            return PostingsTable(POSTINGS, POSTINGS_OF, _POSTING)
        return PostingsTable(LAYER_POSTINGS, LAYER_POSTINGS_OF, _LAYER_POSTING, (("layer", layer),))


@dataclass(frozen=True)
class Term:
    """One term's live postings: rows (in no order), and the term's float32 BM25 contribution in each."""

    rows: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)


class BM25Postings:
    """The live passages' BM25 over ``chunk_postings``: ``layer`` gives the rows (``row_of_key``: a passage key's
    row, -1 when not live) and lengths (``lengths``: tokens by row); ``common`` the document frequency of each term
    in at least as many live passages as the searcher counted at load (every other term's is told by reading its
    postings, which are few)."""

    def __init__(
        self,
        layer,
        common: dict[str, int],
        k1: float,
        b: float,
        kept: int = POSTINGS_KEPT,
        table: PostingsTable | None = None,
    ):
        self._table = table or PostingsTable.of_layer(3)
        self._row_of_key = layer.row_of_key
        self._key_of_row = np.full(len(layer.lengths), -1, dtype=np.int64)
        keys = np.flatnonzero(self._row_of_key >= 0)
        self._key_of_row[self._row_of_key[keys]] = keys
        self.total = len(layer.lengths)
        lengths = layer.lengths
        average = np.float64(lengths.sum()) / self.total if self.total else np.float64(0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self._norms = k1 * ((1 - b) + b * lengths.astype(np.float64) / average)  # bm25s' expression, by row
        self._common = common
        self._kept = kept
        self._terms: OrderedDict[str, Term] = OrderedDict()
        self._largest: dict[str, float] = {}  # a term's largest contribution, once its postings were read whole
        self._entries = 0
        self._lock = threading.Lock()

    # --- document frequencies and idf -----------------------------------------------------------------------

    def counted_at_load(self, terms) -> dict[str, int]:
        """Terms -> their passages as counted at load: exact for the common terms, 0 for every other."""
        return {t: self._common.get(t, 0) for t in terms}

    def frequencies(self, conn, terms) -> dict[str, int]:
        """Terms -> the number of live passages holding each: the common terms' counted at load, every other
        one's by its postings (read whole, and kept)."""
        rare = [t for t in dict.fromkeys(terms) if t not in self._common and len(t) <= MAX_LEXEME_CHARS]
        found = self.whole(conn, rare) if rare else {}
        return {t: self._common[t] if t in self._common else len(found.get(t, ())) for t in terms}

    def idf32(self, frequency: int) -> np.float32:
        """bm25s' idf of a term in ``frequency`` live passages: Python floats, stored as float32."""
        return np.float32(math.log(1 + (self.total - frequency + 0.5) / (frequency + 0.5)))

    def _contributions(self, rows: np.ndarray, frequency: np.ndarray, df: int) -> np.ndarray:
        tf = frequency.astype(np.float32).astype(np.float64)
        return (np.float64(self.idf32(df)) * (tf / (self._norms[rows] + tf))).astype(np.float32)

    # --- reading ----------------------------------------------------------------------------------------------

    def whole(self, conn, terms: list[str]) -> dict[str, Term]:
        """Every live posting of ``terms``: those kept, the others read in one statement (and kept)."""
        with self._lock:
            found = {t: self._terms[t] for t in terms if t in self._terms}
            for term in found:
                self._terms.move_to_end(term)
        missing = [t for t in terms if t not in found]
        if missing:
            values = {"terms": missing, **dict(self._table.values)}
            read = self._read(conn.execute(self._table.whole, values, binary=True), missing, None)
            found.update(read)
            self._keep(read)
        return found

    def over(self, conn, terms: list[str], rows: np.ndarray, frequency: dict[str, int]) -> dict[str, Term]:
        """The postings of ``terms`` in the passages of ``rows`` alone (not kept); ``frequency``: their document
        frequencies."""
        keys = self._key_of_row[rows]
        values = {"terms": terms, "passages": keys.tolist(), **dict(self._table.values)}
        cursor = conn.execute(self._table.some, values, binary=True)
        return self._read(cursor, terms, frequency)

    def _read(self, cursor, terms: list[str], frequency: dict[str, int] | None) -> dict[str, Term]:
        packed = {term: data for term, data in cursor}
        found = {}
        for term in terms:
            postings = np.frombuffer(packed.get(term) or b"", dtype=self._table.posting)
            keys = postings["passage"].astype(np.int64)
            inside = keys < len(self._row_of_key)
            rows = np.full(len(keys), -1, dtype=np.int64)
            rows[inside] = self._row_of_key[keys[inside]]
            live = rows >= 0  # a passage live no longer, or written since the searcher was opened
            rows, counts = rows[live], postings["frequency"][live]
            df = len(rows) if frequency is None else frequency[term]
            found[term] = Term(rows, self._contributions(rows, counts, df))
        return found

    def _keep(self, read: dict[str, Term]) -> None:
        with self._lock:
            for term, postings in read.items():
                if term in self._common:  # only a common term is ever left unread, and bounded
                    self._largest[term] = float(postings.scores.max()) if len(postings) else 0.0
                if term not in self._terms:
                    self._terms[term] = postings
                    self._entries += len(postings)
            while self._entries > self._kept and self._terms:
                _, postings = self._terms.popitem(last=False)
                self._entries -= len(postings)

    # --- scoring ---------------------------------------------------------------------------------------------

    def top(
        self,
        conn,
        tokens: list[str],
        n: int,
        allowed: np.ndarray | None = None,
        extra: list[str] = (),
        extra_weight: float = 0.0,
        frequency: dict[str, int] | None = None,
    ) -> list[tuple[int, float]]:
        """The best ``n`` rows (of ``allowed``) by BM25 of ``tokens`` (each as often as it occurs) plus
        ``extra_weight`` times BM25 of the ``extra`` terms, as the bundle's ``bm25_scored`` ranks them: (row,
        score), best first, ties in row order, only rows scoring above 0. Every term must be in some live passage
        (``frequency``: their document frequencies, else read)."""
        extra = list(extra)
        terms = list(dict.fromkeys([*tokens, *extra]))
        if not terms or n <= 0:
            return []
        frequency = frequency or self.frequencies(conn, terms)
        times = {t: float(tokens.count(t)) for t in tokens} | {t: extra_weight for t in extra}
        with self._lock:
            kept = {t for t in terms if t in self._terms}
        # the rare terms and those kept first (they cost nothing more), then the common ones, rarest first
        order = sorted(terms, key=lambda t: (t in self._common and t not in kept, frequency[t], t))
        first = [t for t in order if t not in self._common or t in kept] or order[:1]
        read = self.whole(conn, first)
        unread = order[len(first) :]
        partial = np.zeros(self.total, dtype=np.float64)  # a lower bound of each row's score: the read terms'
        for term, postings in read.items():
            partial[postings.rows] += times[term] * postings.scores
        while True:
            held = partial if allowed is None else np.where(allowed, partial, 0.0)
            candidates = np.flatnonzero(held > 0)
            if not unread:
                break
            reach = sum(times[t] * self._most(t, frequency[t]) for t in unread) * (1 + ROUNDING_ROOM)
            floor = self._floor(conn, held, candidates, n, reach, unread, times, frequency)
            if reach < floor:  # a row holding none of the read terms scores below the n-th best
                candidates = candidates[held[candidates] * (1 + ROUNDING_ROOM) + reach >= floor]
                if frequency[unread[0]] > LOOKUP_COST * len(candidates):
                    break  # the unread terms are looked up for the candidates left
            # the next term read whole: it must be (the best n are not told yet), or costs less than looked up
            term = unread.pop(0)
            read.update(self.whole(conn, [term]))
            partial[read[term].rows] += times[term] * read[term].scores
        if unread:
            read.update(self.over(conn, unread, candidates, frequency))
        return self._exact(read, tokens, extra, extra_weight, candidates, n)

    def _most(self, term: str, frequency: int) -> float:
        """The most ``term`` adds to a score: its largest contribution once its postings were read, else its idf
        (tf / (tf + norm) is below 1)."""
        return self._largest.get(term) or float(self.idf32(frequency))

    def _floor(self, conn, held, candidates, n: int, reach: float, unread, times, frequency) -> float:
        """A score at or below the ``n``-th best: the ``n``-th best of the read terms' scores (``held``) of the
        ``candidates``; when that is not above ``reach``, the lowest full score (the ``unread`` terms looked up)
        of the ``n`` best candidates by it. 0 with fewer than ``n`` candidates."""
        if len(candidates) < n:
            return 0.0
        best = candidates[np.argpartition(held[candidates], len(candidates) - n)[len(candidates) - n :]]
        floor = float(held[best].min()) * (1 - ROUNDING_ROOM)
        if reach < floor:
            return floor
        rest = np.zeros(self.total, dtype=np.float64)
        for term, postings in self.over(conn, unread, best, frequency).items():
            rest[postings.rows] += times[term] * postings.scores
        return float((held[best] + rest[best]).min()) * (1 - ROUNDING_ROOM)

    def _exact(
        self, read: dict[str, Term], tokens, extra, extra_weight: float, candidates: np.ndarray, n: int
    ) -> list[tuple[int, float]]:
        """The best ``n`` of ``candidates`` (rows ascending) by their float32 scores, summed as bm25s sums them."""
        if not len(candidates):
            return []

        def summed(terms) -> np.ndarray:
            scores = np.zeros(self.total, dtype=np.float32)
            for term in terms:
                postings = read[term]
                scores[postings.rows] += postings.scores  # a row once per term: bm25s' np.add.at, summed alike
            return scores[candidates]

        scores = summed(tokens) if tokens else 0.0
        if extra:
            scores = scores + extra_weight * summed(extra)
        best = top_positions(scores, n)
        return [(int(candidates[i]), float(scores[i])) for i in best if scores[i] > 0]
