"""The registry stage: RÚIAN files not yet loaded streamed into ``registry_records``; an unreadable file is
quarantined."""

from __future__ import annotations

import json

import psycopg

from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.records.model import RECORD_DOCUMENT_TYPES

RECORD_SOURCES = ("ruian",)  # sources whose files are register records, not pages


def load_registry_pending(conn: psycopg.Connection, store: RawStore, batch_size: int = 2000) -> dict:
    """Stream RÚIAN files not yet loaded into registry_records (upsert by kind + code, newest file wins)."""
    from mendel.registers.ruian import iter_records

    rows = conn.execute(
        "SELECT v.version_id, v.doc_id, v.sha256, d.source, d.url FROM document_versions v"
        " JOIN documents d ON d.doc_id = v.doc_id WHERE d.source = ANY(%s) AND v.records_loaded_at IS NULL"
        " AND coalesce(d.doc_type, '') <> ALL(%s) ORDER BY v.version_id",
        (list(RECORD_SOURCES), list(RECORD_DOCUMENT_TYPES)),
    ).fetchall()
    stats: dict = {"files": 0, "records": 0, "quarantined": 0, "by_kind": {}}
    upsert = (
        "INSERT INTO registry_records (source, kind, code, name, parent_code, valid_from, data, version_id)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (source, kind, code) DO UPDATE SET"
        " name = EXCLUDED.name, parent_code = EXCLUDED.parent_code, valid_from = EXCLUDED.valid_from,"
        " data = EXCLUDED.data, version_id = EXCLUDED.version_id, updated_at = now()"
    )
    for version_id, doc_id, sha256, source, url in rows:
        batch: list[tuple] = []
        try:
            with conn.transaction():
                with conn.cursor() as cur:
                    for record in iter_records(store.path_for(sha256)):
                        parent = (
                            record.get("obec_kod") or record.get("cast_obce_kod") or record.get("stavebni_objekt_kod")
                        )
                        batch.append(
                            (
                                source,
                                record["kind"],
                                record["kod"],
                                record.get("nazev"),
                                parent,
                                record.get("plati_od"),
                                json.dumps(record, ensure_ascii=False),
                                version_id,
                            )
                        )
                        stats["by_kind"][record["kind"]] = stats["by_kind"].get(record["kind"], 0) + 1
                        if len(batch) >= batch_size:
                            cur.executemany(upsert, batch)
                            stats["records"] += len(batch)
                            batch.clear()
                    cur.executemany(upsert, batch)
                    stats["records"] += len(batch)
                conn.execute(
                    "UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s", (version_id,)
                )
            stats["files"] += 1
        # ValueError covers VfrError and values the reader can't convert; the database refuses a record without
        # its code (IntegrityError) or with text it can't store (DataError): the file is quarantined, not the run.
        except (ValueError, OSError, psycopg.DataError, psycopg.IntegrityError) as exc:
            with conn.transaction():
                crawlstate.quarantine(
                    conn,
                    stage="extract",
                    reason=f"unreadable RÚIAN file: {exc}",
                    source=source,
                    doc_id=doc_id,
                    url=url,
                    sha256=sha256,
                )
                conn.execute(
                    "UPDATE document_versions SET records_loaded_at = now() WHERE version_id = %s", (version_id,)
                )
            stats["quarantined"] += 1
    return stats
