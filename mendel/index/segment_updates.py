"""How a segmented part (mendel.index.segments) changes: a night's update (one new segment for what changed,
tombstones for what it replaces) and tiered merging, Lucene's TieredMergePolicy in small.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from mendel.index.segments import (
    BUILD_INFO,
    DELETED_DIR,
    FORMAT,
    LIVE,
    PartState,
    Segment,
    changes,
    is_segmented,
    tombstone,
    tree_bytes,
    write_json,
)

# Tiered merging (Lucene's TieredMergePolicy in small): a segment's tier is log_MERGE_FACTOR of its live rows over
# FLOOR_ROWS; MERGE_FACTOR segments of one tier become one segment of the next, a segment with more than
# DELETED_SHARE of its rows deleted is rewritten without them, and no merge writes more than the caller's limit.
FLOOR_ROWS = 5_000
MERGE_FACTOR = 4
DELETED_SHARE = 0.3
Outdated = Callable[[Segment], bool]  # a segment built by settings no longer used: rewritten alone


# --- merging -------------------------------------------------------------------------------------------------


def tier(rows: int) -> int:
    level, size = 0, FLOOR_ROWS
    while rows > size:
        level, size = level + 1, size * MERGE_FACTOR
    return level


def plan_merges(state: PartState, max_merge_rows: int, outdated: Outdated | None = None) -> list[list[Segment]]:
    """Merges to run now: MERGE_FACTOR segments of one tier (smallest first), and any segment with more than
    DELETED_SHARE of its rows deleted or built by settings no longer used (``outdated(segment)``) rewritten alone,
    each producing at most ``max_merge_rows`` live rows. Run one round after another until nothing is planned
    (:func:`run_merges`)."""
    merges: list[list[Segment]] = []
    used: set[str] = set()
    by_tier: dict[int, list[Segment]] = {}
    for seg in state.segments:
        by_tier.setdefault(tier(state.live_rows(seg)), []).append(seg)
    for level in sorted(by_tier):
        members = sorted(by_tier[level], key=state.live_rows)
        while len(members) >= MERGE_FACTOR:
            group, members = members[:MERGE_FACTOR], members[MERGE_FACTOR:]
            if sum(state.live_rows(s) for s in group) <= max_merge_rows:
                merges.append(group)
                used.update(s.id for s in group)
    for seg in state.segments:
        live = state.live_rows(seg)
        stale = seg.rows - live > DELETED_SHARE * seg.rows or (outdated is not None and outdated(seg))
        if seg.id not in used and live <= max_merge_rows and stale:
            merges.append([seg])
            used.add(seg.id)
    return merges


def merged_documents(state: PartState, group: Sequence[Segment]) -> list[tuple[Segment, str, str, int, int]]:
    """The live documents of ``group`` sorted by id: (segment, doc_id, digest, first local row, rows)."""
    found = []
    for seg in group:
        starts = seg.document_starts()[:-1]
        gone = state.deleted_rows(seg)
        dead = np.isin(starts, gone) if len(gone) else np.zeros(len(starts), dtype=bool)
        for (doc_id, digest, n), start, is_dead in zip(seg.documents, starts.tolist(), dead.tolist()):
            if not is_dead:
                found.append((seg, doc_id, digest, start, n))
    return sorted(found, key=lambda item: item[1])


def replace_segments(state: PartState, group: Sequence[Segment], merged: Segment) -> None:
    """``merged`` takes the place of the first segment of ``group``; the others leave the part."""
    ids = {s.id for s in group}
    position = next(i for i, s in enumerate(state.segments) if s.id in ids)
    state.segments = [s for s in state.segments if s.id not in ids]
    state.segments.insert(position, merged)
    for seg_id in ids:
        state.deleted.pop(seg_id, None)


def run_merges(
    state: PartState,
    merge: Callable[[PartState, Sequence[Segment]], Segment],
    max_merge_rows: int,
    outdated: Outdated | None = None,
) -> tuple[int, int]:
    """Merge rounds until :func:`plan_merges` asks for none; returns how many merges ran and the bytes they wrote."""
    merges = written = 0
    while planned := plan_merges(state, max_merge_rows, outdated):
        for group in planned:
            merged = merge(state, group)
            replace_segments(state, group, merged)
            written += tree_bytes(merged.path)
            merges += 1
    return merges, written


# --- one night's update -----------------------------------------------------------------------------------------


def update_part(
    part_dir: Path,
    current: dict[str, str],
    write_new: Callable[[list[str]], Segment],
    merge: Callable[[PartState, Sequence[Segment]], Segment],
    max_merge_rows: int,
    info: Callable[[PartState], dict] = lambda state: {},
    outdated: Outdated | None = None,
) -> dict:
    """Bring a part in line with ``current`` (doc_id -> digest of what the part indexes of it): one new segment
    (``write_new(doc_ids)``) for the documents new or changed, tombstones for the rows they replace and the
    documents gone, then the merges :func:`plan_merges` asks for (``merge(state, group)``), none writing more than
    ``max_merge_rows``, ``outdated`` segments rebuilt among them. Unchanged, it writes nothing. Returns what it
    did, which is also ``build_info.json``."""
    part_dir = Path(part_dir)
    if part_dir.exists() and not is_segmented(part_dir):
        shutil.rmtree(part_dir)  # a part built whole before segments: rebuilt as one segment
    part_dir.mkdir(parents=True, exist_ok=True)
    state = PartState.read(part_dir)
    written, gone = changes(state, current)
    info_path = part_dir / BUILD_INFO
    if not written and not gone and info_path.exists() and not plan_merges(state, max_merge_rows, outdated):
        return {
            **json.loads(info_path.read_text()),
            "changed": False,
            "written_rows": 0,
            "deleted_rows": 0,
            "merges": 0,
            "bytes_written": 0,
        }
    info_path.unlink(missing_ok=True)
    deleted = tombstone(state, gone)
    written_rows = segment_bytes = 0
    if written:
        segment = write_new(written)
        state.segments.append(segment)
        written_rows, segment_bytes = segment.rows, tree_bytes(segment.path)
    merges, merged_bytes = run_merges(state, merge, max_merge_rows, outdated)
    segment_bytes += merged_bytes
    known = {p.name for p in (part_dir / DELETED_DIR).iterdir()} if (part_dir / DELETED_DIR).exists() else set()
    state.write()
    state.collect_garbage()
    new_tombstones = [p for p in (part_dir / DELETED_DIR).iterdir() if p.name not in known]
    result = {
        "format": FORMAT,
        "rows": sum(state.live_rows(s) for s in state.segments),
        "segments": len(state.segments),
        "changed": True,
        "written_rows": written_rows,
        "deleted_rows": deleted,
        "merges": merges,
        **info(state),
    }
    result["bytes_written"] = (
        segment_bytes + sum(p.stat().st_size for p in new_tombstones) + (part_dir / LIVE).stat().st_size
    )
    write_json(info_path, result)
    return result


def merge_part(
    part_dir: Path,
    merge: Callable[[PartState, Sequence[Segment]], Segment],
    max_merge_rows: int,
    outdated: Outdated | None = None,
) -> dict:
    """Run the merges :func:`plan_merges` asks for up to ``max_merge_rows`` (the ones a night leaves), nothing else."""
    part_dir = Path(part_dir)
    state = PartState.read(part_dir)
    if not plan_merges(state, max_merge_rows, outdated):
        return {"merges": 0, "bytes_written": 0}
    info_path = part_dir / BUILD_INFO
    info = json.loads(info_path.read_text()) if info_path.exists() else {}
    info_path.unlink(missing_ok=True)
    merges, segment_bytes = run_merges(state, merge, max_merge_rows, outdated)
    state.write()
    state.collect_garbage()
    write_json(info_path, {**info, "segments": len(state.segments), "merges": merges, "bytes_written": segment_bytes})
    return {"merges": merges, "bytes_written": segment_bytes, "segments": len(state.segments)}
