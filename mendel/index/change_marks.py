"""Which documents a night's index step reads: those marked changed since the step last ran, not every document.

The database marks a document with the id of the transaction that may have changed what an index holds of it
(``documents.changed_txid``; a deleted document in ``document_removals``: migration 0037). Each segmented part keeps, beside it in
the build directory, the mark it last consumed and what its digests were made with (``basis``: the analyser's
version for BM25). A night then digests only the marked documents, and takes every other document's digest from
the part's own live segments: the part's update (mendel.index.segment_updates) sees exactly the changes it would see
digesting every document, at the cost of the change.

Without a usable mark (a first night, a part rebuilt or removed, another basis, a part holding another number of
documents than when the mark was written) every document is digested, as before marks. A step's mark is the oldest
transaction still running when it looked (``txid_snapshot_xmin``): a change committed after it looked has a
transaction id at least that, and is read again next time however long its transaction ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable

import psycopg

from mendel.index.segments import PartState, is_segmented, write_json

MARK_SUFFIX = ".mark.json"

# The mark now: every change not yet visible has a transaction id at least this; the documents marked since a mark
_NEWEST = "SELECT txid_snapshot_xmin(txid_current_snapshot())"
_MARKED_SINCE = (
    "SELECT doc_id FROM documents WHERE changed_txid >= %(mark)s"
    " UNION SELECT doc_id FROM document_removals WHERE changed_txid >= %(mark)s"
)


def consumed_mark(conn: psycopg.Connection, consumer: str, basis: str) -> int | None:
    """The mark a step keeping its state in the database (``consumer``) last consumed with ``basis``; else None."""
    found = conn.execute("SELECT mark, basis FROM change_mark_consumers WHERE consumer = %s", (consumer,)).fetchone()
    return int(found[0]) if found and found[1] == basis else None


def consume_mark(conn: psycopg.Connection, consumer: str, mark: int, basis: str) -> None:
    conn.execute(
        "INSERT INTO change_mark_consumers (consumer, mark, basis) VALUES (%s, %s, %s)"
        " ON CONFLICT (consumer) DO UPDATE SET mark = EXCLUDED.mark, basis = EXCLUDED.basis",
        (consumer, mark, basis),
    )


def mark_path(part_dir: Path) -> Path:
    """Beside the part, not in it: a bundle links the part's files, and a mark of its own would differ nightly."""
    part_dir = Path(part_dir)
    return part_dir.parent / f".{part_dir.name}{MARK_SUFFIX}"


def newest_mark(conn: psycopg.Connection) -> int:
    return int(conn.execute(_NEWEST).fetchone()[0])


def marked_since(conn: psycopg.Connection, mark: int) -> set[str]:
    return {d for (d,) in conn.execute(_MARKED_SINCE, {"mark": mark})}


def read_mark(part_dir: Path, basis: str, state: PartState | None = None) -> int | None:
    """The mark ``part_dir`` last consumed, when it can be trusted: written for this basis and for the documents the
    part holds now; else None."""
    path = mark_path(part_dir)
    if not is_segmented(part_dir) or not path.exists():
        return None
    try:
        mark = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    state = state or PartState.read(part_dir)
    if mark.get("basis") != basis or mark.get("documents") != len(state.live_documents()):
        return None
    return int(mark["mark"])


def write_mark(part_dir: Path, mark: int, basis: str) -> None:
    documents = len(PartState.read(part_dir).live_documents())
    write_json(mark_path(part_dir), {"mark": mark, "basis": basis, "documents": documents})


def current_digests(
    conn: psycopg.Connection,
    part_dir: Path,
    basis: str,
    digests_of: Callable[[Iterable[str] | None], tuple[dict[str, str], set[str] | None]],
) -> tuple[dict[str, str], int, dict]:
    """doc_id -> digest of every document the part should hold, digesting only what changed since its mark:
    ``digests_of(doc_ids)`` returns the digests of those documents that still have rows and the documents it
    examined (``doc_ids`` and any it always examines); ``digests_of(None)`` digests every document. Returns the
    digests, the mark to write once the part holds them (:func:`write_mark`) and what was read."""
    now = newest_mark(conn)
    state = PartState.read(part_dir) if is_segmented(part_dir) else None
    since = read_mark(part_dir, basis, state) if state is not None else None
    if since is None:
        digests, _ = digests_of(None)
        return digests, now, {"digested": "all", "documents_digested": len(digests)}
    found, examined = digests_of(sorted(marked_since(conn, since)))
    examined = set(examined or ()) | set(found)
    current = {d: digest for d, (_, digest, _, _) in state.live_documents().items() if d not in examined}
    current.update(found)
    return current, now, {"digested": "marked", "documents_digested": len(examined)}
