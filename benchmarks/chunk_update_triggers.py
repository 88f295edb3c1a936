"""What the change marks' triggers on chunks cost bulk writes: migration 0037's statement triggers with transition
tables against 0038's row trigger with a WHEN, over a SYNTHETIC corpus in the embedded PostgreSQL.

    nice -n 10 .venv/bin/python benchmarks/chunk_update_triggers.py
    nice -n 10 .venv/bin/python benchmarks/chunk_update_triggers.py --documents 200 --chunks 10 --repeat 1

The corpus (made in SQL, seeded): ``--documents`` documents of ``--chunks`` passages each, every passage about
``--text-chars`` characters of random words from a synthetic vocabulary, a random 384-dimensional embedding and its
hashes (``--dim 0``: none, as a passage not yet embedded), no lexemes yet. It is built once, migrated to 0037;
each variant works on a copy of it (CREATE DATABASE ... TEMPLATE):

    no_marks  0037's triggers on chunks dropped: what the same writes cost before 0037 (reference)
    0037      0037 as it is
    0038      0037, then 0038

and times each whole operation, each in a database session of its own (as each stage has its connection): wall
seconds (what the night's stage waits) and the CPU seconds of the server process that ran it (less at the mercy of
whatever else runs on the machine):

    ignored           every passage's ner_done_at set, 5000 passages a statement (a column the marks ignore, with
                      no index or trigger of its own: what the marks' triggers add, nearly alone)
    lexemes           every passage's lexemes written as the full-text fill writes them
                      (mendel.index.fulltext.write_lexemes, batches of 5000; the tsvector literals are the text's
                      whitespace tokens, made before the clock starts: the Czech analyser's cost is not the triggers')
    digest_1pct       one UPDATE of content_hash on ``--digest-share`` of the passages (a digested column)
    digest_all        one UPDATE of embedded_hash on every passage (a digested column, the row trigger's worst case)
    insert            ``--new-documents`` new documents' passages written with the chunk stage's INSERT ... ON
                      CONFLICT, executemany in transactions of CHUNK_BATCH_VERSIONS versions
                      (mendel.nightly.chunk_stage)
    embed             those passages' random vectors written with the embed stage's UPDATE, executemany in one
                      transaction (mendel.nightly.embed_stage.embed_pending); the HNSW indexes set aside before, as
                      the stage sets them aside for a bulk write, and not built again (that costs every variant the
                      same)
    embed_after_bulk  the same, other vectors, in a session that first (untimed) cleared the vectors' hashes in one
                      UPDATE, as stage_versions.reprocess_embed does when the model changes
    insert_after_bulk as insert, other documents, in a session that first (untimed) COPYed as many more passages

A PL/pgSQL trigger function plans its queries at its first call in a session and keeps the plans: the *_after_bulk
operations show what 0037's plans, made for a large transition table, cost each one-row statement after it.

with the documents each marked and the bytes PostgreSQL wrote to temporary files meanwhile (transition tables
larger than work_mem spill there). Writes benchmarks/results/chunk_update_triggers.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from mendel.core import db  # noqa: E402
from mendel.index.fulltext import lexemes_hash, tsvector_literal, write_lexemes  # noqa: E402
from mendel.nightly.chunk_stage import CHUNK_BATCH_VERSIONS  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "chunk_update_triggers.json"
LAST_BEFORE = 37  # the migrations the corpus is built with; 0038 is what a variant adds
LEXEME_BATCH = 5000  # fill_lexemes' batch_size
VOCABULARY = 20000  # synthetic words w0 .. w19999, drawn skewed (a few common, many rare)
WORD_CHARS = 5.6  # a drawn word's mean length with its space (measured on the drawn texts)
OPERATIONS = (
    "ignored",
    "lexemes",
    "digest_1pct",
    "digest_all",
    "insert",
    "embed",
    "embed_after_bulk",
    "insert_after_bulk",
)
EMBED_DIM = 384  # chunks.embedding's type
VARIANTS = ("no_marks", "0037", "0038")
SYNTHETIC_VERSION = "synthetic-bench"  # the lexemes_version and embed_version the benchmark writes

# The chunk stage's statement (mendel.nightly.chunk_stage.chunk_pending builds it inline), copied.
CHUNK_STAGE_INSERT = (
    "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path,"
    " char_start, char_end, text, content_hash, parent_id, summary, ner_done_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, CASE WHEN %s THEN now() END)"
    " ON CONFLICT (chunk_id) DO UPDATE SET seq = EXCLUDED.seq, section_path = EXCLUDED.section_path,"
    " parent_id = EXCLUDED.parent_id, summary = EXCLUDED.summary, text = EXCLUDED.text,"
    " content_hash = EXCLUDED.content_hash,"
    " ner_done_at = CASE WHEN chunks.content_hash IS DISTINCT FROM EXCLUDED.content_hash"
    "  THEN EXCLUDED.ner_done_at ELSE chunks.ner_done_at END"
    " WHERE (chunks.seq, chunks.section_path, chunks.parent_id, chunks.summary, chunks.text, chunks.content_hash)"
    "  IS DISTINCT FROM (EXCLUDED.seq, EXCLUDED.section_path, EXCLUDED.parent_id, EXCLUDED.summary, EXCLUDED.text,"
    "  EXCLUDED.content_hash)"
)

# The embed stage's statement (mendel.nightly.embed_stage.embed_pending), copied.
EMBED_STAGE_UPDATE = (
    "UPDATE chunks SET embedding = %s::vector, embedded_hash = %s, embed_version = %s WHERE chunk_id = %s"
)

# 0037's triggers on chunks (the no_marks variant drops them)
MARK_TRIGGERS = ("chunks_mark_insert", "chunks_mark_delete", "chunks_mark_update", "chunks_mark_truncate")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def migrate_to(url: str, last: int) -> None:
    """The bundled migrations up to ``last``, recorded as mendel.core.db.migrate records them."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, name, text in db.migrations():
            if version <= last:
                with conn.transaction():
                    conn.execute(text)
                    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name))


def words_sql(n_words: int, correlate: str) -> str:
    """An SQL expression of ``n_words`` random synthetic words (``correlate``: an outer reference, so that the
    subquery is evaluated per row)."""
    return (
        f"(SELECT string_agg('w' || floor({VOCABULARY} * random() ^ 3)::int, ' ')"
        f" FROM generate_series(1, {n_words}) WHERE {correlate})"
    )


def build_corpus(url: str, documents: int, chunks: int, text_chars: int, dim: int, seed: float) -> dict:
    """The SYNTHETIC corpus, written in SQL (no data leaves the server)."""
    n_words = max(1, round(text_chars / WORD_CHARS))
    clock = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT setseed(%s)", (seed,))
        with conn.transaction():
            conn.execute(
                "INSERT INTO documents (doc_id, source, url, title)"
                " SELECT 'syn' || lpad(i::text, 7, '0'), 'synthetic', 'https://synthetic.invalid/' || i, 'Doc ' || i"
                " FROM generate_series(1, %s) i",
                (documents,),
            )
            conn.execute(
                "INSERT INTO document_versions (doc_id, sha256, byte_size)"
                " SELECT doc_id, md5(doc_id) || md5(doc_id || 'v'), 1 FROM documents"
            )
            conn.execute(
                "UPDATE documents d SET current_version_id = v.version_id FROM document_versions v"
                " WHERE v.doc_id = d.doc_id"
            )
            conn.execute(
                "INSERT INTO chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path,"
                " char_start, char_end, text, content_hash, embedding, embedded_hash)"
                " SELECT encode(sha256(convert_to(v.doc_id || ':' || s, 'UTF8')), 'hex'), v.version_id, v.doc_id, 3,"
                " s, 1, 1, '§ ' || s, s * %(chars)s, (s + 1) * %(chars)s, t.text, md5(t.text), e.embedding,"
                " CASE WHEN e.embedding IS NOT NULL THEN md5(t.text || 'e') END"
                " FROM document_versions v CROSS JOIN generate_series(0, %(chunks)s - 1) s"
                f" CROSS JOIN LATERAL (SELECT {words_sql(n_words, 's >= 0 AND v.version_id > 0')} AS text) t"
                " CROSS JOIN LATERAL (SELECT CASE WHEN %(dim)s > 0 THEN array_agg(random()::real)::vector END"
                " AS embedding"
                " FROM generate_series(1, %(dim)s) WHERE s >= 0 AND v.version_id > 0) e",
                {"chars": text_chars, "chunks": chunks, "dim": dim},
            )
        conn.execute("VACUUM ANALYZE chunks")
        conn.execute("VACUUM ANALYZE documents")
        size = conn.execute(
            "SELECT count(*), round(avg(length(text))), pg_total_relation_size('chunks') FROM chunks"
        ).fetchone()
    return {
        "chunks": size[0],
        "mean_text_chars": int(size[1]),
        "chunks_table_bytes": size[2],
        "build_seconds": round(time.perf_counter() - clock, 1),
    }


def new_documents_rows(url: str, first: int, count: int, chunks: int, text_chars: int, seed: int) -> list[tuple]:
    """``count`` more documents (and versions) inserted now; the chunk stage's rows for their passages, returned.
    Texts of synthetic words, made here (the chunk stage's rows come from Python too)."""
    rng = random.Random(seed)
    n_words = max(1, round(text_chars / WORD_CHARS))
    doc_ids = [f"syn{i:07d}" for i in range(first, first + count)]
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(
            "INSERT INTO documents (doc_id, source, url) SELECT d, 'synthetic', 'https://synthetic.invalid/' || d"
            " FROM unnest(%s::text[]) d",
            (doc_ids,),
        )
        versions = dict(
            conn.execute(
                "INSERT INTO document_versions (doc_id, sha256, byte_size)"
                " SELECT d, md5(d) || md5(d || 'v'), 1 FROM unnest(%s::text[]) d RETURNING doc_id, version_id",
                (doc_ids,),
            ).fetchall()
        )
    rows = []
    for doc_id in doc_ids:
        for seq in range(chunks):
            text = " ".join(f"w{int(VOCABULARY * rng.random() ** 3)}" for _ in range(n_words))
            # chunk_id, version, doc, layer, seq, pages, section, chars, text, hash, parent, summary, recognised
            rows.append(
                (
                    f"{doc_id}:{seq}",
                    versions[doc_id],
                    doc_id,
                    3,
                    seq,
                    1,
                    1,
                    f"§ {seq}",
                    seq * text_chars,
                    (seq + 1) * text_chars,
                    text,
                    f"{doc_id}:{seq}:h",
                    None,
                    None,
                    False,
                )
            )
    return rows


def apply_variant(url: str, variant: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        if variant == "no_marks":
            for trigger in MARK_TRIGGERS:
                conn.execute(sql.SQL("DROP TRIGGER {} ON chunks").format(sql.Identifier(trigger)))
        elif variant == "0038":
            (text,) = [text for version, _, text in db.migrations() if version == 38]
            with conn.transaction():
                conn.execute(text)
        triggers = [r[0] for r in conn.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = 'chunks'::regclass")]
        assert variant != "no_marks" or not set(MARK_TRIGGERS) & set(triggers), triggers


class Measured:
    """One operation on one connection: wall seconds, the server process's CPU seconds (less at the mercy of what
    else runs on the machine), documents marked, temporary file bytes written."""

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn
        self.stat = Path(f"/proc/{conn.execute('SELECT pg_backend_pid()').fetchone()[0]}/stat")

    def _cpu_seconds(self) -> float:
        fields = self.stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def _temp_bytes(self) -> int:
        self.conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counters, flushed when it idles
        time.sleep(0.05)
        self.conn.execute("SELECT pg_stat_clear_snapshot()")
        return int(
            self.conn.execute("SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()").fetchone()[
                0
            ]
        )

    def run(self, operation) -> dict:
        self.conn.execute("CHECKPOINT")
        temp_before = self._temp_bytes()
        mark = self.conn.execute("SELECT txid_current()").fetchone()[0] + 1
        cpu = self._cpu_seconds()
        clock = time.perf_counter()
        operation()
        seconds = time.perf_counter() - clock
        cpu = self._cpu_seconds() - cpu
        marked = self.conn.execute("SELECT count(*) FROM documents WHERE changed_txid >= %s", (mark,)).fetchone()[0]
        return {
            "seconds": round(seconds, 3),
            "server_cpu_seconds": round(cpu, 2),
            "documents_marked": marked,
            "temp_bytes": self._temp_bytes() - temp_before,
        }


def embed_rows(new_rows: list[tuple], seed: int, tag: str) -> list[tuple]:
    """The embed stage's parameters for the new passages: a random vector each (SYNTHETIC)."""
    rng = random.Random(seed)
    return [
        (
            "[" + ",".join(f"{rng.uniform(-1, 1):.6f}" for _ in range(EMBED_DIM)) + "]",
            f"{row[0]}:{tag}",
            SYNTHETIC_VERSION,
            row[0],
        )
        for row in new_rows
    ]


def drop_vector_indexes(conn: psycopg.Connection) -> None:
    for (name,) in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexdef ILIKE '%% USING hnsw %%'"
    ).fetchall():
        conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))


def insert_as_the_chunk_stage(conn: psycopg.Connection, rows: list[tuple]) -> None:
    versions = sorted({row[1] for row in rows})
    for first in range(0, len(versions), CHUNK_BATCH_VERSIONS):
        batch = set(versions[first : first + CHUNK_BATCH_VERSIONS])
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(CHUNK_STAGE_INSERT, [row for row in rows if row[1] in batch])


def embed_as_the_embed_stage(conn: psycopg.Connection, vectors: list[tuple]) -> None:
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(EMBED_STAGE_UPDATE, vectors)


def copy_chunks(conn: psycopg.Connection, rows: list[tuple]) -> None:
    """``rows`` (the chunk stage's) in one COPY: one statement of many rows."""
    columns = "chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path, char_start, char_end, text"
    with conn.cursor() as cur, cur.copy(f"COPY chunks ({columns}, content_hash) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row[:12])


def bench_variant(url: str, variant: str, work: dict) -> dict:
    """The operations on a copy of the corpus, each in a session of its own (as each stage has its connection);
    the two *_after_bulk ones after an untimed bulk statement in their session."""
    apply_variant(url, variant)
    lexemes = work["lexemes"]

    def ignored(conn):
        ids = [row[0] for row in lexemes]
        for start in range(0, len(ids), LEXEME_BATCH):
            conn.execute(
                "UPDATE chunks SET ner_done_at = now() WHERE chunk_id = ANY(%s)", (ids[start : start + LEXEME_BATCH],)
            )

    def fill(conn):
        for start in range(0, len(lexemes), LEXEME_BATCH):
            write_lexemes(conn, lexemes[start : start + LEXEME_BATCH], SYNTHETIC_VERSION)

    def reprocess_embed(conn):  # mendel.core.stage_versions.reprocess_embed's statement (another model)
        conn.execute("UPDATE chunks SET embedded_hash = NULL WHERE layer = 3 AND embedding IS NOT NULL")

    operations = {
        "ignored": (None, ignored),
        "lexemes": (None, fill),
        "digest_1pct": (
            None,
            lambda conn: conn.execute(
                "UPDATE chunks SET content_hash = md5(content_hash) WHERE chunk_id = ANY(%s)", (work["digest_ids"],)
            ),
        ),
        "digest_all": (
            None,
            lambda conn: conn.execute("UPDATE chunks SET embedded_hash = md5(chunk_id || coalesce(embedded_hash, ''))"),
        ),
        "insert": (None, lambda conn: insert_as_the_chunk_stage(conn, work["new_rows"])),
        "embed": (drop_vector_indexes, lambda conn: embed_as_the_embed_stage(conn, work["vectors"])),
        "embed_after_bulk": (reprocess_embed, lambda conn: embed_as_the_embed_stage(conn, work["vectors_again"])),
        "insert_after_bulk": (
            lambda conn: copy_chunks(conn, work["bulk_rows"]),
            lambda conn: insert_as_the_chunk_stage(conn, work["rows_after_bulk"]),
        ),
    }
    assert tuple(operations) == OPERATIONS
    results = {}
    for name, (before, operation) in operations.items():
        with psycopg.connect(url, autocommit=True) as conn:
            if before is not None:
                before(conn)
            results[name] = Measured(conn).run(lambda: operation(conn))
    with psycopg.connect(url) as conn:
        written = conn.execute("SELECT count(*) FROM chunks WHERE lexemes_version = %s", (SYNTHETIC_VERSION,))
        assert written.fetchone()[0] == len(lexemes)
        embedded = conn.execute("SELECT count(*) FROM chunks WHERE embedded_hash LIKE '%%:e2'").fetchone()[0]
        assert embedded == len(work["vectors_again"]), embedded
    return results


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=20, help="passages per document")
    parser.add_argument("--text-chars", type=int, default=1000)
    parser.add_argument(
        "--dim", type=int, default=384, help="0: passages not yet embedded (no vector index entries to write)"
    )
    parser.add_argument("--digest-share", type=float, default=0.01)
    parser.add_argument("--new-documents", type=int, default=200, help="documents whose passages are inserted")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the variants' order turns each round")
    parser.add_argument("--work", type=Path, help="directory for the server (a temporary one by default)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    assert set(variants) <= set(VARIANTS), variants

    work = args.work or Path(tempfile.mkdtemp(prefix="chunk-triggers-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # pgserver runs PostgreSQL as its own user when started as root
    server = db.embedded_url(work / "pgdata")
    base_name = f"chunkbench_{uuid.uuid4().hex[:8]}"
    base = db.create_database(server, base_name)
    try:
        migrate_to(base, LAST_BEFORE)
        log(f"building the synthetic corpus: {args.documents} documents x {args.chunks} passages")
        corpus = build_corpus(base, args.documents, args.chunks, args.text_chars, args.dim, seed=0.42)
        log(f"corpus: {corpus}")
        with psycopg.connect(base) as conn:
            texts = conn.execute("SELECT chunk_id, text FROM chunks ORDER BY chunk_id").fetchall()
        lexemes = [(cid, tsvector_literal(text.split()), lexemes_hash(text)) for cid, text in texts]
        digest_ids = sorted(
            random.Random(7).sample([cid for cid, _ in texts], max(1, round(len(texts) * args.digest_share)))
        )
        first, count = args.documents + 1, args.new_documents
        new_rows = new_documents_rows(base, first, count, args.chunks, args.text_chars, 11)
        work_items = {
            "lexemes": lexemes,
            "digest_ids": digest_ids,
            "new_rows": new_rows,
            "vectors": embed_rows(new_rows, 13, "e"),
            "vectors_again": embed_rows(new_rows, 17, "e2"),
            "bulk_rows": new_documents_rows(base, first + count, count, args.chunks, args.text_chars, 19),
            "rows_after_bulk": new_documents_rows(base, first + 2 * count, count, args.chunks, args.text_chars, 23),
        }
        del texts
        with psycopg.connect(base) as conn:
            server_info = {
                "postgres": conn.execute("SHOW server_version").fetchone()[0],
                "work_mem": conn.execute("SHOW work_mem").fetchone()[0],
                "shared_buffers": conn.execute("SHOW shared_buffers").fetchone()[0],
            }
        runs: dict[str, list[dict]] = {v: [] for v in variants}
        for round_no in range(args.repeat):
            order = variants[round_no % len(variants) :] + variants[: round_no % len(variants)]
            for variant in order:
                name = f"{base_name}_{variant}_{round_no}"
                with psycopg.connect(server, autocommit=True) as conn:
                    conn.execute(
                        sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                            sql.Identifier(name), sql.Identifier(base_name)
                        )
                    )
                url = db.with_database(server, name)
                try:
                    result = bench_variant(url, variant, work_items)
                finally:
                    with psycopg.connect(server, autocommit=True) as conn:
                        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
                runs[variant].append(result)
                log(
                    f"round {round_no + 1} {variant}: "
                    + ", ".join(f"{op} {r['seconds']:.2f} s" for op, r in result.items())
                )
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(base_name)))
        db.stop_embedded(work / "pgdata")

    summary = {
        variant: {
            op: {
                "seconds_median": round(statistics.median(r[op]["seconds"] for r in runs[variant]), 3),
                "seconds": [r[op]["seconds"] for r in runs[variant]],
                "server_cpu_seconds_median": round(
                    statistics.median(r[op]["server_cpu_seconds"] for r in runs[variant]), 2
                ),
                "server_cpu_seconds": [r[op]["server_cpu_seconds"] for r in runs[variant]],
                "documents_marked": runs[variant][-1][op]["documents_marked"],
                "temp_mb": round(runs[variant][-1][op]["temp_bytes"] / 2**20, 1),
            }
            for op in OPERATIONS
        }
        for variant in variants
    }
    report = {
        "what": "chunks' change-mark triggers (migration 0037 against 0038) under bulk writes; SYNTHETIC corpus",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "parameters": {k: v for k, v in vars(args).items() if k not in ("work", "output")},
        "corpus": corpus,
        "lexeme_rows": len(lexemes),
        "digested_rows_1pct": len(digest_ids),
        "inserted_rows": len(new_rows),
        "bulk_copied_rows": len(work_items["bulk_rows"]),
        "server": server_info,
        "cpus": os.cpu_count(),
        "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
        "results": summary,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print_table(summary, variants)
    return report


def print_table(summary: dict, variants: list[str]) -> None:
    print("wall seconds (median) / server CPU seconds (median) / documents marked / temp MB, per variant")
    print(f"{'operation':<18}" + "".join(f"{v:>30}" for v in variants))
    for op in OPERATIONS:
        line = f"{op:<18}"
        for v in variants:
            r = summary[v][op]
            cell = f"{r['seconds_median']:.2f} / {r['server_cpu_seconds_median']:.2f}"
            cell += f" / {r['documents_marked']} / {r['temp_mb']:.0f}"
            line += f"{cell:>30}"
        print(line)


if __name__ == "__main__":
    main()
