"""Where a stored document comes from, as the bundle tells it beside each hit: a record document's record and
sources (a notice attachment's notice and board: mendel.crawl.boards.notice_links)."""

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
