"""Indexes that grow by segments, as Lucene and tantivy grow theirs: an index part of a layer (BM25 with the chunk
table, or the vectors) is a list of immutable segments plus, per segment, the rows deleted since it was written
(tombstones). A night writes one small segment holding the documents that changed, tombstones their old rows, and
merges segments of like size (mendel.index.segment_updates); nothing already written is rewritten.

A part directory (in the build directory and, hard-linked, in every bundle):

    live.json                 the part's state: segments in order, each with its tombstone file (or none)
    segments/<id>/            one immutable segment: docs.json, ids.json, the part's own files, segment.json last
    deleted/<id>-<digest>.npy deleted local rows of a segment (a new file whenever they change, never rewritten)
    build_info.json           written last: what the part holds (a part without it is what a killed build left)

Every file is written once under a new name or replaced with ``os.replace``, never changed in place, so a bundle
can hard-link a part's files and a later build leaves the bundle's copy as it was.

Rows of a segment are grouped by document (a document's rows are contiguous, in the database's ``seq`` order) and
documents are sorted by id; the serving order of a layer's live rows is the same rule over all segments (documents
by id, then their rows), so a segmented part serves exactly the rows, in exactly the order, of a part rebuilt whole
from the same chunks (:class:`LiveRows`).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

LIVE = "live.json"
BUILD_INFO = "build_info.json"  # mendel.index.bundle.BUILD_INFO: written last, a part without it is unfinished
SEGMENTS_DIR = "segments"
DELETED_DIR = "deleted"
SEGMENT_META = "segment.json"  # written last: a segment directory without it is not a segment
SEGMENT_DOCS = "docs.json"  # [[doc_id, digest, rows], ...] in row order
SEGMENT_IDS = "ids.json"  # chunk ids in row order
FORMAT = "segments-1"


class SegmentError(Exception):
    pass


def write_json(path: Path, value) -> None:
    """``value`` as JSON at ``path``, through a temporary file and ``os.replace`` (never changed in place)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_segmented(part_dir: Path) -> bool:
    return (Path(part_dir) / LIVE).is_file()


# --- documents, the unit of change -------------------------------------------------------------------------


@dataclass
class DocumentRows:
    """One document's rows of a layer as a part indexes them: its digest (what the part is built from, so an
    unchanged document keeps its rows) and its rows in order."""

    doc_id: str
    digest: str
    rows: list = field(default_factory=list)


def group_by_document(items: Iterable, doc_id_of, digest_of_rows) -> dict[str, DocumentRows]:
    """``items`` (rows in the database's (doc_id, seq) order) grouped per document, each with the digest
    ``digest_of_rows(rows)`` computes."""
    grouped: dict[str, DocumentRows] = {}
    for item in items:
        doc = doc_id_of(item)
        entry = grouped.get(doc)
        if entry is None:
            entry = grouped[doc] = DocumentRows(doc, "")
        entry.rows.append(item)
    for entry in grouped.values():
        entry.digest = digest_of_rows(entry.rows)
    return grouped


def segment_id(part: str, layer: int, documents: Sequence[tuple[str, str]], recipe: str = "") -> str:
    """A segment's name from what it holds: its part, layer and (document, digest) pairs, and the ``recipe`` its
    index was built by where that has settings of its own (a graph's breadth): the same documents built another way
    are another segment, so a rebuild never writes into files a published bundle links."""
    digest = hashlib.sha256(f"{FORMAT}:{part}:{layer}".encode())
    for doc_id, doc_digest in documents:
        digest.update(f"\n{doc_id}\t{doc_digest}".encode())
    if recipe:
        digest.update(f"\nrecipe\t{recipe}".encode())
    return f"L{layer}-{digest.hexdigest()[:20]}"


# --- one segment -------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Segment:
    """An immutable segment as its files say: documents (id, digest, rows) in row order and chunk ids. Shared: what
    :meth:`open` returns may be handed to every later reader of the same segment, so nothing changes it."""

    path: Path
    meta: dict
    documents: Sequence[tuple[str, str, int]]

    @classmethod
    def open(cls, path: Path) -> "Segment":
        """The segment at ``path``, read once per process: a segment's files are written once, its meta last with
        every other file's sha256, so the same meta at the same path is the same segment (a night opens each
        segment of a part several times, ~10-40 ms each)."""
        path = Path(path)
        try:
            meta = (path / SEGMENT_META).read_bytes()
        except FileNotFoundError as exc:
            raise SegmentError(f"{path} is not a complete segment (no {SEGMENT_META})") from exc
        return _opened_segment(str(path), meta)

    @property
    def id(self) -> str:
        return self.meta["id"]

    @property
    def rows(self) -> int:
        return int(self.meta["rows"])

    def chunk_ids(self) -> list[str]:
        return json.loads((self.path / SEGMENT_IDS).read_text())

    def document_starts(self) -> np.ndarray:
        """First local row of each document, plus the row count at the end."""
        return np.concatenate([[0], np.cumsum([n for _, _, n in self.documents], dtype=np.int64)])


@functools.lru_cache(maxsize=64)
def _opened_segment(path: str, meta: bytes) -> Segment:
    documents = tuple(tuple(d) for d in json.loads((Path(path) / SEGMENT_DOCS).read_text()))
    return Segment(Path(path), json.loads(meta), documents)


@functools.lru_cache(maxsize=32)
def _live_documents(segments: tuple[tuple[Segment, bytes], ...]) -> dict[str, tuple[Segment, str, int, int]]:
    """:meth:`PartState.live_documents` of these segments, each with the bytes of its deleted rows (int64)."""
    found = {}
    for seg, deleted in segments:
        starts = seg.document_starts()
        gone = np.frombuffer(deleted, dtype=np.int64)
        dead = np.isin(starts[:-1], gone) if len(gone) else np.zeros(len(seg.documents), dtype=bool)
        for (doc_id, digest, n), start, is_dead in zip(seg.documents, starts[:-1].tolist(), dead.tolist()):
            if not is_dead:
                found[doc_id] = (seg, digest, start, n)
    return found


def begin_segment(part_dir: Path, seg_id: str) -> Path:
    """A temporary directory to write segment ``seg_id`` into (:func:`finish_segment` makes it the segment)."""
    tmp = Path(part_dir) / SEGMENTS_DIR / f".tmp-{seg_id}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    return tmp


def finish_segment(tmp: Path, meta: dict, documents: Sequence[tuple[str, str, int]], chunk_ids: Sequence[str]) -> Path:
    """Write the segment's documents, ids and meta (with every file's sha256, meta last) and move it into place.
    A segment of the same name already there holds the same documents: it is kept and ``tmp`` dropped."""
    (tmp / SEGMENT_DOCS).write_text(json.dumps([list(d) for d in documents], ensure_ascii=False))
    (tmp / SEGMENT_IDS).write_text(json.dumps(list(chunk_ids)))
    files = {p.name: file_sha256(p) for p in sorted(tmp.iterdir()) if p.is_file()}
    (tmp / SEGMENT_META).write_text(
        json.dumps({**meta, "format": FORMAT, "rows": len(chunk_ids), "documents": len(documents), "files": files})
    )
    target = tmp.parent / meta["id"]
    if (target / SEGMENT_META).exists():
        shutil.rmtree(tmp)
    else:
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
    return target


def tree_bytes(path: Path) -> int:
    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


# --- a part's state ------------------------------------------------------------------------------------------


@dataclass
class PartState:
    """``live.json``: the part's segments in order, each with its tombstones (local rows, sorted)."""

    part_dir: Path
    segments: list[Segment]
    deleted: dict[str, np.ndarray]

    @classmethod
    def read(cls, part_dir: Path) -> "PartState":
        part_dir = Path(part_dir)
        if not is_segmented(part_dir):
            return cls(part_dir, [], {})
        live = json.loads((part_dir / LIVE).read_text())
        segments, deleted = [], {}
        for entry in live["segments"]:
            segment = Segment.open(part_dir / SEGMENTS_DIR / entry["id"])
            segments.append(segment)
            if entry.get("deleted"):
                deleted[segment.id] = np.load(part_dir / entry["deleted"])
        return cls(part_dir, segments, deleted)

    def deleted_rows(self, seg: Segment) -> np.ndarray:
        return self.deleted.get(seg.id, np.zeros(0, dtype=np.int64))

    def live_rows(self, seg: Segment) -> int:
        return seg.rows - len(self.deleted_rows(seg))

    def live_documents(self) -> dict[str, tuple[Segment, str, int, int]]:
        """doc_id -> (segment, digest, first local row, rows) of every document whose rows are not deleted; worked
        out once per process for the same segments with the same deleted rows (a copy: the caller's to change)."""
        key = tuple(
            (seg, np.ascontiguousarray(self.deleted_rows(seg), dtype=np.int64).tobytes()) for seg in self.segments
        )
        return dict(_live_documents(key))

    def write(self, stats: dict | None = None) -> None:
        """Write the tombstones that changed and ``live.json`` (replaced atomically); segments that hold no live row
        are left out."""
        entries = []
        (self.part_dir / DELETED_DIR).mkdir(parents=True, exist_ok=True)
        kept = []
        for seg in self.segments:
            gone = self.deleted_rows(seg)
            if len(gone) >= seg.rows:
                continue  # every row deleted: the segment leaves the part
            kept.append(seg)
            entry = {"id": seg.id, "rows": seg.rows, "deleted_rows": int(len(gone)), "deleted": None}
            if len(gone):
                gone = np.asarray(gone, dtype=np.int64)
                name = f"{DELETED_DIR}/{seg.id}-{hashlib.sha256(gone.tobytes()).hexdigest()[:16]}.npy"
                if not (self.part_dir / name).exists():
                    tmp = self.part_dir / f"{name}.{os.getpid()}.tmp"
                    with tmp.open("wb") as handle:
                        np.save(handle, gone)
                    os.replace(tmp, self.part_dir / name)
                entry["deleted"] = name
            entries.append(entry)
        self.segments = kept
        write_json(self.part_dir / LIVE, {"format": FORMAT, "segments": entries, **(stats or {})})

    def collect_garbage(self) -> int:
        """Remove segments and tombstone files no longer in ``live.json`` (bundles keep their own links);
        returns how many entries went."""
        live = json.loads((self.part_dir / LIVE).read_text())
        wanted_segments = {e["id"] for e in live["segments"]}
        wanted_deleted = {Path(e["deleted"]).name for e in live["segments"] if e.get("deleted")}
        removed = 0
        for entry in (self.part_dir / SEGMENTS_DIR).iterdir() if (self.part_dir / SEGMENTS_DIR).exists() else []:
            if entry.name not in wanted_segments:
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
        for entry in (self.part_dir / DELETED_DIR).iterdir() if (self.part_dir / DELETED_DIR).exists() else []:
            if entry.name not in wanted_deleted:
                entry.unlink(missing_ok=True)
                removed += 1
        return removed


def tombstone(state: PartState, doc_ids: Iterable[str]) -> int:
    """Delete every row of ``doc_ids`` in the segments holding them; returns rows deleted."""
    live = state.live_documents()
    new_rows: dict[str, list[np.ndarray]] = {}
    count = 0
    for doc_id in doc_ids:
        if doc_id in live:
            seg, _, start, n = live[doc_id]
            new_rows.setdefault(seg.id, []).append(np.arange(start, start + n, dtype=np.int64))
            count += n
    for seg_id, rows in new_rows.items():
        state.deleted[seg_id] = np.union1d(state.deleted.get(seg_id, np.zeros(0, np.int64)), np.concatenate(rows))
    return count


def changes(state: PartState, current: dict[str, str]) -> tuple[list[str], list[str]]:
    """(documents to write: new or changed, sorted; documents whose live rows go: changed or no longer current)."""
    live = state.live_documents()
    written = sorted(d for d, digest in current.items() if d not in live or live[d][1] != digest)
    gone = sorted({d for d in live if d not in current} | {d for d in written if d in live})
    return written, gone


# --- reading: the live rows in serving order ------------------------------------------------------------------


class LiveRows:
    """The live rows of a segmented part in serving order (documents by id, each document's rows in order): the
    order a part rebuilt whole from the same chunks has. Row ``g`` of the part is row ``local[g]`` of segment
    ``segment[g]``; per segment, ``global_of_local`` maps back (-1: deleted)."""

    def __init__(self, part_dir: Path):
        self.state = PartState.read(part_dir)
        if not self.state.segments and not is_segmented(part_dir):
            raise SegmentError(f"{part_dir} is not a segmented index part (no {LIVE})")
        number_of = {seg.id: i for i, seg in enumerate(self.state.segments)}
        # (doc_id, segment number, first local row, rows)
        docs = [(d, number_of[seg.id], start, n) for d, (seg, _, start, n) in self.state.live_documents().items()]
        docs.sort()
        counts = np.asarray([n for *_, n in docs], dtype=np.int64)
        total = int(counts.sum())
        self.segment = np.repeat(np.asarray([s for _, s, _, _ in docs], dtype=np.int32), counts)
        starts = np.asarray([start for _, _, start, _ in docs], dtype=np.int64)
        first_global = np.concatenate([[0], np.cumsum(counts)])[:-1]
        self.local = np.arange(total, dtype=np.int64) - np.repeat(first_global, counts) + np.repeat(starts, counts)
        self.global_of_local = []
        for number, seg in enumerate(self.state.segments):
            mapping = np.full(seg.rows, -1, dtype=np.int64)
            mine = np.flatnonzero(self.segment == number)
            mapping[self.local[mine]] = mine
            self.global_of_local.append(mapping)
        self.doc_ids = [d for d, *_ in docs]

    def __len__(self) -> int:
        return len(self.local)

    @property
    def segments(self) -> list[Segment]:
        return self.state.segments

    def chunk_ids(self) -> list[str]:
        ids: list[str | None] = [None] * len(self)
        for number, seg in enumerate(self.segments):
            for local, chunk_id in enumerate(seg.chunk_ids()):
                g = int(self.global_of_local[number][local])
                if g >= 0:
                    ids[g] = chunk_id
        return ids  # type: ignore[return-value]


def part_chunk_ids(part_dir: Path) -> list[str]:
    """The chunk ids of an index part in serving order: a segmented part's live rows, or a whole part's ids.json."""
    part_dir = Path(part_dir)
    if is_segmented(part_dir):
        return LiveRows(part_dir).chunk_ids()
    return json.loads((part_dir / SEGMENT_IDS).read_text())


# What a build leaves half-written in a part (a segment being written, a file before its os.replace): never linked.
UNFINISHED = (".tmp-*", "*.tmp")


def is_unfinished(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in UNFINISHED)


def link_tree(source: Path, target: Path) -> dict:
    """Hard-link every file of ``source`` into ``target`` (copying where a link is refused, as across file
    systems; what :func:`is_unfinished` names is left out); returns {"linked": files, "copied": files,
    "copied_bytes": bytes}."""
    counts = {"linked": 0, "copied": 0, "copied_bytes": 0}

    def link_or_copy(src: str, dst: str) -> str:
        try:
            os.link(src, dst)
            counts["linked"] += 1
        except OSError:
            shutil.copy2(src, dst)
            counts["copied"] += 1
            counts["copied_bytes"] += os.path.getsize(dst)
        return dst

    shutil.copytree(
        source, target, copy_function=link_or_copy, ignore=shutil.ignore_patterns(*UNFINISHED), dirs_exist_ok=True
    )
    return counts
