"""The analysed terms of the document (layer 1) and section (layer 2) chunks in PostgreSQL, for the postgres serving
backend's BM25 over those layers (migration 0035: ``chunks.term_names`` / ``term_counts``, from which triggers derive
``layer_postings``): each distinct token of the chunk's contextual text, as the bundle's BM25 of the layer analyses
it (``mendel.index.corpus.ChunkRecord.context_text``), with the number of times it occurs. A chunk is analysed again
only when its contextual text or the analyser's version changed (``chunks.lexemes_hash``, ``lexemes_version``: the
columns layer 3's lexemes use, free on these rows).
"""

from __future__ import annotations

import time
from collections import Counter

import psycopg

from mendel.core import stage_versions
from mendel.czech.analyzer import analyze
from mendel.index import change_marks
from mendel.index.corpus import load_layer
from mendel.index.fulltext import MAX_LEXEME_CHARS, lexemes_hash, update_through_copy

UPPER_LAYERS = (1, 2)
# The documents with a chunk of the layer whose terms are missing, were made by another analyser version or from
# another contextual text (lexemes_hash of mendel.index.corpus.contextual_text computed in SQL as
# mendel.index.fulltext does for passages; load_layer widens no section path above layer 3, so the hash is exact).
_PENDING_DOCUMENTS = (
    "SELECT DISTINCT c.doc_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " LEFT JOIN chunks top ON top.version_id = c.version_id AND top.layer = 1"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = %(layer)s"
    " AND (c.term_names IS NULL OR c.lexemes_version IS DISTINCT FROM %(version)s"
    " OR c.lexemes_hash IS DISTINCT FROM"
    " encode(sha256(convert_to('lexemes-v1' || chr(10) || concat_ws(chr(10), nullif(concat_ws(' — ',"
    " nullif(d.citation, ''), nullif(coalesce(d.title, ''), ''), nullif(c.section_path, '')), ''),"
    " nullif(coalesce(top.summary, ''), ''), nullif(c.text, '')), 'UTF8')), 'hex'))"
)
_PENDING_OF_DOCUMENTS = _PENDING_DOCUMENTS + " AND c.doc_id = ANY(%(documents)s)"
MARK_CONSUMER = "layer_terms"
_STORED = (
    "SELECT chunk_id, lexemes_hash FROM chunks WHERE layer = %s AND term_names IS NOT NULL"
    " AND lexemes_version IS NOT DISTINCT FROM %s AND doc_id = ANY(%s)"
)


def chunk_terms(context_text: str) -> tuple[list[str], list[int]]:
    """The distinct analysed tokens of a contextual text in first-seen order, and how often each occurs (a token
    over ``MAX_LEXEME_CHARS`` characters left out, as the passages' lexemes leave it out)."""
    counts = Counter(t for t in analyze(context_text) if len(t) <= MAX_LEXEME_CHARS)
    return list(counts), list(counts.values())


def fill_layer_terms(conn: psycopg.Connection, batch_size: int = 2000) -> dict:
    """Write ``term_names`` / ``term_counts`` of the live layer-1 and layer-2 chunks whose terms are missing or stale;
    returns counts for the run's metadata."""
    started = time.monotonic()
    version = stage_versions.version("analyser")
    written = read = 0
    # Only the documents marked changed since the last fill (mendel.index.change_marks: every column the contextual
    # text is made of marks its document) are looked at; every document on a first fill or another analyser's.
    mark = change_marks.newest_mark(conn)
    since = change_marks.consumed_mark(conn, MARK_CONSUMER, version)
    marked = None if since is None else sorted(change_marks.marked_since(conn, since))
    for layer in UPPER_LAYERS:
        if marked is None:
            documents = [d for (d,) in conn.execute(_PENDING_DOCUMENTS, {"layer": layer, "version": version})]
        elif marked:
            query = _PENDING_OF_DOCUMENTS
            documents = [d for (d,) in conn.execute(query, {"layer": layer, "version": version, "documents": marked})]
        else:
            documents = []
        read += len(documents)
        if not documents:
            continue
        stored = dict(conn.execute(_STORED, (layer, version, documents)))
        pending = [
            (r.chunk_id, lexemes_hash(r.context_text), r.context_text) for r in load_layer(conn, layer, documents)
        ]
        pending = [(cid, h, text) for cid, h, text in pending if stored.get(cid) != h]
        for start in range(0, len(pending), batch_size):
            rows = [(cid, *chunk_terms(text), h) for cid, h, text in pending[start : start + batch_size]]
            write_terms(conn, rows, version)
        written += len(pending)
    change_marks.consume_mark(conn, MARK_CONSUMER, mark, version)
    return {
        "layer_terms_written": written,
        "layer_terms_documents_read": read,
        "layer_terms_digested": "all" if marked is None else "marked",
        "layer_terms_seconds": round(time.monotonic() - started, 2),
    }


def write_terms(conn: psycopg.Connection, rows: list[tuple[str, list[str], list[int], str]], version: str) -> None:
    """Set (chunk_id, term names, term counts, lexemes_hash) rows in one transaction."""
    update = (
        "UPDATE chunks c SET term_names = p.term_names, term_counts = p.term_counts,"
        " lexemes_hash = p.lexemes_hash, lexemes_version = %s FROM pending_terms p WHERE c.chunk_id = p.chunk_id"
    )
    update_through_copy(conn, "pending_terms", PENDING_TERMS, rows, update, (version,))


PENDING_TERMS = (
    ("chunk_id", "text PRIMARY KEY"),
    ("term_names", "text[]"),
    ("term_counts", "integer[]"),
    ("lexemes_hash", "text"),
)
