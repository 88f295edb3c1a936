"""The board crawl's record step stores new documents in batches (crawlers.pipelines.threaded_record,
mendel.crawl.crawlstate.record_new_documents): the database ends as the one-transaction-a-document way leaves it, for new,
changed and unchanged notices alike; a document the database refuses is quarantined with the error and the others
of its batch are stored; in an outage the batch's records wait in the spool."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest

from crawlers.items import FetchedDocument
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl import crawlstate
from mendel.crawl.outage import OutageSpool
from tests.support.boards import crawl, notice

FEED = "https://deska.example/feed.jsonld"
PDFS = sorted((SAMPLE_CORPUS / "municipal" / "blesno" / "text").glob("*.pdf"))


def attachment(number: int) -> FetchedDocument:
    return FetchedDocument(
        source="boards",
        doc_id=f"https://deska.example/files/{number}.pdf",
        url=f"https://deska.example/files/{number}.pdf",
        body=PDFS[number].read_bytes(),
        content_type="application/pdf",
        title=f"Oznámení {number} – příloha",
        doc_type="notice_attachment",
        citation=f"ČJ {number}/2026",
        published="2026-11-02",
        http_status=200,
        etag=f'"e{number}"',
        last_modified="Mon, 02 Nov 2026 10:00:00 GMT",
        listing=FEED,
    )


def state(database_url: str) -> dict[str, list]:
    """Every row the record step writes, without ids and timestamps."""
    with psycopg.connect(database_url) as conn:
        return {
            "crawl_log": conn.execute(
                "SELECT run_id, source, url, status, outcome, sha256, etag, last_modified, byte_size, reason"
                " FROM crawl_log ORDER BY run_id, url, id"
            ).fetchall(),
            "documents": conn.execute(
                "SELECT d.doc_id, d.source, d.url, d.title, d.doc_type, d.citation, d.published, d.listing, d.status,"
                " v.sha256, d.last_seen >= d.first_seen FROM documents d"
                " JOIN document_versions v ON v.version_id = d.current_version_id ORDER BY d.doc_id"
            ).fetchall(),
            "versions": conn.execute(
                "SELECT doc_id, sha256, content_type, byte_size, chunked_at IS NULL FROM document_versions"
                " ORDER BY doc_id, version_id"
            ).fetchall(),
            "quarantine": conn.execute(
                "SELECT stage, source, url, sha256, reason, resolved_at IS NULL, resolved_by FROM quarantine"
                " ORDER BY url, reason"
            ).fetchall(),
        }


def first_night() -> list[FetchedDocument]:
    """New notices and attachments — one notice twice in the run (a listing that repeats it, with new text)."""
    return [
        notice(1),
        notice(2),
        attachment(1),
        notice(3),
        notice(2, text="Druhé znění téže vyhlášky."),
        notice(4),
        attachment(2),
        notice(5),
    ]


def second_night() -> list[FetchedDocument]:
    """Unchanged, changed (new text), renamed (same bytes), back to an earlier version, and new notices."""
    renamed = notice(5)
    renamed.title = "Oznámení 5 (opraveno)"
    return [
        notice(1),
        notice(3, text="Změněné znění."),
        renamed,
        notice(2),
        notice(6),
        attachment(1),
        notice(7),
        attachment(3),
        notice(6, text="Opravené znění nového oznámení."),
        notice(8),
    ]


@pytest.mark.parametrize("batch", [1, 3, 500])
def test_batched_new_documents_write_what_one_transaction_a_document_writes(fresh_db, pg_server_url, tmp_path, batch):
    from mendel.core import db

    slow_db = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    db.migrate(slow_db)
    outcomes = {}
    for name, url, fast in (("fast", fresh_db, True), ("slow", slow_db, False)):
        store = str(tmp_path / name)
        night_1 = crawl(url, store, "night-1", first_night(), fast=fast, batch=batch)
        with psycopg.connect(url, autocommit=True) as conn:  # open crawl quarantine entries: a new and a known URL
            for item in (notice(7), notice(4)):
                crawlstate.quarantine(conn, stage="crawl", source="boards", url=item.url, reason="HTTP 503")
        outcomes[name] = night_1, crawl(url, store, "night-2", second_night(), fast=fast, batch=batch)
    assert outcomes["fast"] == outcomes["slow"]
    assert outcomes["fast"][0] == ["stored"] * 8
    assert outcomes["fast"][1] == [
        "unchanged",
        "stored",
        "unchanged",
        "stored",
        "stored",
        "unchanged",
        "stored",
        "stored",
        "stored",
        "stored",
    ]
    fast, slow = state(fresh_db), state(slow_db)
    assert fast == slow
    assert len(fast["documents"]) == 11 and len(fast["crawl_log"]) == 18
    assert sorted(p.relative_to(tmp_path / "fast") for p in (tmp_path / "fast").rglob("*")) == sorted(
        p.relative_to(tmp_path / "slow") for p in (tmp_path / "slow").rglob("*")
    )
    resolved = {url: by for _, _, url, _, _, _, by in fast["quarantine"]}
    assert resolved == {notice(7).url: "night-2", notice(4).url: None}


def test_a_refused_document_is_quarantined_and_its_batch_stored(fresh_db, tmp_path, caplog):
    bad = notice(3, published="2026-02-30")  # no such day: PostgreSQL refuses the date
    items = [notice(1), notice(2), bad, attachment(1), notice(4)]
    with caplog.at_level("ERROR", logger="crawlers.pipelines.threaded_record"):
        outcomes = crawl(fresh_db, str(tmp_path / "raw"), "night-1", items, batch=500)
    assert outcomes == ["stored"] * 5  # decided when the batch is written, after the items left the step
    with psycopg.connect(fresh_db) as conn:
        stored = {doc_id for (doc_id,) in conn.execute("SELECT doc_id FROM documents")}
        log = conn.execute("SELECT url, outcome, status, reason FROM crawl_log ORDER BY id").fetchall()
        quarantine = conn.execute("SELECT url, stage, reason, sha256 FROM quarantine").fetchall()
    assert stored == {item.doc_id for item in items if item is not bad}
    assert sorted(outcome for _, outcome, _, _ in log) == ["quarantined"] + ["stored"] * 4
    [(url, outcome, status, reason)] = [row for row in log if row[1] == "quarantined"]
    assert (url, status) == (bad.url, 200)
    assert reason.startswith("not recorded: ") and "2026-02-30" in reason
    [(url, stage, q_reason, sha256)] = quarantine
    assert (url, stage, q_reason) == (bad.url, "crawl", reason) and sha256
    assert any(bad.doc_id in record.getMessage() and "not recorded" in record.getMessage() for record in caplog.records)


def test_an_outage_spools_the_batch(fresh_db, tmp_path, monkeypatch):
    spool = OutageSpool(str(tmp_path / "spool"), "boards", "night-1")

    def gone(conn, **kwargs):
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(crawlstate, "record_new_documents", gone)
    items = [notice(1), notice(2), attachment(1)]
    crawl(fresh_db, str(tmp_path / "raw"), "night-1", items, batch=500, spool=spool)
    with psycopg.connect(fresh_db) as conn:
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
    assert spool.entries == 3
    written = [
        json.loads(line)
        for path in (tmp_path / "spool").rglob("*")
        if path.is_file()
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    assert sorted(entry["fields"]["doc_id"] for entry in written if entry["kind"] == "document") == sorted(
        item.doc_id for item in items
    )
