"""Which attachments belong to which notice (``notice_attachments``): the one module that writes and reads them.

The board crawl writes a notice's links each time a board lists it (:func:`record_notice_links`, all its
attachments in order, whether or not each could be fetched); the next crawl reads the links of the attachments it
deferred (:func:`deferred_attachment_links`); the bundle and the PostgreSQL searcher read each stored attachment's
notice (:func:`attachment_notices`), so an attachment's hits name their notice and its board, and each notice's
attachments (:func:`notice_attachment_lists`), so a notice's card lists them, stored or not.
"""

from __future__ import annotations


def record_notice_links(conn, board: str, links) -> int:
    """``links``: (notice doc_id, [(attachment doc_id, name), …]) for the notices a board lists in this read.
    Each notice's links are replaced as a whole (its attachments in order); returns the rows written. A notice a
    board lists twice in one read (edesky's rows of Kubova Huť repeat) is linked once, as first listed."""
    first: dict[str, list] = {}
    for notice, attachments in links:
        first.setdefault(notice, attachments)
    links = list(first.items())
    if not links:
        return 0
    rows = [
        (notice, position, attachment, name, board)
        for notice, attachments in links
        for position, (attachment, name) in enumerate(attachments)
    ]
    with conn.transaction():
        conn.execute("DELETE FROM notice_attachments WHERE notice_doc_id = ANY(%s)", ([n for n, _ in links],))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO notice_attachments (notice_doc_id, position, attachment_doc_id, name, board)"
                " VALUES (%s, %s, %s, %s, %s)",
                rows,
            )
    return len(rows)


def deferred_attachment_links(conn) -> dict[str, tuple]:
    """attachment doc_id (its published URL) → (name, position, board, notice doc_id, title, citation, published):
    each attachment's newest link and what its notice's document says, for requesting a deferred attachment again."""
    rows = conn.execute(
        "SELECT DISTINCT ON (a.attachment_doc_id) a.attachment_doc_id, a.name, a.position, a.board,"
        " n.doc_id, n.title, n.citation, n.published FROM notice_attachments a"
        " JOIN documents n ON n.doc_id = a.notice_doc_id ORDER BY a.attachment_doc_id, a.seen_at DESC"
    ).fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def attachment_notices(conn) -> dict[str, dict]:
    """attachment doc_id → {"notice": {doc_id, title, url, board, attachment_name}}: the notice (and its board) each
    stored notice attachment belongs to, so its hits name their parent notice."""
    rows = conn.execute(
        "SELECT DISTINCT ON (a.attachment_doc_id) a.attachment_doc_id, n.doc_id, n.title, n.url,"
        " coalesce(b.name, a.board), a.name FROM notice_attachments a JOIN documents n ON n.doc_id = a.notice_doc_id"
        " JOIN documents d ON d.doc_id = a.attachment_doc_id AND d.status = 'active'"
        " LEFT JOIN boards b ON b.url = a.board AND b.removed_at IS NULL"
        " ORDER BY a.attachment_doc_id, n.status = 'active' DESC, a.seen_at DESC"
    ).fetchall()
    return {
        attachment: {"notice": {"doc_id": notice, "title": title, "url": url, "board": board, "attachment_name": name}}
        for attachment, notice, title, url, board, name in rows
    }


def notice_attachment_lists(conn) -> dict[str, dict]:
    """notice doc_id → {"attachments": [{doc_id, name, stored}]}: each active notice's attachments in order, and
    whether each is stored (searchable) — one that could not be fetched is listed all the same."""
    rows = conn.execute(
        "SELECT a.notice_doc_id, a.attachment_doc_id, a.name, d.doc_id IS NOT NULL FROM notice_attachments a"
        " JOIN documents n ON n.doc_id = a.notice_doc_id AND n.status = 'active'"
        " LEFT JOIN documents d ON d.doc_id = a.attachment_doc_id AND d.status = 'active'"
        " ORDER BY a.notice_doc_id, a.position"
    ).fetchall()
    lists: dict[str, dict] = {}
    for notice, attachment, name, stored in rows:
        lists.setdefault(notice, {"attachments": []})["attachments"].append(
            {"doc_id": attachment, "name": name, "stored": bool(stored)}
        )
    return lists
