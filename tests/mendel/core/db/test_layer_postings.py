"""Migration 0035: layer_postings follows the document and section chunks' terms (chunks.term_names / term_counts)
whoever writes them -- inserted with them, written by the fill (``mendel.index.layer_terms``), replaced, cleared,
the chunk deleted or the table truncated -- with a term's exact count (a whole act holds a term more often than a
tsvector keeps); and both postings tables are vacuumed and analysed after a night's churn, not after a fifth of them
changed."""

from __future__ import annotations

from collections import Counter

import psycopg
import pytest

from mendel.czech.analyzer import analyze
from mendel.index.layer_terms import chunk_terms, fill_layer_terms, write_terms
from tests.mendel.core.db.test_chunk_postings import insert_document

# real wording (zákon o podpoře bydlení, 175/2025 Sb.): a section and the act it belongs to
TEXTS = {
    "s1": "§ 5 Potřebný. Potřebným se pro účely tohoto zákona rozumí osoba, která je v bytové nouzi.",
    "a1": "Zákon o poskytování některých opatření v podpoře bydlení. Obec může poskytovat podporu bydlení.",
}
LAYER_OF = {"s1": 2, "a1": 1}
POSTINGS = (
    "SELECT c.chunk_id, p.layer, p.term, p.frequency FROM layer_postings p JOIN chunks c ON c.passage_key = p.passage"
)


def expected(chunk_id: str, text: str) -> set[tuple[str, int, str, int]]:
    return {(chunk_id, LAYER_OF[chunk_id], term, count) for term, count in Counter(analyze(text)).items()}


def postings(conn) -> set[tuple[str, int, str, int]]:
    return set(conn.execute(POSTINGS).fetchall())


def insert_chunk(conn, chunk_id: str, version_id: int, doc_id: str, text: str, with_terms: bool) -> None:
    names, counts = chunk_terms(text) if with_terms else (None, None)
    conn.execute(
        "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, char_start, char_end,"
        " text, content_hash, term_names, term_counts) VALUES (%s, %s, %s, %s, 0, 1, 1, 0, 1, %s, %s, %s, %s)",
        (chunk_id, version_id, doc_id, LAYER_OF[chunk_id], text, chunk_id, names, counts),
    )


@pytest.fixture
def two_chunks(fresh_db):
    """A section inserted with its terms and an act's document chunk without them (written later)."""
    with psycopg.connect(fresh_db) as conn:
        versions = {doc: insert_document(conn, doc) for doc in ("d1", "d2")}
        insert_chunk(conn, "s1", versions["d1"], "d1", TEXTS["s1"], with_terms=True)
        insert_chunk(conn, "a1", versions["d2"], "d2", TEXTS["a1"], with_terms=False)
        conn.commit()
    return fresh_db


def test_postings_follow_every_write_of_the_terms(two_chunks):
    with psycopg.connect(two_chunks) as conn:
        assert postings(conn) == expected("s1", TEXTS["s1"])
        write_terms(conn, [("a1", *chunk_terms(TEXTS["a1"]), "h1")], "test")
        assert postings(conn) == expected("s1", TEXTS["s1"]) | expected("a1", TEXTS["a1"])
        replaced = "Podpora bydlení podpora."
        write_terms(conn, [("s1", *chunk_terms(replaced), "h2")], "test")
        assert postings(conn) == expected("s1", replaced) | expected("a1", TEXTS["a1"])
        conn.execute("UPDATE chunks SET term_names = NULL, term_counts = NULL WHERE chunk_id = 'a1'")
        assert postings(conn) == expected("s1", replaced)
        conn.execute("UPDATE chunks SET ner_done_at = now()")  # a write of another column leaves them be
        assert postings(conn) == expected("s1", replaced)


@pytest.mark.parametrize(
    "removal",
    [
        "DELETE FROM chunks WHERE chunk_id = 's1'",
        "DELETE FROM document_versions WHERE doc_id = 'd1'",  # the chunk goes with its version (ON DELETE CASCADE)
        "TRUNCATE chunks CASCADE",
    ],
)
def test_a_chunk_removed_takes_its_postings_along(two_chunks, removal):
    with psycopg.connect(two_chunks) as conn:
        write_terms(conn, [("a1", *chunk_terms(TEXTS["a1"]), "h1")], "test")
        conn.execute(removal)
        left = set() if removal.startswith("TRUNCATE") else expected("a1", TEXTS["a1"])
        assert postings(conn) == left
        assert conn.execute("SELECT count(*) FROM layer_postings").fetchone()[0] == len(left)


def test_a_whole_acts_counts_are_exact(two_chunks):
    """A term more often than a tsvector keeps positions of one lexeme (256) and past its last position (16,383)."""
    text = " ".join(["bydlení"] * 300 + ["obec"] * 20_000)
    with psycopg.connect(two_chunks) as conn:
        write_terms(conn, [("a1", *chunk_terms(text), "h1")], "test")
        found = {term: count for chunk, _, term, count in postings(conn) if chunk == "a1"}
    assert found == Counter(analyze(text)) and found[analyze("bydlení")[0]] == 300


def test_the_fill_writes_the_live_upper_chunks_once(two_chunks):
    """``fill_layer_terms`` analyses the live document and section chunks without terms (their contextual text, as
    the bundle's BM25 of the layer reads it), and a second fill finds nothing to do."""
    with psycopg.connect(two_chunks) as conn:
        conn.execute(
            "UPDATE documents SET current_version_id = v.version_id FROM document_versions v"
            " WHERE v.doc_id = documents.doc_id"
        )
        conn.execute("UPDATE chunks SET term_names = NULL, term_counts = NULL")
        assert fill_layer_terms(conn)["layer_terms_written"] == 2
        assert {chunk for chunk, *_ in postings(conn)} == {"s1", "a1"}
        assert fill_layer_terms(conn)["layer_terms_written"] == 0


def test_a_fill_reads_only_the_documents_marked_changed_since_the_last(two_chunks):
    """After a first fill (every document), a fill looks only at the documents marked changed since
    (mendel.index.change_marks): a title changed is analysed again, an unchanged night reads nothing."""
    with psycopg.connect(two_chunks, autocommit=True) as conn:
        conn.execute(
            "UPDATE documents SET current_version_id = v.version_id FROM document_versions v"
            " WHERE v.doc_id = documents.doc_id"
        )
        first = fill_layer_terms(conn)
        assert first["layer_terms_digested"] == "all" and first["layer_terms_written"] == 2
        quiet = fill_layer_terms(conn)
        assert (quiet["layer_terms_digested"], quiet["layer_terms_documents_read"]) == ("marked", 0)
        conn.execute("UPDATE documents SET title = 'Zákon o bydlení' WHERE doc_id = 'd2'")
        changed = fill_layer_terms(conn)
        assert (changed["layer_terms_documents_read"], changed["layer_terms_written"]) == (1, 1)
        (names,) = conn.execute("SELECT term_names FROM chunks WHERE chunk_id = 'a1'").fetchone()
        assert set(analyze("Zákon o bydlení")) <= set(names)


TUNED = {
    "autovacuum_vacuum_scale_factor": 0.02,
    "autovacuum_vacuum_insert_scale_factor": 0.02,
    "autovacuum_analyze_scale_factor": 0.02,
    "autovacuum_vacuum_threshold": 10_000,
    "autovacuum_vacuum_insert_threshold": 10_000,
    "autovacuum_analyze_threshold": 10_000,
}


@pytest.mark.parametrize("table", ["chunk_postings", "layer_postings"])
def test_the_postings_are_vacuumed_and_analysed_after_a_nights_churn(fresh_db, table):
    """A night that re-analyses 3 % of a million passages' postings (60 million rows: 1.8 million deleted and as
    many inserted) passes each of the table's thresholds; PostgreSQL's defaults (20 %, 10 % for ANALYZE) it
    would pass only after several nights."""
    with psycopg.connect(fresh_db) as conn:
        (options,) = conn.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()
    settings = dict(option.split("=", 1) for option in options or ())
    assert {name: float(settings[name]) for name in TUNED if name in settings} == TUNED
    rows, changed = 60_000_000, 1_800_000
    for kind in ("vacuum", "vacuum_insert", "analyze"):
        due = TUNED[f"autovacuum_{kind}_threshold"] + TUNED[f"autovacuum_{kind}_scale_factor"] * rows
        default_due = {"vacuum": 50, "vacuum_insert": 1000, "analyze": 50}[kind] + (
            0.1 if kind == "analyze" else 0.2
        ) * rows
        assert due < changed < default_due, kind
