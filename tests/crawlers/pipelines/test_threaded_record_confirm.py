"""The board crawl's record step confirms unchanged notices in batches: what it writes equals the one-transaction-a-
notice way (crawlers.pipelines.threaded_record, mendel.crawl.crawlstate.confirm_unchanged)."""

from __future__ import annotations

import hashlib
import uuid

import psycopg
import pytest

from crawlers.items import FetchedDocument
from mendel.crawl import crawlstate
from tests.support.boards import crawl, notice


def state(database_url: str, run_id: str) -> tuple[list, list, list]:
    with psycopg.connect(database_url) as conn:
        log = conn.execute(
            "SELECT url, status, outcome, sha256, etag, last_modified, byte_size, reason FROM crawl_log"
            " WHERE run_id = %s ORDER BY url, id",
            (run_id,),
        ).fetchall()
        # the current version by its bytes (the long way's upserts use up version ids: the numbers differ)
        documents = conn.execute(
            "SELECT d.doc_id, d.url, d.title, d.doc_type, d.citation, d.published, d.listing,"
            " d.status, v.sha256 FROM documents d JOIN document_versions v"
            " ON v.version_id = d.current_version_id ORDER BY d.doc_id"
        ).fetchall()
        quarantine = conn.execute("SELECT url, resolved_by FROM quarantine ORDER BY url").fetchall()
    return log, documents, quarantine


def second_night() -> list[FetchedDocument]:
    """Three notices as the first night stored them, one with new text, one with a new title (same bytes)."""
    renamed = notice(5)
    renamed.title = "Oznámení 5 (opraveno)"
    return [notice(1), notice(2), notice(3), notice(4, text="Změněné znění vyhlášky."), renamed]


@pytest.mark.parametrize("batch", [1, 2, 500])
def test_batched_confirmation_writes_what_one_transaction_a_notice_writes(fresh_db, pg_server_url, tmp_path, batch):
    from mendel.core import db

    slow_db = db.create_database(pg_server_url, f"t_{uuid.uuid4().hex[:12]}")
    db.migrate(slow_db)
    outcomes = {}
    for name, url, fast in (("fast", fresh_db, True), ("slow", slow_db, False)):
        store = str(tmp_path / name)
        first_night = [notice(n) for n in range(1, 6)]  # the record step empties an item's body
        assert crawl(url, store, "night-1", first_night, fast=fast, batch=batch) == ["stored"] * 5
        with psycopg.connect(url, autocommit=True) as conn:  # an open crawl quarantine entry of notice 2
            crawlstate.quarantine(conn, stage="crawl", source="boards", url=notice(2).url, reason="HTTP 503")
        outcomes[name] = crawl(url, store, "night-2", second_night(), fast=fast, batch=batch)
    assert outcomes["fast"] == outcomes["slow"] == ["unchanged", "unchanged", "unchanged", "stored", "unchanged"]
    assert state(fresh_db, "night-2") == state(slow_db, "night-2")
    log, documents, quarantine = state(fresh_db, "night-2")
    assert [row[2] for row in log] == ["unchanged", "unchanged", "unchanged", "stored", "unchanged"]
    assert dict(quarantine)[notice(2).url] == "night-2"
    assert [row[2] for row in documents if row[0].endswith("/5")] == ["Oznámení 5 (opraveno)"]


def test_unchanged_notices_take_no_transaction_each(fresh_db, tmp_path, monkeypatch):
    store = str(tmp_path / "raw")
    crawl(fresh_db, store, "night-1", [notice(n) for n in range(1, 8)])
    with psycopg.connect(fresh_db) as conn:
        seen_before = dict(conn.execute("SELECT doc_id, last_seen FROM documents"))
    calls = []
    monkeypatch.setattr(
        crawlstate,
        "record_document",
        lambda *args, **kwargs: calls.append(kwargs["doc_id"]) or crawlstate.FetchRecord("stored", 0),
    )
    batches = []
    confirm = crawlstate.confirm_unchanged
    monkeypatch.setattr(
        crawlstate,
        "confirm_unchanged",
        lambda conn, **kwargs: batches.append(len(kwargs["rows"])) or confirm(conn, **kwargs),
    )
    new = []
    record_new = crawlstate.record_new_documents
    monkeypatch.setattr(
        crawlstate,
        "record_new_documents",
        lambda conn, **kwargs: new.append([r["doc_id"] for r in kwargs["rows"]]) or record_new(conn, **kwargs),
    )
    outcomes = crawl(fresh_db, store, "night-2", [notice(n) for n in range(1, 8)] + [notice(9)], batch=3)
    assert outcomes == ["unchanged"] * 7 + ["stored"]
    assert calls == []  # none is recorded the long way: the new notice goes in a batch of new documents
    assert new == [[notice(9).doc_id]]
    assert sorted(batches) == [1, 3, 3]  # two full batches, the rest when the spider closes
    with psycopg.connect(fresh_db) as conn:
        assert crawlstate.outcome_counts(conn, "night-2")["unchanged"] == 7
        seen_after = dict(conn.execute("SELECT doc_id, last_seen FROM documents"))
    assert all(seen_after[doc_id] > seen for doc_id, seen in seen_before.items())  # confirmed: still there


def test_missing_blob_is_stored_again(fresh_db, tmp_path):
    from mendel.core.rawstore import RawStore

    store = tmp_path / "raw"
    crawl(fresh_db, str(store), "night-1", [notice(1)])
    item = notice(1)
    digest = hashlib.sha256(item.body).hexdigest()
    RawStore(store).path_for(digest).unlink()
    assert crawl(fresh_db, str(store), "night-2", [item]) == ["unchanged"]
    assert RawStore(store).exists(digest)
