"""Migrations 0037 and 0038: a document is marked (documents.changed_txid, the writing transaction's id) whenever
what an index holds of it may have changed -- its chunks inserted, deleted or changed in a digested column, its own
indexed columns changed, the document deleted -- and only then (mendel.index.change_marks reads the marks)."""

from __future__ import annotations

import psycopg
import pytest

from mendel.index.change_marks import marked_since, newest_mark
from tests.mendel.core.db.test_chunk_postings import insert_document


def insert_chunk(conn, chunk_id: str, version_id: int, doc_id: str, text: str = "text") -> None:
    conn.execute(
        "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start, char_end, text,"
        " content_hash) VALUES (%s, %s, %s, 0, 1, 1, 0, 1, %s, %s)",
        (chunk_id, version_id, doc_id, text, chunk_id),
    )


@pytest.fixture
def marked(fresh_db):
    """Three documents of one chunk each, and the mark after them."""
    conn = psycopg.connect(fresh_db, autocommit=True)
    for doc in ("d1", "d2", "d3"):
        insert_chunk(conn, f"{doc}c", insert_document(conn, doc), doc)
    # the mark as of now in this database: newest_mark looks at the oldest transaction open anywhere on the server,
    # which another test's idle connection can hold back (then every document reads as changed: safe, not exact)
    yield conn, conn.execute("SELECT txid_current()").fetchone()[0] + 1
    conn.close()


def test_nothing_changed_marks_nothing(marked):
    conn, mark = marked
    conn.execute("UPDATE chunks SET ner_done_at = now(), lexemes = to_tsvector('simple', text)")
    conn.execute("UPDATE documents SET listing = 'x'")
    assert marked_since(conn, mark) == set()


@pytest.mark.parametrize(
    "change, expected",
    [
        ("UPDATE chunks SET content_hash = 'new', text = 'new' WHERE chunk_id = 'd1c'", {"d1"}),
        ("UPDATE chunks SET summary = 'shrnutí' WHERE doc_id IN ('d1', 'd3')", {"d1", "d3"}),
        ("UPDATE chunks SET embedded_hash = 'e' WHERE chunk_id = 'd2c'", {"d2"}),
        ("DELETE FROM chunks WHERE chunk_id = 'd2c'", {"d2"}),
        ("UPDATE documents SET title = 'Nový název' WHERE doc_id = 'd3'", {"d3"}),
        ("UPDATE documents SET status = 'withdrawn' WHERE doc_id = 'd1'", {"d1"}),
        ("DELETE FROM document_versions WHERE doc_id = 'd2'; DELETE FROM documents WHERE doc_id = 'd2'", {"d2"}),
        ("TRUNCATE chunks CASCADE", {"d1", "d2", "d3"}),
    ],
)
def test_a_change_marks_exactly_its_documents(marked, change, expected):
    conn, mark = marked
    conn.execute(change)
    assert marked_since(conn, mark) == expected


def test_a_new_chunk_marks_its_document_once_per_statement(marked):
    conn, mark = marked
    version = conn.execute("SELECT version_id FROM document_versions WHERE doc_id = 'd1'").fetchone()[0]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start, char_end, text,"
            " content_hash) VALUES (%s, %s, 'd1', 1, 1, 1, 0, 1, 't', %s)",
            [(f"d1n{i}", version, f"h{i}") for i in range(3)],
        )
    assert marked_since(conn, mark) == {"d1"}


def test_a_change_committed_after_the_mark_is_read_however_early_it_began(marked, fresh_db):
    conn, _ = marked
    with psycopg.connect(fresh_db) as slow:
        slow.execute("UPDATE documents SET title = 'Později' WHERE doc_id = 'd2'")  # running, not yet committed
        mark = newest_mark(conn)
        assert mark <= conn.execute("SELECT txid_current()").fetchone()[0]
        conn.execute("UPDATE documents SET title = 'Hned' WHERE doc_id = 'd1'")
        # (exactly {"d1"} on a quiet server; a transaction open elsewhere, another test's, holds the mark back and
        # the fixture's documents read as changed too: so the test asks only for what must be there)
        assert "d1" in marked_since(conn, mark)
        slow.commit()
    assert {"d1", "d2"} <= marked_since(conn, mark)


def test_an_update_of_lexemes_alone_leaves_the_mark_and_one_of_content_hash_moves_it(marked):
    # migration 0038: the row trigger's WHEN, not transition tables, decides which updates mark
    conn, mark = marked
    conn.execute(
        "UPDATE chunks SET lexemes = 'slovo:1', lexemes_hash = 'h', term_names = '{slovo}', term_counts = '{1}'"
        " WHERE chunk_id = 'd1c'"
    )
    assert marked_since(conn, mark) == set()
    conn.execute("UPDATE chunks SET content_hash = 'changed' WHERE chunk_id = 'd1c'")
    assert marked_since(conn, mark) == {"d1"}


def test_a_chunk_moved_to_another_document_marks_both(marked):
    conn, mark = marked
    conn.execute("UPDATE chunks SET doc_id = 'd3' WHERE chunk_id = 'd2c'")
    assert marked_since(conn, mark) == {"d2", "d3"}


def test_a_bulk_update_writes_each_marked_document_once(marked):
    conn, mark = marked
    version = conn.execute("SELECT version_id FROM document_versions WHERE doc_id = 'd1'").fetchone()[0]
    for i in range(3):
        insert_chunk(conn, f"d1n{i}", version, "d1")
    # the rows of documents written, counted within one transaction (the counts pending from earlier ones cancel)
    documents_written = "SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'documents'"
    with conn.transaction():
        before = conn.execute(documents_written).fetchone()[0]
        conn.execute("UPDATE chunks SET embedded_hash = 'new' WHERE doc_id = 'd1'")  # four rows, one document
        conn.execute("UPDATE chunks SET summary = 'shrnutí' WHERE doc_id = 'd1'")  # the same transaction again
        assert conn.execute(documents_written).fetchone()[0] - before == 1  # the changed_txid guard: not one a chunk
    assert marked_since(conn, mark) == {"d1"}


def test_one_row_statements_after_a_bulk_one_probe_the_documents_key(fresh_db):
    # migration 0038: a trigger function's plan made for a bulk statement's transition table is kept for the
    # session; it must not read every document for each one-row statement after it
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO documents (doc_id, source, url) SELECT 'd' || i, 'test', 'https://x/' || i"
            " FROM generate_series(1, 2000) i"
        )
        conn.execute(
            "INSERT INTO document_versions (doc_id, sha256, byte_size) SELECT doc_id, doc_id, 1 FROM documents"
        )
        conn.execute("ANALYZE documents")
        conn.execute(  # a bulk insert, then one of the chunk stage's one-row statements
            "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start, char_end, text,"
            " content_hash) SELECT doc_id || 'c', version_id, doc_id, 0, 1, 1, 0, 1, 't', 'h' FROM document_versions"
        )
        conn.execute("DELETE FROM chunks WHERE doc_id <> 'd1'")
        scans = "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'documents'"
        mark = conn.execute("SELECT txid_current()").fetchone()[0] + 1
        with conn.transaction():
            before = conn.execute(scans).fetchone()[0]
            version = conn.execute("SELECT version_id FROM document_versions WHERE doc_id = 'd2'").fetchone()[0]
            insert_chunk(conn, "d2n", version, "d2")
            conn.execute("DELETE FROM chunks WHERE chunk_id = 'd1c'")
            assert conn.execute(scans).fetchone()[0] == before
        assert marked_since(conn, mark) == {"d1", "d2"}


ACT_VERSION = (
    "INSERT INTO act_versions (doc_id, version, stale_url, citation, fragment_count, reference_count, sha256)"
    " VALUES (%s, %s, '/sb/2025/1', '1/2025 Sb.', 1, 0, %s)"
)
PROVISION = (
    "INSERT INTO provisions (doc_id, version, provision_id, path, kind, seq, last_seq, depth, heading, text,"
    " wording_sha) VALUES (%s, '2025-01-01', %s, %s, 'Paragraf', %s, %s, 1, %s, 'znění', 'w')"
)


@pytest.fixture
def act(marked):
    """d1 an act: a version with two provisions and a passage (migration 0040), and the mark after them."""
    conn, _ = marked
    conn.execute(ACT_VERSION, ("d1", "2025-01-01", "s1"))
    conn.execute(PROVISION, ("d1", "par_1", "par_1", 1, 1, "Předmět"))
    conn.execute(PROVISION, ("d1", "par_2", "par_2", 2, 2, "Pojmy"))
    conn.execute(
        "INSERT INTO act_passages (chunk_id, doc_id, provision_id, wording_sha, versions, page_located)"
        " VALUES ('d1c', 'd1', 'par_1', 'w', '{2025-01-01}', false)"
    )
    yield conn, conn.execute("SELECT txid_current()").fetchone()[0] + 1


@pytest.mark.parametrize(
    "change, expected",
    [
        # e-Sbírka confirming a version unchanged, the passages stage writing its rows as they were: no mark
        ('UPDATE act_versions SET page_etags = \'{"p": "e"}\', checked_at = now()', set()),
        ("UPDATE act_passages SET versions = versions, page_located = page_located", set()),
        ("UPDATE provisions SET heading = heading", set()),
        # what an act's chunks carry changed: its version's dates, a heading, a passage's versions, a new version
        ("UPDATE act_versions SET effective_to = '2026-01-01'", {"d1"}),
        ("UPDATE provisions SET heading = 'Předmět úpravy' WHERE provision_id = 'par_1'", {"d1"}),
        ("UPDATE act_passages SET versions = '{2025-01-01,2026-01-01}'", {"d1"}),
        ("DELETE FROM provisions WHERE provision_id = 'par_2'", {"d1"}),
        (
            "INSERT INTO act_versions (doc_id, version, stale_url, citation, fragment_count, reference_count, sha256)"
            " VALUES ('d1', '2026-01-01', '/sb/2025/1', '1/2025 Sb.', 1, 0, 's2')",
            {"d1"},
        ),
        ("DELETE FROM act_versions", {"d1"}),
    ],
)
def test_a_write_to_an_acts_tables_marks_the_act_where_a_value_changed(act, change, expected):
    conn, mark = act
    conn.execute(change)
    assert marked_since(conn, mark) == expected
