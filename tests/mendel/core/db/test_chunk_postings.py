"""Migration 0034: chunk_postings follows chunks.lexemes whoever writes them -- a passage inserted with lexemes, its
lexemes written by the full-text fill (``mendel.index.fulltext.write_lexemes``), replaced, cleared by an analyser
change, the passage deleted (itself or with its version) or the table truncated -- and the migration gives the
passages that had lexemes before it their postings."""

from __future__ import annotations

import psycopg
import pytest

from mendel.core.db import migrations
from mendel.czech.analyzer import analyze
from mendel.index.fulltext import tsvector_literal, write_lexemes

# real wording (zákon o podpoře bydlení, 175/2025 Sb.)
TEXTS = {
    "p1": "Podpora bydlení se poskytuje osobě v bytové nouzi, a to formou poradenství a podpory v bydlení.",
    "p2": "Obec může poskytovat podporu bydlení prostřednictvím kontaktního místa pro bydlení.",
}
POSTINGS = "SELECT c.chunk_id, p.term, p.frequency FROM chunk_postings p JOIN chunks c ON c.passage_key = p.passage"


def expected(chunk_id: str, text: str) -> set[tuple[str, str, int]]:
    tokens = analyze(text)
    return {(chunk_id, term, tokens.count(term)) for term in set(tokens)}


def postings(conn) -> set[tuple[str, str, int]]:
    return set(conn.execute(POSTINGS).fetchall())


def insert_document(conn, doc_id: str) -> int:
    conn.execute("INSERT INTO documents (doc_id, source, url) VALUES (%s, 'test', %s)", (doc_id, f"https://x/{doc_id}"))
    return conn.execute(
        "INSERT INTO document_versions (doc_id, sha256, byte_size) VALUES (%s, %s, 1) RETURNING version_id",
        (doc_id, doc_id * 4),
    ).fetchone()[0]


def insert_passage(conn, chunk_id: str, version_id: int, doc_id: str, lexemes: str | None) -> None:
    conn.execute(
        "INSERT INTO chunks (chunk_id, version_id, doc_id, seq, page_start, page_end, char_start, char_end, text,"
        " content_hash, lexemes) VALUES (%s, %s, %s, 0, 1, 1, 0, 1, %s, %s, %s::tsvector)",
        (chunk_id, version_id, doc_id, TEXTS.get(chunk_id, ""), chunk_id, lexemes),
    )


@pytest.fixture
def two_passages(fresh_db):
    """Two documents of one passage each: p1 inserted with its lexemes, p2 without (written later)."""
    with psycopg.connect(fresh_db) as conn:
        versions = {doc: insert_document(conn, doc) for doc in ("d1", "d2")}
        insert_passage(conn, "p1", versions["d1"], "d1", tsvector_literal(analyze(TEXTS["p1"])))
        insert_passage(conn, "p2", versions["d2"], "d2", None)
        conn.commit()
    return fresh_db


def test_postings_follow_every_write_of_the_lexemes(two_passages):
    with psycopg.connect(two_passages) as conn:
        assert postings(conn) == expected("p1", TEXTS["p1"])  # inserted with lexemes; none without
        write_lexemes(conn, [("p2", tsvector_literal(analyze(TEXTS["p2"])), "h2")], "test")
        assert postings(conn) == expected("p1", TEXTS["p1"]) | expected("p2", TEXTS["p2"])
        replaced = "Podpora bydlení podpora."
        conn.execute(
            "UPDATE chunks SET lexemes = %s::tsvector WHERE chunk_id = 'p1'", (tsvector_literal(analyze(replaced)),)
        )
        assert postings(conn) == expected("p1", replaced) | expected("p2", TEXTS["p2"])
        conn.execute("UPDATE chunks SET lexemes = NULL WHERE chunk_id = 'p2'")  # an analyser change clears them
        assert postings(conn) == expected("p1", replaced)
        conn.execute("UPDATE chunks SET ner_done_at = now()")  # a write of another column leaves them be
        assert postings(conn) == expected("p1", replaced)


@pytest.mark.parametrize(
    "removal",
    [
        "DELETE FROM chunks WHERE chunk_id = 'p1'",
        "DELETE FROM document_versions WHERE doc_id = 'd1'",  # the passage goes with its version (ON DELETE CASCADE)
    ],
)
def test_a_passage_removed_takes_its_postings_along(two_passages, removal):
    with psycopg.connect(two_passages) as conn:
        write_lexemes(conn, [("p2", tsvector_literal(analyze(TEXTS["p2"])), "h2")], "test")
        conn.execute(removal)
        assert postings(conn) == expected("p2", TEXTS["p2"])
        assert conn.execute("SELECT count(*) FROM chunk_postings").fetchone()[0] == len(expected("p2", TEXTS["p2"]))


def test_a_truncated_chunks_table_leaves_no_postings(two_passages):
    with psycopg.connect(two_passages) as conn:
        conn.execute("TRUNCATE chunks CASCADE")
        assert conn.execute("SELECT count(*) FROM chunk_postings").fetchone()[0] == 0


def test_the_migration_gives_passages_written_before_it_their_postings(fresh_db):
    """A database as it was before 0034 (its objects dropped), passages with lexemes in it, then the migration."""
    (migration,) = [sql for version, _, sql in migrations() if version == 34]
    with psycopg.connect(fresh_db) as conn:
        conn.execute("DROP TABLE chunk_postings")
        conn.execute("DROP FUNCTION chunk_postings_follow, chunk_postings_clear CASCADE")
        conn.execute("DROP FUNCTION layer_postings_follow, layer_postings_clear CASCADE")  # 0035's, on passage_key
        conn.execute("ALTER TABLE chunks DROP COLUMN passage_key")
        version_id = insert_document(conn, "d1")
        for chunk_id in TEXTS:
            insert_passage(conn, chunk_id, version_id, "d1", tsvector_literal(analyze(TEXTS[chunk_id])))
        conn.execute(migration)
        assert postings(conn) == expected("p1", TEXTS["p1"]) | expected("p2", TEXTS["p2"])
        insert_passage(conn, "p3", version_id, "d1", tsvector_literal(analyze("bydlení")))  # and the triggers work
        assert {row for row in postings(conn) if row[0] == "p3"} == expected("p3", "bydlení")
