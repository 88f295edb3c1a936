"""Full-text search over passages inside PostgreSQL with the Czech analyser BM25 uses: the tokens are made here and
written as a tsvector literal into ``chunks.lexemes`` (PostgreSQL's parsers would split ``89/2012`` and ``§ 7``),
and queries are tsquery literals of the same tokens. A passage is analysed again only when its contextual text or
the analyser's version changed.
"""

from __future__ import annotations

import hashlib
import time
from typing import Iterable

import psycopg

from mendel.core import stage_versions
from mendel.czech.analyzer import analyze
from mendel.index import change_marks
from mendel.index.corpus import load_layer

PASSAGE_LAYER = 3
# PostgreSQL's limits: positions 1..16383 (larger ones are clamped), 256 positions kept per lexeme, a lexeme
# under 2 kB. A token longer than MAX_LEXEME_CHARS is noise (a run of digits, a broken OCR line), never a word.
MAX_POSITION = 16383
MAX_POSITIONS = 256
MAX_LEXEME_CHARS = 200


def _quoted(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(tokens: Iterable[str]) -> str:
    """A tsvector literal of analysed ``tokens``: each distinct one with its positions (1-based, in order)."""
    positions: dict[str, list[int]] = {}
    for position, token in enumerate(tokens, start=1):
        if len(token) > MAX_LEXEME_CHARS:
            continue
        found = positions.setdefault(token, [])
        place = min(position, MAX_POSITION)
        if len(found) < MAX_POSITIONS and (not found or found[-1] != place):
            found.append(place)
    return " ".join(f"{_quoted(t)}:{','.join(map(str, p))}" for t, p in positions.items())


def query_terms(text: str) -> list[str]:
    """The analysed terms of a query, each once, in order (what :func:`tsquery_literal` ORs together)."""
    return [t for t in dict.fromkeys(analyze(text)) if len(t) <= MAX_LEXEME_CHARS]


def term_literal(term: str) -> str:
    """A tsquery of one analysed term."""
    return _quoted(term)


def tsquery_literal(terms: Iterable[str]) -> str:
    """A tsquery matching any of ``terms`` (analysed already): BM25's OR semantics. Empty for no terms."""
    return " | ".join(_quoted(t) for t in terms)


def lexemes_hash(context_text: str) -> str:
    return hashlib.sha256(("lexemes-v1\n" + context_text).encode("utf-8")).hexdigest()


# The live passages (served versions: mendel.crawl.last_good; the filter of mendel.index.corpus.load_layer).
_LIVE_PASSAGES = (
    "SELECT count(*) FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = 3"
)
# The documents that may have a passage whose lexemes are missing or were made from another contextual text:
# lexemes_hash of mendel.index.corpus.contextual_text computed in SQL over the stored section path (the head joins
# the present ones of citation, title and section with " — ", the text joins the present ones of head, document
# summary and passage with a line break). A section path load_layer widens with headings never matches it, so
# such documents are always candidates, as are acts with a provision tree (their heading paths may have changed);
# fill_lexemes compares the real hashes.
_PENDING_DOCUMENTS = (
    "SELECT DISTINCT c.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = 3"
    " AND (c.lexemes IS NULL OR c.lexemes_hash IS DISTINCT FROM"
    " encode(sha256(convert_to('lexemes-v1' || chr(10) || concat_ws(chr(10), nullif(concat_ws(' — ',"
    " nullif(d.citation, ''), nullif(coalesce(d.title, ''), ''), nullif(c.section_path, '')), ''),"
    " nullif(coalesce(top.summary, ''), ''), nullif(c.text, '')), 'UTF8')), 'hex')"
    " OR c.doc_id IN (SELECT p.doc_id FROM provisions p))"
)
# The same, among the documents marked changed since the fill last ran (mendel.index.change_marks): a write to an
# act's version fields, provisions or passages marks its document too (migration 0040)
_PENDING_OF_DOCUMENTS = (
    "SELECT DISTINCT c.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = 3"
    " AND c.doc_id = ANY(%s)"
    " AND (c.lexemes IS NULL OR c.lexemes_hash IS DISTINCT FROM"
    " encode(sha256(convert_to('lexemes-v1' || chr(10) || concat_ws(chr(10), nullif(concat_ws(' — ',"
    " nullif(d.citation, ''), nullif(coalesce(d.title, ''), ''), nullif(c.section_path, '')), ''),"
    " nullif(coalesce(top.summary, ''), ''), nullif(c.text, '')), 'UTF8')), 'hex')"
    " OR c.doc_id IN (SELECT p.doc_id FROM provisions p))"
)
MARK_CONSUMER = "lexemes"


def fill_lexemes(conn: psycopg.Connection, batch_size: int = 5000) -> dict:
    """Write ``chunks.lexemes`` for the live passages whose lexemes are missing or were made from another
    contextual text; returns counts for the run's metadata."""
    started = time.monotonic()
    reprocessed = stage_versions.reprocess_lexemes(conn)
    analyser_version = stage_versions.version("analyser")
    # the documents with a passage whose lexemes are missing or were made from another contextual text, found in
    # the database (lexemes_hash computed there as in Python) among those marked changed since the last fill
    # (mendel.index.change_marks; every document on a first fill or after another analyser's lexemes were dropped):
    # only those are loaded and analysed
    mark = change_marks.newest_mark(conn)
    since = None if reprocessed else change_marks.consumed_mark(conn, MARK_CONSUMER, analyser_version)
    if since is None:
        documents = [d for (d,) in conn.execute(_PENDING_DOCUMENTS)]
    else:
        marked = change_marks.marked_since(conn, since)
        documents = [d for (d,) in conn.execute(_PENDING_OF_DOCUMENTS, (sorted(marked),))] if marked else []
    records = load_layer(conn, PASSAGE_LAYER, documents) if documents else []
    stored = dict(
        conn.execute(
            "SELECT chunk_id, lexemes_hash FROM chunks WHERE layer = %s AND lexemes IS NOT NULL AND doc_id = ANY(%s)",
            (PASSAGE_LAYER, documents),
        )
    )
    pending = [(r.chunk_id, r.context_text) for r in records]
    pending = [(cid, text, h) for cid, text in pending if stored.get(cid) != (h := lexemes_hash(text))]
    live = conn.execute(_LIVE_PASSAGES).fetchone()[0]
    for start in range(0, len(pending), batch_size):
        write_lexemes(
            conn,
            [(cid, tsvector_literal(analyze(text)), h) for cid, text, h in pending[start : start + batch_size]],
            analyser_version,
        )
    change_marks.consume_mark(conn, MARK_CONSUMER, mark, analyser_version)
    return {
        "lexemes_written": len(pending),
        "lexemes_documents_read": len(documents),
        "lexemes_kept": live - len(pending),
        "lexemes_reprocessed_by_version": reprocessed,
        "lexemes_stage_version": analyser_version,
        "lexemes_seconds": round(time.monotonic() - started, 2),
    }


def write_lexemes(conn: psycopg.Connection, rows: list[tuple[str, str, str]], analyser_version: str) -> None:
    """Set (chunk_id, tsvector literal, lexemes_hash) rows made by ``analyser_version`` in one transaction."""
    update = (
        "UPDATE chunks c SET lexemes = p.lexemes, lexemes_hash = p.lexemes_hash, lexemes_version = %s"
        " FROM pending_lexemes p WHERE c.chunk_id = p.chunk_id"
    )
    update_through_copy(conn, "pending_lexemes", PENDING_LEXEMES, rows, update, (analyser_version,))


PENDING_LEXEMES = (("chunk_id", "text PRIMARY KEY"), ("lexemes", "tsvector"), ("lexemes_hash", "text"))


def update_through_copy(
    conn: psycopg.Connection,
    table: str,
    columns: tuple[tuple[str, str], ...],
    rows: list[tuple],
    update: str,
    params: tuple = (),
) -> None:
    """``rows`` COPYed into the temporary ``table`` (``columns``: name, type), then ``update`` reading it, in one
    transaction: an UPDATE a row would cost a round trip each."""
    from psycopg import sql

    if not rows:
        return
    with conn.transaction():
        conn.execute(
            sql.SQL("CREATE TEMP TABLE IF NOT EXISTS {} ({})").format(
                sql.Identifier(table),
                sql.SQL(", ").join(sql.SQL("{} {}").format(sql.Identifier(n), sql.SQL(t)) for n, t in columns),
            )
        )
        conn.execute(sql.SQL("TRUNCATE {}").format(sql.Identifier(table)))
        copy_statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(n) for n, _ in columns)
        )
        with conn.cursor() as cur, cur.copy(copy_statement) as copy:
            for row in rows:
                copy.write_row(row)
        conn.execute(update, params)
