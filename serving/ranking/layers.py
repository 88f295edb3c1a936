"""Reading a published bundle's layers: the chunk table (rows read on demand), BM25 and FAISS of each layer,
and the lookups of the exact-reference fast path."""

from __future__ import annotations

import json
import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from mendel.index import bundle, segments
from mendel.index.dense import searchable
from mendel.law.identifiers import file_number
from serving.ranking.bm25_scores import LayerBM25

PASSAGE_LAYER = 3
SCOPE_LAYERS = {"act": (1,), "section": (2,)}  # a whole act: documents (L1); a whole section: sections (L2)
HEADING_LINE_RE = re.compile(
    r"^[ \t]*(§[ \t]*\d+[a-z]?|čl\.[ \t]*[IVXLC\d]+[a-z]?)[ \t]*$", re.IGNORECASE | re.MULTILINE
)  # a line holding only a provision's heading


def identifier_keys(citation: str | None, doc_id: str) -> list[str]:
    """The keys a chunk is found by as a decision: its citation as stored, the file number in citation form (a
    reference names ``7 Afs 41/2013`` where the court stores ``7 Afs 41/2013-8``), and its document id (an
    ECLI) upper-cased."""
    keys = [citation, file_number(citation)] if citation else []
    keys.append(doc_id.upper())
    return list(dict.fromkeys(keys))


def layer_of(chunk: dict, default: int = PASSAGE_LAYER) -> int:
    """A chunk's layer (1 document, 2 section, 3 passage) from its bundle record."""
    value = chunk.get("layer", default)
    if isinstance(value, str):
        value = value.strip().upper().removeprefix("L")
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _section_label(section: str) -> str:
    return section.rsplit(" > ", 1)[-1].strip().lower()


class ChunkTable(Sequence):
    """A layer's ``chunks.jsonl`` as a read-only sequence of chunk dicts, each row read and parsed when asked
    for: a million chunks cost two offsets each in memory, not a dict and its strings. Rows are read with
    ``pread`` on a descriptor held open (threads read at once; a pruned bundle stays readable while in use).

    The last ``RECENT_ROWS`` rows parsed are kept (a copy of one is handed out): one search reads its best
    candidates' rows for the learned stage and again for its hits."""

    RECENT_ROWS = 128

    def __init__(self, path: Path, starts: np.ndarray, ends: np.ndarray):
        self.path = Path(path)
        self._starts, self._ends = starts, ends
        self._fd = os.open(self.path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._fd)
        self._keep_recent()

    def _keep_recent(self) -> None:
        self._recent: OrderedDict[int, dict] = OrderedDict()
        self._recent_lock = threading.Lock()

    @staticmethod
    def scan(path: Path):
        """Every row of ``path`` in order, as (start offset, end offset, parsed row)."""
        with Path(path).open("rb") as handle:
            offset = 0
            for line in handle:
                yield offset, offset + len(line), json.loads(line)
                offset += len(line)

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = int(index)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("chunk index out of range")
        with self._recent_lock:
            row = self._recent.get(index)
            if row is not None:
                self._recent.move_to_end(index)
                return dict(row)  # each caller its own dict: the kept one is never changed
        row = self._read(index)
        with self._recent_lock:
            self._recent[index] = row
            while len(self._recent) > self.RECENT_ROWS:
                self._recent.popitem(last=False)
        return dict(row)

    def _read(self, index: int) -> dict:
        start, end = int(self._starts[index]), int(self._ends[index])
        return _parse_row(os.pread(self._fd, end - start, start))

    def __iter__(self):
        for _, _, row in self.scan(self.path):
            yield row


_ROW_DECODER = json.JSONDecoder()


def _parse_row(data: bytes) -> dict:
    """A row of a chunk table (UTF-8, as written): ``json.loads`` without its guessing of the encoding."""
    return _ROW_DECODER.decode(data.decode("utf-8", "surrogatepass"))


class SegmentedChunkTable(ChunkTable):
    """The chunk table of a layer grown by segments: row i is bytes ``starts[i]:ends[i]`` of ``paths[files[i]]``."""

    def __init__(self, paths: Sequence[Path], files: np.ndarray, starts: np.ndarray, ends: np.ndarray):
        self.paths = [Path(p) for p in paths]
        self._files, self._starts, self._ends = files, starts, ends
        self._fds = [os.open(p, os.O_RDONLY) for p in self.paths]
        for fd in self._fds:
            weakref.finalize(self, os.close, fd)
        self._keep_recent()

    def _read(self, index: int) -> dict:
        start, end = int(self._starts[index]), int(self._ends[index])
        return _parse_row(os.pread(self._fds[int(self._files[index])], end - start, start))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


class ChunkEntities(Mapping):
    """L3 chunk id -> the entity ids it links (sorted), read from the entity graph's index arrays: the mapping
    ``graph.json`` holds as ``chunk_entities``, without a million Python lists."""

    def __init__(self, graph, passages: "LayerIndex"):
        self._graph, self._passages = graph, passages

    def __getitem__(self, chunk_id: str) -> list[str]:
        row = self._passages.position(chunk_id)
        found = self._graph.entities_of(row) if row is not None else []
        if not found:
            raise KeyError(chunk_id)
        return found

    def __iter__(self):
        ptr = self._graph.chunk_entity_ptr
        for row in np.flatnonzero(np.diff(ptr)).tolist():
            yield self._passages.chunk_ids[row].decode()

    def __len__(self) -> int:
        return int(np.count_nonzero(np.diff(self._graph.chunk_entity_ptr)))


class LayerIndex:
    """One layer of a bundle (``mendel.index.bundle.layer_path``): its chunk table, BM25 and FAISS, row i of
    each being the same chunk, and the lookups the exact-reference fast path needs."""

    def __init__(self, path: Path, layer: int):
        self.path = Path(path)
        self.layer = layer
        self.doc_chunks: dict[str, list[int]] = {}
        self.section_chunks: dict[tuple[str, str], list[int]] = {}  # (act citation, section label)
        self.heading_chunks: dict[tuple[str, str], list[int]] = {}  # (act citation, a provision heading line)
        self.identifier_chunks: dict[str, list[int]] = {}  # a decision's file number or ECLI
        if segments.is_segmented(self.path / bundle.BM25_PART):
            self._load_segments()
        else:
            self._load_whole()
        self._id_order: np.ndarray | None = None

    def _load_whole(self) -> None:
        import bm25s
        import faiss

        self.bm25 = LayerBM25(bm25s.BM25.load(str(bundle.bm25_index_path(self.path))))
        self.faiss = searchable(faiss.read_index(str(bundle.faiss_index_path(self.path))))
        chunk_ids: list[bytes] = []
        starts, ends = [], []
        # One pass over the chunk table for the lookups; the rows themselves are read again only when returned.
        for i, (start, end, c) in enumerate(ChunkTable.scan(self.path / bundle.CHUNKS)):
            starts.append(start)
            ends.append(end)
            chunk_ids.append(c["chunk_id"].encode())
            self._look_up(i, c)
        self.chunks = ChunkTable(
            self.path / bundle.CHUNKS, np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
        )
        self.chunk_ids = np.asarray(chunk_ids, dtype=bytes)  # row i -> chunk id (fixed-width bytes)

    def _load_segments(self) -> None:
        """A layer grown by segments (mendel.index.segments): rows in the order a whole rebuild has."""
        from mendel.index.segment_bm25 import SegmentedBM25, chunk_files, scan_live
        from mendel.index.segment_dense import SegmentedVectors

        lexical = segments.LiveRows(self.path / bundle.BM25_PART)
        self.bm25 = LayerBM25(SegmentedBM25(lexical))
        self.faiss = SegmentedVectors(segments.LiveRows(self.path / bundle.DENSE_PART))
        n = len(lexical)
        starts, ends = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        files = np.zeros(n, dtype=np.int32)
        chunk_ids: list[bytes] = [b""] * n
        for i, number, start, end, c in scan_live(lexical):
            starts[i], ends[i], files[i] = start, end, number
            chunk_ids[i] = c["chunk_id"].encode()
            self._look_up(i, c)
        for lookup in (self.doc_chunks, self.section_chunks, self.heading_chunks, self.identifier_chunks):
            for rows in lookup.values():
                rows.sort()  # segment by segment above: each list in row order, as one pass in order makes it
        self.chunks = SegmentedChunkTable(chunk_files(lexical), files, starts, ends)
        self.chunk_ids = np.asarray(chunk_ids, dtype=bytes)

    def _look_up(self, i: int, c: dict) -> None:
        """Row ``i`` (chunk ``c``) into the lookups of the exact-reference fast path."""
        self.doc_chunks.setdefault(c["doc_id"], []).append(i)
        if c.get("citation"):
            self.section_chunks.setdefault((c["citation"], _section_label(c.get("section") or "")), []).append(i)
            for heading in HEADING_LINE_RE.findall(c["text"]):
                key = (c["citation"], " ".join(heading.split()).lower())
                self.heading_chunks.setdefault(key, []).append(i)
        for key in identifier_keys(c.get("citation"), c["doc_id"]):
            self.identifier_chunks.setdefault(key, []).append(i)

    def position(self, chunk_id: str) -> int | None:
        """Row of ``chunk_id`` in this layer, or None (a sorted-array search: no million-key dict)."""
        if self._id_order is None:
            self._id_order = np.argsort(self.chunk_ids, kind="stable")
        key = chunk_id.encode()
        at = int(np.searchsorted(self.chunk_ids, key, sorter=self._id_order))
        if at < len(self._id_order) and self.chunk_ids[self._id_order[at]] == key:
            return int(self._id_order[at])
        return None

    def mask(self, doc_ids: set[str]) -> np.ndarray:
        mask = np.zeros(len(self.chunks), dtype=bool)
        for doc_id in doc_ids:
            mask[self.doc_chunks.get(doc_id, [])] = True
        return mask
