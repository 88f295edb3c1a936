"""What cites a provision, an act, a court file number or an ECLI: every document and passage, grouped by the
family of the citing source (acts, decisions, notices, other), newest first, each with the citing sentence, its
page and date.

Where citations come from:

- the NER's mentions (``mentions`` → ``entities``): LAW_REF and DECISION_REF in every indexed passage; the
  canonical target of each entity is kept in ``citation_targets`` (:func:`update_targets`);
- e-Sbírka's own cross-references (``act_references``, the ``odkazyZFragmentu`` of each act's latest version),
  with the citing provision's wording as the sentence;
- the AMENDS / REPEALS relations read from amending acts (``relations``), naming the version of the amended act
  they produced when a stored version lists the amending act among its ``novely``;
- court records without decision text (documents of kind ``citation_record``, never chunked): the references each
  line of the record names.
The last three are kept in ``citation_links`` (:func:`build_links`).

A citation is matched in canonical form: an act by its citation (``573/2025 Sb.``), a provision as a path below
it (``§ 2 odst. 1`` — so a citation of ``§ 2 odst. 1`` also cites ``§ 2`` and the act), a court decision by its
file number as the court writes it (the Ústavní soud with a two-digit year: ``IV. ÚS 393/00`` for ``IV. US
393/2000``; the list number ``-45`` dropped), compared case-folded; an ECLI stands for its file number and the
file number for the ECLIs of the stored decisions that carry it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from itertools import groupby, islice

import psycopg
from psycopg import sql

from mendel.core import stage_versions
from mendel.law.act_versions import provision_from_anchor
from mendel.law.identifiers import (
    CONSTITUTIONAL,
    CONSTITUTIONAL_SENATES,
    FileNumber,
    full_year,
    parse_citation,
    parse_ecli,
    parse_file_number,
)
from mendel.records.citation_records import CITATION_RECORD

FAMILIES = ("acts", "decisions", "notices", "other")
SENTENCE_CHARS = 400
_SPACES = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ§(„\"])|\n+")


# ---------------------------------------------------------------- canonical targets


@dataclass(frozen=True)
class Target:
    """What a citation points at: ``kind`` act (``key`` its citation, ``provision`` a path or '') or decision
    (``key`` its canonical file number); ``keys`` every form it is matched under."""

    kind: str
    key: str
    provision: str = ""
    keys: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        return f"{self.provision} {self.key}".strip() if self.kind == "act" else self.key


def canonical_file_number(number: FileNumber) -> str:
    """The file number as the court writes it: the Ústavní soud's year in two digits (``IV. ÚS 393/00``), other
    courts' in four (``21 Cdo 1234/1999``); no list number."""
    if number.register == CONSTITUTIONAL or number.is_constitutional:
        return f"{number.senate}. {number.register} {number.number}/{int(number.year) % 100:02d}"
    head = " ".join(p for p in (number.court, number.senate, number.register) if p)
    return f"{head} {number.number}/{full_year(number.year)}"


def file_number_of_ecli(ecli: str) -> str | None:
    """``ECLI:CZ:US:2013:4.US.2265.13.1`` -> ``IV. ÚS 2265/13``; ``ECLI:CZ:NS:2026:29.ICDO.177.2024.1`` ->
    ``29 ICDO 177/2024`` (the register's case is not in an ECLI: file numbers are compared case-folded)."""
    parsed = parse_ecli(ecli)
    if parsed is None or parsed.country != "CZ":
        return None
    parts = parsed.number.split(".")
    if parsed.court == "US" and len(parts) >= 4 and parts[1].upper() == "US":
        senate = "Pl" if parts[0].lower() == "pl" else CONSTITUTIONAL_SENATES.get(parts[0])
        if senate is None or not parts[2].isdigit() or not parts[3].isdigit():
            return None
        return f"{senate}. {CONSTITUTIONAL} {int(parts[2])}/{int(parts[3]) % 100:02d}"
    if len(parts) >= 4 and parts[0].isdigit() and parts[2].isdigit() and parts[3].isdigit():
        return f"{int(parts[0])} {parts[1]} {int(parts[2])}/{full_year(parts[3])}"
    return None


def decision_target(text: str) -> Target | None:
    """A court decision named by its file number (any spacing, ``US`` for ``ÚS``, a list number) or its ECLI."""
    text = (text or "").strip()
    if text.upper().startswith("ECLI:"):
        number = file_number_of_ecli(text)
        ecli = parse_ecli(text)
        if ecli is None:
            return None
        keys = tuple(k for k in (number, ecli.text) if k)
        return Target("decision", number or ecli.text, keys=keys)
    parsed = parse_file_number(text)
    if parsed is None:
        return None
    key = canonical_file_number(parsed)
    return Target("decision", key, keys=(key,))


def law_target(norm: str) -> Target | None:
    """A LAW_REF norm (``89/2012 Sb. § 2079 odst. 1``) as an act and a provision path."""
    from mendel.citator.wording import provision_key
    from mendel.ner.rules import split_law_ref_norm

    act_text, provision = split_law_ref_norm(norm)
    act = parse_citation(act_text)
    key = act.citation if act else (act_text or "").strip()
    if not key:
        return None
    return Target("act", key, provision_key(provision), keys=(key,))


def parse_target(ref: str) -> Target | None:
    """What a query names: an ECLI, a file number, or an act with or without a provision."""
    decision = decision_target(ref)
    if decision is not None:
        return decision
    from mendel.citator.wording import parse_reference

    reference = parse_reference(ref)
    if reference is None:
        return None
    return Target("act", reference.act.citation, reference.provision, keys=(reference.act.citation,))


def update_targets(conn: psycopg.Connection) -> int:
    """The canonical target of every LAW_REF / DECISION_REF entity that has none yet (entities never change)."""
    rows = conn.execute(
        "SELECT e.entity_id, e.label, e.norm FROM entities e LEFT JOIN citation_targets t USING (entity_id)"
        " WHERE t.entity_id IS NULL AND e.label IN ('LAW_REF', 'DECISION_REF')"
    ).fetchall()
    values = []
    for entity_id, label, norm in rows:
        target = law_target(norm) if label == "LAW_REF" else decision_target(norm)
        if target is not None:
            values.append((entity_id, target.kind, target.key, target.provision))
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO citation_targets (entity_id, target_kind, target_key, target_provision)"
            " VALUES (%s, %s, %s, %s) ON CONFLICT (entity_id) DO NOTHING",
            values,
        )
    return len(values)


# ---------------------------------------------------------------- links that are not NER mentions


def build_links(conn: psycopg.Connection) -> dict:
    """``citation_links`` anew from e-Sbírka's references, the AMENDS / REPEALS relations and the citation
    records; returns the count of each."""
    counts = {"odkaz": 0, "amends": 0, "repeals": 0, "record": 0}
    rows: list[tuple] = []
    # e-Sbírka's odkazyZFragmentu of each act's latest version, with the citing provision's wording
    for doc_id, version, _kind, citation, anchor, text in conn.execute(
        "WITH latest AS (SELECT DISTINCT ON (doc_id) doc_id, version FROM act_versions"
        "  ORDER BY doc_id, effective_from DESC NULLS LAST, version DESC),"
        " fragments AS (SELECT p.doc_id, p.version, coalesce(p.heading || ' ', '') || p.text AS text,"
        "  unnest(p.fragment_ids) AS fragment_id FROM provisions p JOIN latest USING (doc_id, version))"
        " SELECT r.doc_id, r.version, r.kind, r.target_citation, r.target_provision, f.text"
        " FROM act_references r JOIN latest USING (doc_id, version)"
        " LEFT JOIN fragments f ON f.doc_id = r.doc_id AND f.version = r.version AND f.fragment_id = r.fragment_id"
        " WHERE r.target_citation IS NOT NULL ORDER BY r.doc_id, r.odkaz_id"
    ):
        from mendel.citator.wording import provision_key

        rows.append(
            (
                "odkaz",
                "act",
                citation,
                provision_key(provision_from_anchor(anchor)),
                doc_id,
                version,
                None,
                None,
                _clip(text),
                None,
            )
        )
        counts["odkaz"] += 1
    # AMENDS / REPEALS: the amending act's statement; the version it produced where a stored version names it
    produced = {}
    for doc_id, version, amended_by in conn.execute(
        "SELECT doc_id, version, amended_by FROM act_versions WHERE jsonb_array_length(amended_by) > 0"
    ):
        for amending in amended_by:
            produced[(doc_id, amending.get("citation"))] = version
    for kind, subject, object_norm, page_no, evidence, citing_doc in conn.execute(
        "SELECT r.kind, r.subject_norm, r.object_norm, r.page_no, r.evidence, v.doc_id FROM relations r"
        " JOIN document_versions v ON v.version_id = r.version_id"
        " JOIN documents d ON d.doc_id = v.doc_id AND d.current_version_id = v.version_id"
        " WHERE r.kind IN ('AMENDS', 'REPEALS')"
    ):
        target = law_target(object_norm)
        if target is None:
            continue
        act = parse_citation(target.key)
        version = produced.get((act.eli, subject)) if act else None
        rows.append(
            (
                kind.lower(),
                "act",
                target.key,
                target.provision,
                citing_doc,
                None,
                version,
                page_no,
                _clip(evidence),
                None,
            )
        )
        counts[kind.lower()] += 1
    # citation records: the decisions and acts their lines name (not the record's own file number), each once per
    # record, with the shortest line naming it as the sentence
    from mendel.ner import recognise

    records = conn.execute(
        "SELECT d.doc_id, d.citation, p.page_no, p.text FROM documents d"
        " JOIN pages p ON p.version_id = d.current_version_id"
        " WHERE d.doc_type = %s AND d.status = 'active' ORDER BY d.doc_id, p.page_no",
        (CITATION_RECORD,),
    ).fetchall()
    lines = [
        (doc_id, own, page_no, line.strip())
        for doc_id, own, page_no, text in records
        for line in text.splitlines()
        if line.strip()
    ]
    named: dict[tuple, tuple] = {}
    for (doc_id, own, page_no, line), entities in zip(lines, recognise([line for *_, line in lines])):
        own_keys = {k.lower() for k in (decision_target(own or "") or Target("decision", "")).keys} | {doc_id.lower()}
        for entity in entities:
            target = (
                decision_target(entity.norm)
                if entity.label == "DECISION_REF"
                else law_target(entity.norm)
                if entity.label == "LAW_REF"
                else None
            )
            if target is None or target.key.lower() in own_keys:
                continue
            key = (doc_id, target.kind, target.key, target.provision)
            if key not in named or len(line) < len(named[key][1]):
                named[key] = (page_no, line, entity.text)
    for (doc_id, kind, target_key, provision), (page_no, line, surface) in named.items():
        rows.append(("record", kind, target_key, provision, doc_id, None, None, page_no, _clip(line), surface))
        counts["record"] += 1
    with conn.transaction():
        conn.execute("DELETE FROM citation_links")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO citation_links (origin, target_kind, target_key, target_provision, citing_doc_id,"
                " citing_version, produces_version, page, sentence, surface) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
                " %s, %s)",
                rows,
            )
    return counts


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
    document citing itself left out."""
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
                " WHERE lower(coalesce(d.citation, '')) <> h.key_folded AND lower(d.doc_id) <> h.key_folded"
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


# A row's scope matches a cited provision as a query's does (_match_sql): '' everything, else the path or below it.
_SCOPE_MATCH = (
    "(s.scope = '' OR {t}.target_provision = s.scope"
    " OR {t}.target_provision LIKE replace(replace(s.scope, '%%', '\\%%'), '_', '\\_') || ' %%')"
)
STREAM_ROWS = 20_000  # rows per fetch and per COPY in the streamed passes of _ready_passages


def _ready_passages(conn: psycopg.Connection) -> None:
    """``citation_ready``: the passages each staged index row (``citation_staged``) shows, exactly as a query would
    cut them (:func:`_passages_of` over the row's sampled passages and links), in two streamed passes: the sentence
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
        link_pages[(doc_id, sentence)] = _page_of(conn, version_id, sentence, cache)
    conn.execute("CREATE TEMP TABLE citation_ready (row_no bigint, passages jsonb) ON COMMIT DROP")

    def ready(rows):
        for (row_no, doc_id), hits in groupby(rows, key=lambda r: r[:2]):
            passages = _passages_of([h[2:] for h in hits], lambda sentence: link_pages.get((doc_id, sentence)))
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
)
BUILD_WRITES = ("citation_links", "citation_index", "citation_totals")
BUILD_CODE = (
    "citator/build.py",
    "records/citation_records.py",
    "citator/wording.py",
    "law/act_versions.py",
    "law/identifiers.py",
)
BUILD_NAME = "citations"


# Tables other stages write every night, or in columns the build does not read (a crawl's last_seen of each document
# seen again; the chunk stages' lexemes, vectors and marks): told by the values the build reads instead of their row
# versions, so that a night with nothing new keeps the build.
ROW_VALUES = {
    "documents": "to_jsonb(t) - 'last_seen'",
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


def _clip(text: str | None) -> str | None:
    text = re.sub(r"\s+", " ", text or "").strip()
    return (text[: SENTENCE_CHARS - 1] + "…") if len(text) > SENTENCE_CHARS else (text or None)


# ---------------------------------------------------------------- the query

# The family of a citing document, from its kind and source (in SQL: counted and ranked in the database).
FAMILY_SQL = sql.SQL(
    "CASE WHEN d.doc_type LIKE 'law%%' OR d.source = 'esbirka' THEN 'acts'"
    " WHEN d.doc_type IN ('decision', 'citation_record') OR d.source IN ('nsoud', 'nalus', 'nssoud') THEN 'decisions'"
    " WHEN d.doc_type LIKE 'notice%%' OR d.doc_type = 'municipal_document' OR d.source IN ('municipal', 'boards')"
    " THEN 'notices' ELSE 'other' END"
)
PASSAGES_PER_DOCUMENT = 5
SAMPLE_PASSAGES = 5  # passages (chunks) kept per citing document and scope to show


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` holding ``[start, end)`` (at most about SENTENCE_CHARS characters)."""
    begin = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        begin = m.end()
    stop = _SENTENCE_END.search(text, end)
    finish = stop.start() if stop else len(text)
    begin = max(begin, start - SENTENCE_CHARS // 2)
    finish = min(finish, end + SENTENCE_CHARS // 2)
    return _SPACES.sub(" ", text[begin:finish]).strip()


def _match_sql(target: Target, table: str) -> tuple[sql.Composed, list]:
    """WHERE clause matching the target (and, for a provision, everything below it)."""
    clause = "lower({t}.target_key) = ANY(%s) AND {t}.target_kind = %s"
    params: list = [[k.lower() for k in target.keys], target.kind]
    if target.provision:
        clause += " AND ({t}.target_provision = %s OR {t}.target_provision LIKE %s)"
        params += [target.provision, target.provision.replace("%", r"\%").replace("_", r"\_") + " %"]
    return sql.SQL(clause).format(t=sql.Identifier(table)), params


def _expand_decision_keys(conn: psycopg.Connection, target: Target) -> Target:
    """A decision's keys with the ECLIs stored decisions of that file number carry, and their file number."""
    rows = conn.execute(
        "SELECT doc_id, citation FROM documents WHERE doc_type IN ('decision', %s)"
        " AND (lower(citation) = ANY(%s) OR lower(doc_id) = ANY(%s))",
        (CITATION_RECORD, [k.lower() for k in target.keys], [k.lower() for k in target.keys]),
    ).fetchall()
    keys = list(target.keys)
    for doc_id, citation in rows:
        for key in (doc_id if doc_id.upper().startswith("ECLI:") else None, citation):
            if key and key.lower() not in {k.lower() for k in keys}:
                keys.append(key)
    # the key as citations spell it (an ECLI gives the register in capitals: 31 ND 200/2012 is 31 Nd 200/2012)
    spelled = conn.execute(
        "SELECT target_key FROM citation_targets WHERE lower(target_key) = %s LIMIT 1", (target.key.lower(),)
    ).fetchone()
    return Target(target.kind, spelled[0] if spelled else target.key, target.provision, tuple(keys))


def cites(conn: psycopg.Connection, ref: str, limit: int = 20, cut: bool = False) -> dict:
    """Everything citing ``ref``: ``{status, target, total_documents, total_citations, families: {acts|decisions|
    notices|other: {documents, citations, items: [{doc_id, title, citation, kind, date, citations, passages:
    [{sentence, page, cited, origins}]}]}}}``. Counts are every citing document and citation (``citation_totals``);
    each family lists its newest ``limit`` documents (``citation_index``), each with at most PASSAGES_PER_DOCUMENT
    passages (the same sentence on the same page once, with every way it was found): those the index holds ready
    for the document (``citation_index.passages``), cut on the call (:func:`_fill_passages`) for a document the
    index cannot answer alone — listed under two key forms of the target (a decision's file number and an ECLI
    that names none), or indexed before the passages were — or for every document with ``cut``."""
    target = parse_target(ref)
    if target is None:
        return {"ref": ref, "status": "not_a_reference", "message": f"{ref!r} names no act, provision or decision."}
    if target.kind == "decision":
        target = _expand_decision_keys(conn, target)
    keys = sorted({k.lower() for k in target.keys})
    scope = target.provision
    families = {name: {"documents": 0, "citations": 0, "items": []} for name in FAMILIES}
    # one statement: the totals per family, then the newest documents of each family and key form with their
    # ready passages (an ordered index range each; an empty family costs a probe). Planned for its values, never
    # prepared: a generic plan (chosen after a few runs of a prepared statement) cannot range-scan a provision's
    # LIKE prefix nor size the arrays, and at 1M passages cost ~100 ms of server CPU a call instead of ~10.
    parts = [
        sql.SQL(
            "SELECT 'total' AS row, family, NULL AS doc_id, NULL::date AS published,"
            " sum(documents)::int AS documents, sum(citations)::int AS citations, NULL::text[] AS samples,"
            " NULL::jsonb AS passages FROM citation_totals"
            " WHERE target_kind = %s AND key_folded = ANY(%s) AND scope = %s GROUP BY family"
        )
    ]
    params: list = [target.kind, keys, scope]
    for family in FAMILIES:
        for key in keys:
            parts.append(
                sql.SQL(
                    "(SELECT 'document', family, doc_id, published, NULL, citations, sample_chunks,"
                    " passages"
                    " FROM citation_index WHERE key_folded = %s AND scope = %s AND family = %s"
                    " AND target_kind = %s"
                    " ORDER BY published DESC NULLS LAST, doc_id DESC LIMIT %s)"
                )
            )
            params += [key, scope, family, target.kind, limit]
    ranked = conn.execute(
        sql.SQL(
            "WITH found AS ({found}) SELECT f.row, f.family, f.doc_id, f.published, f.documents,"
            " f.citations, f.samples, f.passages, d.title, d.citation, d.doc_type, d.source, d.current_version_id"
            " FROM found f LEFT JOIN documents d ON d.doc_id = f.doc_id"
        ).format(found=sql.SQL(" UNION ALL ").join(parts)),
        params,
        prepare=False,
    ).fetchall()
    merged: dict[str, list] = {}
    about: dict[str, tuple] = {}
    for row, family, doc_id, published, documents, count, samples, ready, *info in ranked:
        if row == "total":
            families[family]["documents"], families[family]["citations"] = documents, count
            continue
        about[doc_id] = tuple(info)
        known = merged.get(doc_id)
        if known is None:
            merged[doc_id] = [family, doc_id, published, count, list(samples), None if cut else ready]
        else:  # listed under another key form too: its passages are those of both, cut on the call
            known[3] += count
            known[4] += [s for s in samples if s not in known[4]]
            known[5] = None
    families_with = [name for name, counts in families.items() if counts["documents"]]
    listed: dict[str, dict] = {}
    samples: dict[str, list[str]] = {}
    for family in families_with:
        rows = sorted(
            (r for r in merged.values() if r[0] == family), key=lambda r: (r[2] is not None, r[2], r[1]), reverse=True
        )[:limit]
        for _, doc_id, published, count, chunk_ids, ready in rows:
            title, citation, doc_type, source, version_id = about.get(doc_id, (None,) * 5)
            doc = {
                "doc_id": doc_id,
                "title": title,
                "citation": citation,
                "kind": doc_type,
                "source": source,
                "date": published.isoformat() if published else None,
                "citations": count,
                "passages": [],
                "_version": version_id,
            }
            families[family]["items"].append(doc)
            listed[doc_id] = doc
            samples[doc_id] = chunk_ids
            if ready is not None:
                doc["passages"] = _ready(ready)
    if len(keys) > 1 and listed:
        # a document indexed under two key forms but listed under one (the other's newest did not reach it)
        for (doc_id,) in conn.execute(
            "SELECT doc_id FROM citation_index WHERE target_kind = %s AND key_folded = ANY(%s) AND scope = %s"
            " AND doc_id = ANY(%s) GROUP BY doc_id HAVING count(*) > 1",
            (target.kind, keys, scope, list(listed)),
            prepare=False,
        ):
            merged[doc_id][5] = None
    _fill_passages(conn, target, {d: doc for d, doc in listed.items() if merged[d][5] is None}, samples)
    for doc in listed.values():
        doc.pop("_version")
    total = sum(f["citations"] for f in families.values())
    documents = sum(f["documents"] for f in families.values())
    return {
        "ref": ref,
        "status": "found" if total else "none",
        "target": {
            "kind": target.kind,
            "key": target.key,
            "provision": target.provision or None,
            "label": target.label,
            "matched_as": list(target.keys),
        },
        "total_documents": documents,
        "total_citations": total,
        "families": families,
        "message": f"{target.label}: cited {total} time(s) in {documents} document(s)"
        if total
        else f"{target.label}: no stored document cites it",
    }


def _fill_passages(
    conn: psycopg.Connection, target: Target, listed: dict[str, dict], samples: dict[str, list[str]]
) -> None:
    """The citing passages of the listed documents cut on the call (what the index holds ready, for the documents
    it cannot answer alone: see :func:`cites`): the sentence around each mention in their sampled passages
    (``citation_index.sample_chunks``, read by primary key), and each link's own sentence (its page found in the
    document's text when the link does not say)."""
    for doc in listed.values():
        doc["passages"] = []
    if not listed:
        return
    # one statement: the mentions in the sampled passages (by primary key; materialised first, or a decision cited
    # 100k times is joined through all its mentions), those of the target, their passages' text, then the links;
    # never prepared (see cites)
    mention, mention_params = _match_sql(target, "t")
    link, link_params = _match_sql(target, "l")
    chunk_ids = [chunk_id for doc_id in listed for chunk_id in samples.get(doc_id, [])]
    rows = conn.execute(
        sql.SQL(
            "WITH sampled AS MATERIALIZED (SELECT chunk_id, entity_id, start_char, end_char FROM mentions"
            "  WHERE chunk_id = ANY(%s)),"
            " cited AS MATERIALIZED (SELECT m.chunk_id, m.start_char, m.end_char, t.target_key, t.target_provision"
            "  FROM sampled m JOIN citation_targets t ON t.entity_id = m.entity_id WHERE {mention})"
            " SELECT c.doc_id, 'mention', c.page_start, c.text, s.start_char, s.end_char, s.target_key, s.target_provision,"
            " NULL, c.seq FROM cited s JOIN chunks c ON c.chunk_id = s.chunk_id"
            " UNION ALL SELECT l.citing_doc_id, l.origin, l.page, l.sentence, NULL, NULL, l.target_key, l.target_provision,"
            " l.produces_version, NULL FROM citation_links l WHERE l.citing_doc_id = ANY(%s) AND {link}"
        ).format(mention=mention, link=link),
        [chunk_ids] + mention_params + [list(listed)] + link_params,
        prepare=False,
    ).fetchall()
    hits: dict[str, list] = {}
    for doc_id, origin, page, text, start, end, key, provision, produces, seq in rows:
        sentence = sentence_around(text, start, end) if origin == "mention" else text  # a link: its own sentence
        hits.setdefault(doc_id, []).append((page, start, origin, sentence, key, provision, produces, seq))
    pages_of: dict[int, list] = {}
    for doc_id, found in hits.items():
        version = listed[doc_id]["_version"]
        listed[doc_id]["passages"] = _passages_of(found, lambda s, v=version: _page_of(conn, v, s, pages_of))


def _passages_of(hits: list[tuple], page_of) -> list[dict]:
    """One citing document's passages from its hits ``(page, start, origin, sentence, key, provision, produces,
    seq)``: in reading order (mentions at the same offset of passages on one page by passage order, then by what
    they cite and how it was found, so which passages are shown never depends on a plan's row order), the same
    sentence on the same page once with every way it was found, at most PASSAGES_PER_DOCUMENT, by page.
    ``page_of(sentence)`` is the page of a link that names none."""
    hits = sorted(
        hits, key=lambda h: (h[0] is None, h[0] or 0, h[1] or 0, h[7] or 0, h[3] or "", h[4] or "", h[5] or "", h[2])
    )
    seen: dict[tuple, dict] = {}
    passages: list[dict] = []
    for page, _, origin, sentence, key, provision, produces, _ in hits:
        if page is None and sentence:
            page = page_of(sentence)
        cited = _cited_label(key, provision)
        entry = seen.get((page, sentence))
        if entry is not None:
            entry["origins"] = sorted(set(entry["origins"]) | {origin})
            entry["cited"] = sorted(set(entry["cited"]) | {cited})
            continue
        if len(passages) >= PASSAGES_PER_DOCUMENT:
            continue
        entry = {
            "sentence": sentence,
            "page": page,
            "cited": [cited],
            "origins": [origin],
            **({"produces_version": produces} if produces else {}),
        }
        seen[(page, sentence)] = entry
        passages.append(entry)
    passages.sort(key=lambda e: (e["page"] is None, e["page"] or 0))
    return passages


def _ready(stored: list[dict]) -> list[dict]:
    """Passages as the index holds them (jsonb orders an object's keys its own way) in the answer's key order."""
    return [
        {
            "sentence": p["sentence"],
            "page": p["page"],
            "cited": p["cited"],
            "origins": p["origins"],
            **({"produces_version": p["produces_version"]} if "produces_version" in p else {}),
        }
        for p in stored
    ]


def _page_of(conn: psycopg.Connection, version_id: int | None, sentence: str, cache: dict) -> int | None:
    """The page of a stored document version whose text holds the start of ``sentence``."""
    if version_id is None:
        return None
    if version_id not in cache:
        cache[version_id] = [
            (page_no, re.sub(r"\s+", "", text))
            for page_no, text in conn.execute(
                "SELECT page_no, text FROM pages WHERE version_id = %s ORDER BY page_no", (version_id,)
            )
        ]
    probe = re.sub(r"\s+", "", sentence)[:40]
    if len(probe) < 8:
        return None
    return next((page_no for page_no, text in cache[version_id] if probe in text), None)


def _cited_label(key: str, provision: str) -> str:
    """What a passage cites, as the citator keeps it: ``§ 140 odst. 2 40/2009 Sb.``, ``III. ÚS 729/00``."""
    return f"{provision} {key}".strip()


def describe(answer: dict) -> str:
    """The answer as text for a terminal."""
    lines = [answer["message"]]
    for name, family in (answer.get("families") or {}).items():
        if not family["documents"]:
            continue
        lines.append(f"\n{name}: {family['documents']} document(s), {family['citations']} citation(s)")
        for doc in family["items"]:
            lines.append(
                f"  {doc['date'] or '????-??-??'}  {doc['citation'] or doc['doc_id']}  {(doc['title'] or '')[:70]}"
            )
            for passage in doc["passages"][:3]:
                page = f"p. {passage['page']}" if passage["page"] else "p. ?"
                lines.append(f"      {page} [{', '.join(passage['cited'])}] {passage['sentence'] or ''}"[:220])
            if len(doc["passages"]) > 3:
                lines.append(f"      … {len(doc['passages']) - 3} more")
    return "\n".join(lines)
