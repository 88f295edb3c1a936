"""Where a board belongs: its municipality or region, or the public body its notices name — placed once, when the
register is read (the ``board_registry`` asset), and read back for the documents the boards own.

:func:`place_boards` places a register read: by municipality, name or page (:func:`mendel.registers.municipalities.
place_boards`), then a board no municipality runs by the file numbers of its notices stored so far
(:func:`mendel.registers.public_bodies.place_boards`). A board whose notices were first stored in this night's crawl
is placed by them at the next register read. :func:`document_places` only reads the register table.
"""

from __future__ import annotations

from mendel.crawl.boards.board import BOARD_SOURCE, Board
from mendel.registers import municipalities, public_bodies


def notice_numbers(conn, urls) -> dict[str, list[str | None]]:
    """Board URL → the file numbers (číslo jednací; None where a notice has none) of the notices stored for it
    (``documents.listing`` is its URL); a board with none stored is absent."""
    out: dict[str, list[str | None]] = {}
    for listing, citation in conn.execute(
        "SELECT listing, citation FROM documents WHERE source = %s AND doc_type = 'notice' AND status = 'active'"
        " AND listing = ANY(%s) ORDER BY listing, doc_id",
        (BOARD_SOURCE, list(urls)),
    ):
        out.setdefault(listing, []).append(citation)
    return out


def place_by_notices(conn, boards) -> list[Board]:
    """``boards`` linked to their public body by the file numbers of their notices stored so far."""
    boards = list(boards)
    return public_bodies.place_boards(boards, notice_numbers(conn, {b.url for b in boards}))


def place_boards(conn, boards) -> tuple[list[Board], int]:
    """A register read placed: by municipality, name or page, then by the notices stored so far; returns the boards
    and how many have a municipality or region."""
    placed, _ = municipalities.place_boards(list(boards))
    placed = place_by_notices(conn, placed)
    return placed, sum(1 for b in placed if b.obec or b.kraj or b.body)


def document_places(conn) -> dict[str, dict]:
    """doc_id → {kraj, okres, obec, body, body_scope} for the board documents whose board has a place or a body
    (what the bundle shows and search filters by); a board's notices and attachments inherit them."""
    rows = conn.execute(
        "SELECT DISTINCT ON (d.doc_id) d.doc_id, b.kraj, b.okres, b.obec, b.body, b.body_scope FROM documents d"
        " JOIN boards b ON b.url = d.listing WHERE d.source = %s"
        " AND (b.kraj IS NOT NULL OR b.obec IS NOT NULL OR b.body IS NOT NULL)"
        " ORDER BY d.doc_id, b.removed_at DESC NULLS FIRST",
        (BOARD_SOURCE,),
    ).fetchall()
    fields = ("kraj", "okres", "obec", "body", "body_scope")
    return {doc_id: {k: v for k, v in zip(fields, values) if v} for doc_id, *values in rows}
