"""The live passages (and sections, documents) of PostgreSQL addressed as a bundle's layer (``serving.ranking.layers.LayerIndex``), so the
bundle backend's code runs over them unchanged: row positions in the bundle's row order (doc_id, seq, chunk_id, as
``mendel.index.corpus.load_layer`` orders them: positions, masks and ties are those of the bundle published from
the same database), chunk rows read on demand (``chunks[i]``, the bundle's keys), the dense index searched and read
through pgvector (``faiss``: ``nearest``, ``reconstruct``) and the entity graph through ``graph_nodes``,
``graph_edges`` and ``mentions`` (:class:`PostgresGraph`: ``activate``, ``ranking``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from serving.ranking.layers import PASSAGE_LAYER, _section_label
from serving.ranking.pg_sql import CHUNK_ROWS, LIVE, TOKENS, UPPER_POSITIONS

ROWS_KEPT = 8192  # chunk rows kept by position (a search reads its candidates' rows once)
SKIP_MOST = 2000  # a mask leaving out at most this many passages is sent as those passages, else as documents
# The bundle's row order over the live passages (mendel.index.corpus.load_layer), with each one's key in
# chunk_postings and BM25 length.
POSITIONS = (
    "SELECT c.chunk_id, c.doc_id, c.section_path, c.passage_key, "
    + TOKENS
    + " FROM chunks c "
    + LIVE
    + " ORDER BY c.doc_id, c.seq, c.chunk_id"
)
TIE_MARGIN = 10  # nearest passages fetched beyond those wanted, so ties at the cut are decided by row order
SIMILARITY_DIGITS = 6  # similarities equal to this many digits are ties (float32 sums differ in the last bits)
EMBEDDINGS = "SELECT chunk_id, embedding::text FROM chunks WHERE chunk_id = ANY(%s)"


class PostgresChunks(Sequence):
    """A layer's chunk rows by position, read from the database when asked for (``prefetch`` reads many in one
    statement); the latest ``ROWS_KEPT`` are kept."""

    def __init__(self, lists, ids: np.ndarray, layer: int = PASSAGE_LAYER):
        self._lists, self._ids, self._layer = lists, ids, layer
        self._rows: OrderedDict[int, dict] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def prefetch(self, positions) -> None:
        with self._lock:
            missing = sorted({int(p) for p in positions if int(p) not in self._rows})
        if not missing:
            return
        with self._lists.connection() as conn:
            found = {row[0]: row for row in conn.execute(CHUNK_ROWS, ([self._ids[p] for p in missing],))}
        with self._lock:
            for position in missing:
                row = found.get(self._ids[position])
                if row is not None:
                    self._rows[position] = self._lists.chunk_row(*row, layer=self._layer)
            while len(self._rows) > ROWS_KEPT:
                self._rows.popitem(last=False)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = int(index)
        if not 0 <= index < len(self._ids):
            raise IndexError("chunk index out of range")
        with self._lock:
            row = self._rows.get(index)
        if row is None:
            self.prefetch([index])
            with self._lock:
                row = self._rows[index]
        return row


class PostgresVectors:
    """pgvector as the layer's dense index: what ``serving.ranking.dense`` and the floor's dense signal call."""

    def __init__(self, lists, layer: "PostgresLayer"):
        self._lists, self._layer = lists, layer

    @property
    def ntotal(self) -> int:
        return len(self._layer.chunk_ids)

    def nearest(self, vector: np.ndarray, n: int, allowed: np.ndarray | None) -> tuple[list[int], list[float]]:
        docs, skip = self._layer.restriction(allowed)
        with self._lists.connection() as conn:
            found = self._lists.nearest_passages(
                conn, np.asarray(vector).ravel().tolist(), n + TIE_MARGIN, docs, skip, layer=self._layer.layer
            )
        kept = [(self._layer.position(cid), score) for cid, score in found]
        # equal similarities in row order, as the flat index returns them (HNSW returns ties in any order)
        kept = sorted(
            ((p, s) for p, s in kept if p is not None), key=lambda ps: (-round(ps[1], SIMILARITY_DIGITS), ps[0])
        )
        return [p for p, _ in kept[:n]], [s for _, s in kept[:n]]

    def reconstruct(self, position: int) -> np.ndarray:
        with self._lists.connection() as conn:
            row = conn.execute(EMBEDDINGS, ([self._layer.chunk_ids[position]],)).fetchone()
        return np.asarray(row[1].strip("[]").split(","), dtype=np.float32)


class PostgresLayer:
    """A layer of the live chunks as ``LayerIndex`` reads it (3, the default: the passages; 2 the sections; 1 the
    documents): ``chunks``, ``chunk_ids``, ``doc_chunks``, ``section_chunks`` (act citation, section label) -> rows,
    ``faiss``, ``mask``, ``position``; each row's BM25 length (``lengths``: its tokens, NaN without terms) and the row
    of each chunk key of the layer's postings (``row_of_key``: -1 for a chunk not live in this layer). The live
    chunks change only when a bundle is published, and a searcher is opened per bundle."""

    def __init__(self, lists, conn, documents: dict[str, dict], layer: int = PASSAGE_LAYER):
        self.layer = layer
        ids, docs, keys, lengths = [], [], [], []
        self.doc_chunks: dict[str, list[int]] = {}
        self.section_chunks: dict[tuple[str, str], list[int]] = {}
        rows = conn.execute(POSITIONS) if layer == PASSAGE_LAYER else conn.execute(UPPER_POSITIONS, {"layer": layer})
        for i, (chunk_id, doc_id, section, key, tokens) in enumerate(rows):
            ids.append(chunk_id)
            docs.append(doc_id)
            keys.append(key)
            lengths.append(np.nan if tokens is None else float(tokens))
            self.doc_chunks.setdefault(doc_id, []).append(i)
            citation = (documents.get(doc_id) or {}).get("citation")
            if citation:
                self.section_chunks.setdefault((citation, _section_label(section or "")), []).append(i)
        self.chunk_ids = np.asarray(ids, dtype=object)
        self.lengths = np.asarray(lengths, dtype=np.float64)
        self._positions = {cid: i for i, cid in enumerate(ids)}
        keys = np.asarray(keys, dtype=np.int64)
        self.row_of_key = np.full(int(keys.max()) + 1 if keys.size else 0, -1, dtype=np.int64)
        self.row_of_key[keys] = np.arange(len(keys))
        names = sorted(self.doc_chunks)
        number = {d: j for j, d in enumerate(names)}
        self._doc_names = np.asarray(names, dtype=object)
        self._doc_of = np.asarray([number[d] for d in docs], dtype=np.int64)
        self.chunks = PostgresChunks(lists, self.chunk_ids, layer)
        self.faiss = PostgresVectors(lists, self)

    def doc_ids(self) -> list[str]:
        """Each row's document, in row order."""
        return self._doc_names[self._doc_of].tolist()

    def position(self, chunk_id: str) -> int | None:
        return self._positions.get(chunk_id)

    def positions(self, chunk_ids) -> list[int]:
        """Rows of ``chunk_ids`` in their order, those not in this layer (live since it was read) left out."""
        found = (self._positions.get(cid) for cid in chunk_ids)
        return [p for p in found if p is not None]

    def mask(self, doc_ids) -> np.ndarray:
        mask = np.zeros(len(self.chunk_ids), dtype=bool)
        for doc_id in doc_ids:
            mask[self.doc_chunks.get(doc_id, [])] = True
        return mask

    def restriction(self, allowed: np.ndarray | None) -> tuple[list[str] | None, frozenset[str]]:
        """A mask as the statements take it: (the documents to search or None for all, passages to drop)."""
        if allowed is None:
            return None, frozenset()
        left_out = ~allowed
        if np.count_nonzero(left_out) <= SKIP_MOST:
            return None, frozenset(self.chunk_ids[left_out].tolist())
        kept_docs = np.unique(self._doc_of[allowed])
        within = np.isin(self._doc_of, kept_docs)
        return self._doc_names[kept_docs].tolist(), frozenset(self.chunk_ids[left_out & within].tolist())
