"""The register of notice boards that the board crawl works through: the catalogue's boards, the maintained list and
the boards found on the national list's websites merged into one list of :class:`~mendel.crawl.boards.board.Board`, kept in the ``boards`` table.

:func:`load_registry` merges what the register crawl read (:mod:`mendel.crawl.boards.catalogue`) with the maintained
list (:mod:`mendel.crawl.boards.maintained_list`); in the production profile a board on a name reserved for tests
(``.test``, ``.example``: never a real site) is left out. :func:`register_boards` records a complete read in the
table (the ``board_registry`` asset, after placing: :mod:`mendel.crawl.boards.placing`), withdrawing the documents
of boards gone from it; :func:`registered_boards` reads the table back. A crawl run gets its boards as a JSON file
(:func:`write_boards_file`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mendel.crawl.boards.board import BOARD_SOURCE, LISTED_KINDS, Board, RegistryError
from mendel.crawl.boards.maintained_list import is_remote, load_html_boards


def load_registry(
    settings, catalogue: list[Board], listed: list[Board] | None = None, found: list[Board] = ()
) -> list[Board]:
    """All boards for ``settings`` (a :class:`mendel.core.config.Settings`): the catalogue's boards, then the
    maintained list (``listed``: as the register crawl read it from a URL; None: the list's file), then the boards
    the board finder found on the national list's websites and confirmed (``found``:
    :func:`mendel.crawl.boards.candidates.confirmed_boards`). A found board whose page a catalogue or list board
    already reads is that board."""
    if listed is None:
        listed = load_html_boards(settings.html_boards)
    urls = {b.url for b in [*catalogue, *listed]}
    boards: dict[str, Board] = {}
    for board in [*catalogue, *listed, *(b for b in found if b.url not in urls)]:
        if settings.profile == "production" and board.on_reserved_name:
            continue
        boards.setdefault(board.key, board)
    return list(boards.values())


def boards_for_keys(keys, settings, conn=None) -> tuple[list[Board], list[str]]:
    """The boards behind partition keys, without reading the catalogue: as the register table has them (``conn``:
    what the ``board_registry`` asset last read, places included); otherwise a catalogue key is its feed URL and
    listed keys are looked up in the maintained list's file. Returns (boards, keys that name no known board)."""
    keys = list(dict.fromkeys(keys))
    known = {b.key: b for b in registered_boards(conn, keys)} if conn is not None else {}
    listed = {}
    if not is_remote(settings.html_boards) and any(
        k.startswith(tuple(LISTED_KINDS.values())) and k not in known for k in keys
    ):
        listed = {b.key: b for b in load_html_boards(settings.html_boards)}
    boards, unknown = [], []
    for key in keys:
        if key in known:
            boards.append(known[key])
        elif key.startswith(tuple(LISTED_KINDS.values())):
            if key in listed:
                boards.append(listed[key])
            else:
                unknown.append(key)
        elif key.startswith(("http://", "https://")):
            boards.append(Board(key=key, kind="ofn", url=key))
        else:
            unknown.append(key)
    return boards, unknown


# ---------------------------------------------------------------- the register table (board_registry asset)


@dataclass(frozen=True)
class RegisterChange:
    added: list[str]  # keys new in the register
    removed: list[str]  # keys the register no longer names
    withdrawn: list[str]  # doc ids of the removed boards' documents, now withdrawn
    kept: int


def register_boards(conn, boards: list[Board]) -> RegisterChange:
    """The register as read now, in full, into ``boards``: new boards are added, known ones updated, and a board
    the register no longer names is marked removed — its documents (those it owns: ``documents.listing`` is its
    URL) are withdrawn, never deleted. A removed board that comes back is active again."""
    boards = list({b.key: b for b in boards}.values())
    keys = [b.key for b in boards]
    with conn.transaction():
        active = {k for (k,) in conn.execute("SELECT key FROM boards WHERE removed_at IS NULL")}
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO boards (key, kind, url, name, publisher_ico, obec_kod, obec, okres, kraj, body,"
                " body_scope, spec) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (key) DO UPDATE SET kind = EXCLUDED.kind, url = EXCLUDED.url, name = EXCLUDED.name,"
                "  publisher_ico = EXCLUDED.publisher_ico, obec_kod = EXCLUDED.obec_kod, obec = EXCLUDED.obec,"
                "  okres = EXCLUDED.okres, kraj = EXCLUDED.kraj, body = EXCLUDED.body,"
                "  body_scope = EXCLUDED.body_scope, spec = EXCLUDED.spec, seen_at = now(), removed_at = NULL",
                [
                    (
                        b.key,
                        b.kind,
                        b.url,
                        b.name,
                        b.publisher_ico,
                        b.obec_kod,
                        b.obec,
                        b.okres,
                        b.kraj,
                        b.body,
                        b.body_scope,
                        json.dumps(b.to_dict(), ensure_ascii=False),
                    )
                    for b in boards
                ],
            )
        removed = conn.execute(
            "UPDATE boards SET removed_at = now() WHERE removed_at IS NULL AND NOT (key = ANY(%s)) RETURNING key, url",
            (keys,),
        ).fetchall()
        # A URL another active board still reads keeps its documents.
        gone_urls = sorted({url for _, url in removed} - {b.url for b in boards})
        withdrawn = (
            [
                d
                for (d,) in conn.execute(
                    "UPDATE documents SET status = 'withdrawn' WHERE source = %s AND listing = ANY(%s) AND status = 'active'"
                    " RETURNING doc_id",
                    (BOARD_SOURCE, gone_urls),
                )
            ]
            if gone_urls
            else []
        )
    return RegisterChange(
        added=[k for k in keys if k not in active],
        removed=sorted(k for k, _ in removed),
        withdrawn=sorted(withdrawn),
        kept=len(active & set(keys)),
    )


def registered_boards(conn, keys=None) -> list[Board]:
    """The boards the register names now (``keys``: only these), in the order they were registered."""
    rows = conn.execute(
        "SELECT key, kind, url, name, spec FROM boards WHERE removed_at IS NULL"
        " AND (%s::text[] IS NULL OR key = ANY(%s)) ORDER BY registered_at, key",
        (list(keys) if keys is not None else None, list(keys) if keys is not None else None),
    ).fetchall()
    # the row's own columns where its spec lacks them (a row written without a full spec)
    return [
        Board.from_dict({"key": key, "kind": kind, "url": url, "name": name, **(spec or {})})
        for key, kind, url, name, spec in rows
    ]


def write_boards_file(boards, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([b.to_dict() for b in boards], ensure_ascii=False), encoding="utf-8")
    return path


def read_boards_file(path: str | Path) -> list[Board]:
    value = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(value, list):
        raise RegistryError(f"{path}: expected a JSON list of boards")
    return [Board.from_dict(v) for v in value]
