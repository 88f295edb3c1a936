"""Where a stored document comes from, as the bundle tells it beside each hit: a record document's record and
sources, a notice attachment's notice and board."""

from __future__ import annotations

import psycopg


def record_grounding(conn: psycopg.Connection) -> dict[str, dict]:
    """doc_id → {"record": …, "record_sources": [...]} for the active record documents."""
    return {
        doc_id: {"record": record, "record_sources": sources}
        for doc_id, record, sources in conn.execute(
            "SELECT r.doc_id, r.record, r.sources FROM record_documents r JOIN documents d USING (doc_id)"
            " WHERE d.status = 'active'"
        )
    }


def notice_links(conn: psycopg.Connection) -> dict[str, dict]:
    """attachment doc_id → {"notice": {doc_id, title, url, board}}: the notice (and its board) each stored notice
    attachment belongs to, so its hits name their parent notice."""
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
