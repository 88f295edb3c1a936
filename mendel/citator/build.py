"""The citator's nightly build: targets for new entities, the links, then ``citation_index`` and
``citation_totals`` — each citing document once per cited item and scope, with its family, date, count and the
passages a query shows, cut ahead. A build whose code and input tables are unchanged since the last is kept."""

from __future__ import annotations

import hashlib
import json
import time
from itertools import groupby, islice

import psycopg
from psycopg import sql

from mendel.citator.citing_passages import page_of, passages_of, sentence_around
from mendel.citator.links import build_links
from mendel.citator.targets import update_targets
from mendel.core import stage_versions

# The family of a citing document, from its kind and source (in SQL: counted and ranked in the database).
FAMILY_SQL = sql.SQL(
    "CASE WHEN d.doc_type LIKE 'law%%' OR d.source = 'esbirka' THEN 'acts'"
    " WHEN d.doc_type IN ('decision', 'citation_record') OR d.source IN ('nsoud', 'nalus', 'nssoud') THEN 'decisions'"
    " WHEN d.doc_type LIKE 'notice%%' OR d.doc_type = 'municipal_document' OR d.source IN ('municipal', 'boards')"
    " THEN 'notices' ELSE 'other' END"
)
SAMPLE_PASSAGES = 5  # passages (chunks) kept per citing document and scope to show


def scopes(provision: str) -> list[str]:
    """The scopes a citation of ``provision`` counts for: ``§ 2 odst. 1`` -> ['', '§ 2', '§ 2 odst. 1']."""
    found = [""]
    parts = provision.split()
    for i in range(2, len(parts) + 1, 2):  # units come as (name, number) pairs: "§ 2", "odst. 1", "písm. a)"
        found.append(" ".join(parts[:i]))
    if provision and found[-1] != provision:
        found.append(provision)
    return found


def build_index(conn: psycopg.Connection) -> dict:
    """``citation_index`` and ``citation_totals`` anew from the mentions and the links: each citing document once per
    cited item and scope, with its family, date, count and the passages a query shows (:func:`_ready_passages`); a
    document citing itself left out, and so is an act's own e-Sbírka metadata record."""
    pairs = conn.execute(
        "SELECT DISTINCT target_kind, lower(target_key), target_provision FROM citation_targets"
        " UNION SELECT DISTINCT target_kind, lower(target_key), target_provision FROM citation_links"
    ).fetchall()
    with conn.transaction():
        conn.execute(
            "CREATE TEMP TABLE citation_scopes (target_kind text, key_folded text, target_provision text,"
            " scope text) ON COMMIT DROP"
        )
        with conn.cursor() as cur, cur.copy("COPY citation_scopes FROM STDIN") as copy:
            for kind, key, provision in pairs:
                for scope in scopes(provision):
                    copy.write_row((kind, key, provision, scope))
        conn.execute("CREATE INDEX ON citation_scopes (target_kind, key_folded, target_provision)")
        conn.execute("ANALYZE citation_scopes")
        # staged first (the passages are cut from the rows' samples), by the statement that filled the index
        # itself: an INSERT is planned serially, where CREATE TABLE AS planned a parallel merge join of the hits
        # and the scopes on the key alone (a cited act's every provision against every other: minutes at 1M)
        conn.execute(
            "CREATE TEMP TABLE citation_staged (row_no bigint GENERATED ALWAYS AS IDENTITY,"
            " LIKE citation_index) ON COMMIT DROP"
        )
        conn.execute(
            sql.SQL(
                "INSERT INTO citation_staged (target_kind, key_folded, scope, family, doc_id, published, citations,"
                " sample_chunks)"
                " WITH hits AS ("
                "  SELECT t.target_kind, lower(t.target_key) AS key_folded, t.target_provision, c.doc_id, c.chunk_id,"
                "  c.seq FROM citation_targets t JOIN mentions m ON m.entity_id = t.entity_id"
                "  JOIN chunks c ON c.chunk_id = m.chunk_id AND c.layer = 3"
                "  UNION ALL SELECT target_kind, lower(target_key), target_provision, citing_doc_id, NULL, NULL"
                "  FROM citation_links)"
                " SELECT h.target_kind, h.key_folded, s.scope, {family}, h.doc_id, d.published, count(*),"
                " coalesce((array_agg(DISTINCT h.chunk_id) FILTER (WHERE h.chunk_id IS NOT NULL))[1:{sample}],"
                "  '{{}}')"
                " FROM hits h JOIN citation_scopes s USING (target_kind, key_folded, target_provision)"
                " JOIN documents d ON d.doc_id = h.doc_id AND d.status = 'active'"
                " LEFT JOIN record_documents r ON r.doc_id = h.doc_id AND r.kind = 'act_metadata'"
                " WHERE lower(coalesce(d.citation, '')) <> h.key_folded AND lower(d.doc_id) <> h.key_folded"
                # an act's own e-Sbírka record (record 'esbirka:/sb/2025/573') does not cite '573/2025 sb.'
                "  AND coalesce(r.record, '') <> 'esbirka:/sb/' || split_part(split_part(h.key_folded, '/', 2), ' ', 1)"
                "   || '/' || split_part(h.key_folded, '/', 1)"
                " GROUP BY 1, 2, 3, 4, 5, 6"
            ).format(family=FAMILY_SQL, sample=sql.Literal(SAMPLE_PASSAGES))
        )
        conn.execute("ANALYZE citation_staged")
        conn.execute("SET LOCAL work_mem = '128MB'")  # the passes' sorts and joins in memory (this build only)
        started = time.perf_counter()
        _ready_passages(conn)
        passages_s = round(time.perf_counter() - started, 1)
        conn.execute("TRUNCATE citation_index, citation_totals")
        conn.execute(
            "INSERT INTO citation_index (target_kind, key_folded, scope, family, doc_id, published, citations,"
            " sample_chunks, passages)"
            " SELECT s.target_kind, s.key_folded, s.scope, s.family, s.doc_id, s.published, s.citations,"
            " s.sample_chunks, coalesce(r.passages, '[]') FROM citation_staged s"
            " LEFT JOIN citation_ready r USING (row_no)"
        )
        conn.execute(
            "INSERT INTO citation_totals SELECT target_kind, key_folded, scope, family, count(*), sum(citations)"
            " FROM citation_index GROUP BY 1, 2, 3, 4"
        )
    rows, totals = (
        conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()[0]
        for table in ("citation_index", "citation_totals")
    )
    return {"index_rows": rows, "cited_items": totals, "passages_s": passages_s}


# A row's scope matches a cited provision as a query's does (cites._match_sql): '' everything, else the path or below it.
_SCOPE_MATCH = (
    "(s.scope = '' OR {t}.target_provision = s.scope"
    " OR {t}.target_provision LIKE replace(replace(s.scope, '%%', '\\%%'), '_', '\\_') || ' %%')"
)
STREAM_ROWS = 20_000  # rows per fetch and per COPY in the streamed passes of _ready_passages


def _ready_passages(conn: psycopg.Connection) -> None:
    """``citation_ready``: the passages each staged index row (``citation_staged``) shows, exactly as a query would
    cut them (:func:`passages_of` over the row's sampled passages and links), in two streamed passes: the sentence
    around every mention in a sampled passage (each passage's text read once), then each row's hits in the rows'
    order, assembled in Python and copied back. A link naming no page is looked up once in its document's pages."""
    conn.execute(
        "CREATE TEMP TABLE citation_sentences (chunk_id text, start_char integer, entity_id text,"
        " page integer, seq integer, sentence text) ON COMMIT DROP"
    )

    def sentences(rows):
        for chunk_id, text, page, seq, spans in rows:
            for start, end, entity_id in spans:
                yield chunk_id, start, entity_id, page, seq, sentence_around(text, start, end)

    _stream(
        conn,
        "WITH sampled AS (SELECT DISTINCT unnest(sample_chunks) AS chunk_id FROM citation_staged),"
        " spans AS (SELECT m.chunk_id, array_agg(ARRAY[m.start_char::text, m.end_char::text, m.entity_id])"
        "  AS spans FROM sampled JOIN mentions m USING (chunk_id)"
        "  WHERE EXISTS (SELECT 1 FROM citation_targets t WHERE t.entity_id = m.entity_id) GROUP BY m.chunk_id)"
        " SELECT c.chunk_id, c.text, c.page_start, c.seq, s.spans FROM spans s JOIN chunks c USING (chunk_id)",
        lambda rows: sentences(
            (cid, text, page, seq, [(int(a), int(b), e) for a, b, e in spans]) for cid, text, page, seq, spans in rows
        ),
        "COPY citation_sentences FROM STDIN",
    )
    conn.execute("CREATE INDEX ON citation_sentences (chunk_id)")
    conn.execute("ANALYZE citation_sentences")
    # the page of each link that names none: where its sentence starts in the citing document's current version
    link_pages: dict[tuple, int | None] = {}
    cache: dict[int, list] = {}
    for doc_id, version_id, sentence in conn.execute(
        "SELECT DISTINCT l.citing_doc_id, d.current_version_id, l.sentence FROM citation_links l"
        " JOIN documents d ON d.doc_id = l.citing_doc_id WHERE l.page IS NULL AND l.sentence <> ''"
        " ORDER BY 2, 1, 3"
    ).fetchall():
        if version_id not in cache:
            cache.clear()  # one document version's pages in memory at a time
        link_pages[(doc_id, sentence)] = page_of(conn, version_id, sentence, cache)
    conn.execute("CREATE TEMP TABLE citation_ready (row_no bigint, passages jsonb) ON COMMIT DROP")

    def ready(rows):
        for (row_no, doc_id), hits in groupby(rows, key=lambda r: r[:2]):
            passages = passages_of([h[2:] for h in hits], lambda sentence: link_pages.get((doc_id, sentence)))
            yield row_no, json.dumps(passages, ensure_ascii=False)

    _stream(
        conn,
        sql.SQL(
            "SELECT s.row_no, s.doc_id, x.page, x.start_char, 'mention', x.sentence, t.target_key,"
            " t.target_provision, NULL, x.seq"
            " FROM (SELECT row_no, target_kind, key_folded, scope, doc_id, unnest(sample_chunks) AS chunk_id"
            "  FROM citation_staged) s JOIN citation_sentences x USING (chunk_id)"
            " JOIN citation_targets t ON t.entity_id = x.entity_id AND t.target_kind = s.target_kind"
            "  AND lower(t.target_key) = s.key_folded WHERE {mention}"
            " UNION ALL SELECT s.row_no, s.doc_id, l.page, NULL, l.origin, l.sentence, l.target_key,"
            " l.target_provision, l.produces_version, NULL"
            " FROM citation_staged s JOIN citation_links l ON l.citing_doc_id = s.doc_id"
            "  AND l.target_kind = s.target_kind AND lower(l.target_key) = s.key_folded WHERE {link}"
            " ORDER BY 1"
        ).format(mention=sql.SQL(_SCOPE_MATCH.format(t="t")), link=sql.SQL(_SCOPE_MATCH.format(t="l"))),
        ready,
        "COPY citation_ready FROM STDIN",
    )
    # rows whose document has no hit left (a scope the query's provision match does not reach) show none


def _stream(conn: psycopg.Connection, query, transform, copy_sql: str) -> None:
    """``query``'s rows through ``transform`` into ``copy_sql``, STREAM_ROWS at a time: a server-side cursor read
    between COPYs on the same connection (inside the caller's transaction). ``transform`` sees every row once, in
    order, as one iterator (so a group of rows may span fetches)."""

    def fetched(cursor):
        while rows := cursor.fetchmany(STREAM_ROWS):
            yield from rows

    with conn.cursor(name="citation_stream") as read:
        read.execute(query, ())  # parameters (none): '%%' in the text is '%'
        out = transform(fetched(read))
        while batch := list(islice(out, STREAM_ROWS)):
            with conn.cursor() as cur, cur.copy(copy_sql) as copy:
                for row in batch:
                    copy.write_row(row)


# What the links and the index are made of (read by build_links and build_index, with the entities behind the targets)
# and what they are (written): a build whose code and tables are all as they were after the last one is kept.
BUILD_READS = (
    "entities",
    "citation_targets",
    "mentions",
    "chunks",
    "documents",
    "document_versions",
    "pages",
    "act_versions",
    "provisions",
    "act_references",
    "relations",
    "court_decisions",
)
BUILD_WRITES = ("citation_links", "citation_index", "citation_totals")
BUILD_CODE = (
    "citator/build.py",
    "citator/links.py",
    "citator/targets.py",
    "citator/citing_passages.py",
    "citator/court_links.py",
    "records/citation_records.py",
    "citator/wording.py",
    "law/act_versions.py",
    "law/commencement.py",
    "law/provision_tree.py",
    "law/provision_pages.py",
    "law/identifiers.py",
)
# ... and the stages whose code it runs: the recogniser reads the courts' provision lists and the targets
BUILD_STAGES = ("ner",)
BUILD_NAME = "citations"


# Tables other stages write every night, or in columns the build does not read (a crawl's last_seen of each document
# seen again; the index steps' change mark, which the chunk stages' writes move; the chunk stages' lexemes, vectors
# and marks; e-Sbírka confirming an act version unchanged: its page ETags and checked_at): told by the values the
# build reads instead of their row versions, so that a night with nothing new keeps the build.
ROW_VALUES = {
    "documents": "to_jsonb(t) - 'last_seen' - 'changed_txid'",
    "act_versions": "to_jsonb(t) - 'page_etags' - 'checked_at'",
    "document_versions": "row(t.version_id, t.doc_id)",
    "chunks": "row(t.chunk_id, t.doc_id, t.version_id, t.seq, t.layer, t.page_start, t.text)",
}


def table_states(conn: psycopg.Connection, tables: tuple[str, ...]) -> str:
    """A digest of each table's rows as stored: their count and the sum of a hash of every row's version (its
    xmin): any insert, update or delete changes it (an update writes a new row version), reading changes nothing;
    for a table in ROW_VALUES, the sum of a hash of the values named there."""

    def row_hash(table: str) -> sql.Composable:
        if table in ROW_VALUES:
            return sql.SQL("hashtextextended(({})::text, 0)").format(sql.SQL(ROW_VALUES[table]))
        return sql.SQL("hashint8extended(xmin::text::bigint, 0)")

    parts = sql.SQL(", ").join(
        sql.SQL("(SELECT count(*) || ':' || coalesce(sum({}), 0) FROM {} t)").format(
            row_hash(table), sql.Identifier(table)
        )
        for table in tables
    )
    states = conn.execute(sql.SQL("SELECT ARRAY[{}]").format(parts)).fetchone()[0]
    return ",".join(f"{table}={state}" for table, state in zip(tables, states))


def _code_digest() -> str:
    from pathlib import Path

    package = Path(__file__).resolve().parents[1]  # the mendel package
    digest = hashlib.sha256()
    for name in BUILD_CODE:
        digest.update(f"{name}\0".encode() + (package / name).read_bytes())
    for stage in BUILD_STAGES:
        digest.update(stage_versions.version(stage).encode())
    return digest.hexdigest()[:16]


def build(conn: psycopg.Connection, force: bool = False) -> dict:
    """Targets for new entities, the links and the index anew: what the nightly citations asset runs. The links
    and the index are kept as they are when nothing they are made of changed since they were built (the code,
    every table they read, and they themselves: ``build_fingerprints``), unless ``force``."""
    targets = update_targets(conn)
    code = _code_digest()
    reads = table_states(conn, BUILD_READS)
    kept = (
        None
        if force
        else stage_versions.kept_build(conn, BUILD_NAME, f"{code}|{reads}|{table_states(conn, BUILD_WRITES)}")
    )
    if kept is not None:
        return {"new_targets": targets, **kept, "rebuilt": False}
    links = build_links(conn)
    index = build_index(conn)
    stats = {**{f"links_{k}": v for k, v in links.items()}, **index}
    # the tables read as they were before the build: a change made meanwhile (a crawl) is built on the next run
    stage_versions.record_build(conn, BUILD_NAME, f"{code}|{reads}|{table_states(conn, BUILD_WRITES)}", stats)
    return {"new_targets": targets, **stats, "rebuilt": True}
