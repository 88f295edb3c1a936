"""The documents' metadata of a bundle in segments (mendel.index.segments), as its indexes are: one row a document
(``documents.jsonl`` of a segment, in document order), each with the digest of its row, so a night's publish writes
one small segment of the documents new or changed, tombstones the rows they replace and those of the documents gone,
merges segments of like size (mendel.index.segment_updates) and hard-links every other file from the build directory,
instead of writing every document's metadata again.

A bundle's ``documents/`` part is read by :func:`read_documents` (through ``mendel.index.bundle.read_documents``);
bundles published before it hold one whole ``documents.json``, which the same function reads.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Sequence

from mendel.index import segment_updates, segments
from mendel.index.layout import DOCUMENTS_PART as PART

ROWS = "documents.jsonl"
# a merge only copies lines: a night may merge far more documents than index rows
MERGE_ROWS = 2_000_000


def row_line(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False)


def _digest(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


def _segment_id(documents: Sequence[tuple[str, str]]) -> str:
    return segments.segment_id(PART, 0, documents).replace("L0-", "D-", 1)


def write_segment(part_dir: Path, lines: dict[str, str], digests: dict[str, str]) -> segments.Segment:
    """A segment of the documents ``lines`` names (doc_id -> its JSON line), sorted by id."""
    doc_ids = sorted(lines)
    seg_id = _segment_id([(d, digests[d]) for d in doc_ids])
    tmp = segments.begin_segment(part_dir, seg_id)
    with (tmp / ROWS).open("w", encoding="utf-8") as handle:
        for doc_id in doc_ids:
            handle.write(lines[doc_id] + "\n")
    meta = {"id": seg_id, "part": PART}
    return segments.Segment.open(segments.finish_segment(tmp, meta, [(d, digests[d], 1) for d in doc_ids], doc_ids))


def _segment_lines(seg: segments.Segment) -> list[str]:
    with (seg.path / ROWS).open(encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def merge_segments(part_dir: Path, state: segments.PartState, group: Sequence[segments.Segment]) -> segments.Segment:
    """One segment of the live documents of ``group``, their lines copied as written."""
    lines, digests = {}, {}
    for seg in group:
        gone = set(state.deleted_rows(seg).tolist())
        for local, ((doc_id, digest, _), line) in enumerate(zip(seg.documents, _segment_lines(seg))):
            if local not in gone:
                lines[doc_id], digests[doc_id] = line, digest
    return write_segment(part_dir, lines, digests)


def update(part_dir: Path, documents: Iterable[dict], max_merge_rows: int = MERGE_ROWS) -> dict:
    """Bring the documents part at ``part_dir`` in line with ``documents`` (dicts with ``doc_id``): a new segment
    for the documents new or changed, tombstones for the rows they replace and the documents gone, the merges
    due. Unchanged, it writes nothing. Returns what it did (``mendel.index.segment_updates.update_part``)."""
    lines = {d["doc_id"]: row_line(d) for d in documents}
    current = {doc_id: _digest(line) for doc_id, line in lines.items()}

    def write_new(doc_ids: list[str]) -> segments.Segment:
        return write_segment(part_dir, {d: lines[d] for d in doc_ids}, current)

    def merge(state, group) -> segments.Segment:
        return merge_segments(part_dir, state, group)

    info = segment_updates.update_part(part_dir, current, write_new, merge, max_merge_rows)
    return {**info, "documents": len(lines)}


def read_documents(part_dir: Path) -> list[dict]:
    """The live documents of a documents part, by doc_id."""
    live = segments.LiveRows(part_dir)
    found: list[dict | None] = [None] * len(live)
    for number, seg in enumerate(live.segments):
        global_rows = live.global_of_local[number]
        for local, line in enumerate(_segment_lines(seg)):
            g = int(global_rows[local])
            if g >= 0:
                found[g] = json.loads(line)
    return found  # type: ignore[return-value]
