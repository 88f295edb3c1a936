"""Latency of `mendel cites` (mendel.cites) and `/provisions` (mendel.citator.wording.provision_at) on a
PostgreSQL database holding N passages with their citations.

    .venv/bin/python benchmarks/bench_law.py --passages 100000
    .venv/bin/python benchmarks/bench_law.py --passages 1000000 --queries 300 --keep /tmp/bench-law-1m [--rebuild]

SYNTHETIC AT SCALE, REAL AT ITS CORE: the real versions of 573/2025 Sb. and 90/2024 Sb. read from the mirror as the
crawl reads them, plus synthetic act histories and synthetic citing passages (not legal text; the point is the
query plans and row counts). p50 / p95 / max of wall and CPU time per call go to benchmarks/results/law.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import requests  # noqa: E402

from mendel.citator import build as citator  # noqa: E402
from mendel.citator.wording import provision_at  # noqa: E402
from mendel.cites import cites  # noqa: E402
from mendel.core import db  # noqa: E402
from mendel.core.config import SAMPLE_CORPUS  # noqa: E402
from mendel.law import act_versions  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "law.json"
API = "/esel-esbir-daver/dokumenty-sbirky"
REAL_ACTS = ("/sb/2025/573", "/sb/2024/90")
CITED_ACTS = (
    "89/2012 Sb.",
    "99/1963 Sb.",
    "40/2009 Sb.",
    "141/1961 Sb.",
    "262/2006 Sb.",
    "500/2004 Sb.",
    "280/2009 Sb.",
    "183/2006 Sb.",
    "2/1993 Sb.",
    "1/1993 Sb.",
    "182/2006 Sb.",
    "120/2001 Sb.",
    "6/2002 Sb.",
    "90/2012 Sb.",
    "586/1992 Sb.",
    "235/2004 Sb.",
    "128/2000 Sb.",
    "563/1991 Sb.",
    "573/2025 Sb.",
    "90/2024 Sb.",
)
REGISTERS = ("Cdo", "Tdo", "ICdo", "Nd", "Afs", "As", "Ads")
FAMILIES = (("decision", "nsoud", 0.6), ("law", "esbirka", 0.3), ("notice", "municipal", 0.1))


def zipf_index(rng: random.Random, n: int, s: float = 1.1) -> int:
    """An index in [0, n) with Zipf-like weights (0 the most frequent)."""
    while True:
        value = int(rng.paretovariate(s)) - 1
        if value < n:
            return value


def load_real_versions(conn: psycopg.Connection) -> None:
    """The real versions of REAL_ACTS from the mirror, as the spider stores them."""
    from urllib.parse import quote

    from mirror.server import MirrorThread

    with MirrorThread(SAMPLE_CORPUS) as mirror:
        for stale in REAL_ACTS:
            base = f"{mirror.base_url}{API}/{quote(stale, safe='')}"
            history = requests.get(f"{base}/historie", timeout=60).json()
            for entry in history["historie"]:
                url = f"{mirror.base_url}{API}/{quote(entry['staleUrl'], safe='')}/fragmenty"
                first = requests.get(url, params={"cisloStranky": 1}, timeout=120).json()
                pages = [first] + [
                    requests.get(url, params={"cisloStranky": n}, timeout=120).json()
                    for n in range(2, first["pocetStranek"] + 1)
                ]
                record = act_versions.assemble({**entry, "zkracenaCitace": None}, pages)
                act_versions.record_version(conn, record, act_versions.sha256(record), {})
            act_versions.apply_history(conn, act_versions.parse_stale_url(stale).eli, history)


def synthetic_acts(conn: psycopg.Connection, count: int) -> list[tuple[str, str]]:
    """``count`` synthetic act histories copying the real ones' versions and provisions; their (doc_id, citation)."""
    real = conn.execute("SELECT doc_id, version, effective_from, effective_to FROM act_versions").fetchall()
    created = []
    with conn.transaction():
        for i in range(count):
            year, number = 2030 + i // 1000, i % 1000 + 1  # years no real act has
            doc_id, citation = f"/eli/cz/sb/{year}/{number}", f"{number}/{year} Sb."
            source = real[i % len(real)][0]
            conn.execute(
                "INSERT INTO act_versions (doc_id, version, stale_url, citation, title, version_kind, announced,"
                " effective_from, effective_to, fragment_count, reference_count, sha256, version_eli)"
                " SELECT %s, version, %s || '/' || version, %s,"
                " 'SYNTETICKÝ předpis pro měření (kopie ' || citation || ')', version_kind, announced,"
                " effective_from,"
                " effective_to, fragment_count, 0, sha256, %s || '/' || version FROM act_versions WHERE doc_id = %s",
                (doc_id, f"/sb/{year}/{number}", citation, doc_id, source),
            )
            conn.execute(
                "INSERT INTO provisions (doc_id, version, provision_id, path, kind, parent_id, seq, last_seq, depth,"
                " heading, text, wording_sha, fragment_ids) SELECT %s, version, provision_id, path, kind, parent_id,"
                " seq, last_seq, depth, heading, text, wording_sha, fragment_ids FROM provisions WHERE doc_id = %s",
                (doc_id, source),
            )
            created.append((doc_id, citation))
    return created


def _copy(conn: psycopg.Connection, sql: str, rows) -> None:
    with conn.cursor() as cur, cur.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def target_pool(rng: random.Random) -> tuple[list[str], list[str]]:
    """The cited sections and court file numbers (the first draws of the seeded generator)."""
    sections = [f"§ {n}" for n in range(1, 600)]
    decisions = [
        f"{rng.randint(1, 33)} {rng.choice(REGISTERS)} {rng.randint(1, 5000)}/{rng.randint(1995, 2025)}"
        for _ in range(20000)
    ]
    return sections, decisions


def synthetic_citations(conn: psycopg.Connection, passages: int, seed: int) -> dict:
    """``passages`` synthetic passages with their mentions; returns the target pool for the queries."""
    rng = random.Random(seed)
    sections, decisions = target_pool(rng)
    documents = passages // 10
    today = date(2026, 12, 1)
    with conn.transaction():
        docs = []
        for d in range(documents):
            doc_type, source, _ = rng.choices(FAMILIES, weights=[f[2] for f in FAMILIES])[0]
            docs.append(
                (
                    f"synthetic/{d}",
                    source,
                    f"https://synthetic.invalid/{d}",
                    f"SYNTETICKÝ dokument {d} pro měření citátoru",
                    doc_type,
                    f"{d % 90 + 1} Syn {d}/2026" if doc_type == "decision" else None,
                    today - timedelta(days=rng.randint(0, 9000)),
                )
            )
        _copy(conn, "COPY documents (doc_id, source, url, title, doc_type, citation, published) FROM STDIN", docs)
        version_ids = dict(
            conn.execute(
                "INSERT INTO document_versions (doc_id, sha256, byte_size) SELECT doc_id, md5(doc_id), 0 FROM documents"
                " WHERE doc_id LIKE 'synthetic/%%' RETURNING doc_id, version_id"
            ).fetchall()
        )
        conn.execute(
            "UPDATE documents d SET current_version_id = v.version_id FROM document_versions v"
            " WHERE v.doc_id = d.doc_id AND d.doc_id LIKE 'synthetic/%%'"
        )
        entities: dict[str, tuple[str, str]] = {}
        mentions: list[tuple] = []

        def chunk_rows():
            for p in range(passages):
                doc_id = f"synthetic/{p // 10}"
                parts, found = [], []
                for _ in range(rng.choice((2, 2, 3))):
                    if rng.random() < 0.75:
                        act = CITED_ACTS[zipf_index(rng, len(CITED_ACTS))]
                        provision = sections[zipf_index(rng, len(sections))]
                        if rng.random() < 0.6:
                            provision += f" odst. {rng.randint(1, 5)}"
                        surface, norm, label = f"{provision} zákona č. {act}", f"{act} {provision}", "LAW_REF"
                    else:
                        number = decisions[zipf_index(rng, len(decisions), 1.05)]
                        surface = norm = number
                        label = "DECISION_REF"
                    start = len(" ".join(parts)) + (1 if parts else 0) + len("Podle ")
                    parts.append(f"Podle {surface} se postupuje.")
                    found.append((f"{label}:{norm}", label, norm, start, start + len(surface), surface))
                text = " ".join(parts)
                chunk_id = uuid.UUID(int=rng.getrandbits(128)).hex
                for entity_id, label, norm, start, end, surface in found:
                    entities.setdefault(entity_id, (label, norm))
                    mentions.append((chunk_id, entity_id, start, end, surface))
                yield (chunk_id, version_ids[doc_id], doc_id, 3, p % 10, 1, 1, 0, len(text), text, chunk_id)

        _copy(
            conn,
            "COPY chunks (chunk_id, version_id, doc_id, layer, seq, page_start, page_end, char_start,"
            " char_end, text, content_hash) FROM STDIN",
            chunk_rows(),
        )
        _copy(
            conn,
            "COPY entities (entity_id, label, norm) FROM STDIN",
            [(k, label, norm) for k, (label, norm) in entities.items()],
        )
        unique = {(m[0], m[2], m[3]): m for m in mentions}
        _copy(conn, "COPY mentions (chunk_id, entity_id, start_char, end_char, surface) FROM STDIN", unique.values())
    conn.execute("ANALYZE")
    return {
        "documents": documents,
        "passages": passages,
        "mentions": len(unique),
        "entities": len(entities),
        "decisions": decisions,
        "sections": sections,
    }


def server_cpu_ms(conn: psycopg.Connection):
    """A reader of the CPU time the connection's server process has run (Linux schedstat, nanoseconds), or None
    where it cannot be read: on a shared machine wall time mostly measures the queue for the cores."""
    path = Path(f"/proc/{conn.info.backend_pid}/schedstat")
    try:
        path.read_text()
    except OSError:
        return None
    return lambda: int(path.read_text().split()[0]) / 1e6


def _percentiles(values: list[float], prefix: str) -> dict:
    values = sorted(values)
    return {
        f"{prefix}p50_ms": round(statistics.median(values), 2),
        f"{prefix}p95_ms": round(values[int(0.95 * (len(values) - 1))], 2),
        f"{prefix}max_ms": round(values[-1], 2),
    }


def timed(fn, runs: list, server_cpu=None) -> dict:
    """Wall time per call, and CPU time per call (this process plus the server process answering it)."""
    latencies, cpu = [], []
    for args in runs:
        server_before = server_cpu() if server_cpu else 0.0
        cpu_started, started = time.process_time(), time.perf_counter()
        fn(*args)
        latencies.append((time.perf_counter() - started) * 1000)
        client = (time.process_time() - cpu_started) * 1000
        cpu.append(client + ((server_cpu() - server_before) if server_cpu else 0.0))
    result = {"queries": len(latencies), **_percentiles(latencies, "")}
    return {**result, **_percentiles(cpu, "cpu_" if server_cpu else "client_cpu_")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--acts", type=int, default=1000, help="synthetic act histories")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--database-url", default=None, help="an empty database (default: embedded, temporary)")
    parser.add_argument(
        "--keep",
        default=None,
        metavar="DIR",
        help="keep the embedded database in DIR (loaded there unless it already holds one: then only"
        " the queries run again, e.g. after a change to the query code)",
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="with --keep on a database already loaded: build the citator's tables again (timed)"
        " before the queries, e.g. after a change to the build",
    )
    args = parser.parse_args(argv)
    pgdata = None
    reuse = False
    if args.database_url:
        url = args.database_url
    elif args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        Path(args.keep).chmod(0o755)
        reuse = (Path(args.keep) / "pgdata" / "PG_VERSION").exists()
        server = db.embedded_url(Path(args.keep) / "pgdata")
        url = db.with_database(server, "bench_law") if reuse else db.create_database(server, "bench_law")
    else:
        base = Path(tempfile.mkdtemp(prefix="mendel-bench-law-"))
        base.chmod(0o755)
        pgdata = base / "pgdata"
        url = db.create_database(db.embedded_url(pgdata), "bench_law")
    db.migrate(url)
    timings = {}
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            if reuse:  # the data of an earlier run: its target pool is the seed's first draws
                sections, decisions = target_pool(random.Random(args.seed))
                pool = {"sections": sections, "decisions": decisions}
                acts = conn.execute(
                    "SELECT DISTINCT doc_id FROM act_versions WHERE doc_id LIKE '/eli/cz/sb/203%%'"
                ).fetchall()
                build = {"reused": args.keep}
                if args.rebuild:
                    started = time.perf_counter()
                    build.update(citator.build(conn))
                    conn.execute("ANALYZE")
                    timings["citator_build_s"] = round(time.perf_counter() - started, 1)
                    timings["citator_build_load"] = "load average (1/5/15 min) %.1f / %.1f / %.1f after" % (
                        os.getloadavg()
                    )
            else:
                started = time.perf_counter()
                load_real_versions(conn)
                acts = synthetic_acts(conn, args.acts)
                timings["versions_s"] = round(time.perf_counter() - started, 1)
                started = time.perf_counter()
                pool = synthetic_citations(conn, args.passages, args.seed)
                timings["passages_s"] = round(time.perf_counter() - started, 1)
                started = time.perf_counter()
                build = citator.build(conn)
                conn.execute("ANALYZE")
                timings["citator_build_s"] = round(time.perf_counter() - started, 1)
            counts = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("chunks", "mentions", "entities", "citation_targets", "act_versions", "provisions")
            }
            rng = random.Random(args.seed + 1)
            cite_refs = []
            for _ in range(args.queries):
                roll = rng.random()
                if roll < 0.25:
                    cite_refs.append((conn, f"zákon č. {CITED_ACTS[zipf_index(rng, len(CITED_ACTS))]}"))
                elif roll < 0.5:
                    act = CITED_ACTS[zipf_index(rng, len(CITED_ACTS))]
                    section = pool["sections"][zipf_index(rng, len(pool["sections"]))]
                    cite_refs.append((conn, f"{section} zákona č. {act}"))
                elif roll < 0.75:
                    act = CITED_ACTS[zipf_index(rng, len(CITED_ACTS))]
                    section = pool["sections"][zipf_index(rng, len(pool["sections"]))]
                    cite_refs.append((conn, f"{section} odst. {rng.randint(1, 5)} zákona č. {act}"))
                else:
                    cite_refs.append((conn, pool["decisions"][zipf_index(rng, len(pool["decisions"]), 1.05)]))
            ids = conn.execute(
                "SELECT doc_id, provision_id FROM provisions WHERE kind IN ('Paragraf', 'Odstavec_Dc',"
                " 'Pismeno_Lb') ORDER BY random() LIMIT %s",
                (args.queries,),
            ).fetchall()
            citations_of = dict(conn.execute("SELECT DISTINCT doc_id, citation FROM act_versions").fetchall())
            provision_refs = [
                (conn, f"{pid} {citations_of[doc_id]}", date(2026, 1, 1) + timedelta(days=rng.randint(-30, 360)))
                for doc_id, pid in ids
            ]
            load_before = os.getloadavg()
            for warm in cite_refs[:5]:
                cites(*warm)
            for warm in provision_refs[:5]:
                provision_at(*warm)
            result = {
                "passages": args.passages,
                "synthetic_acts": len(acts),
                "counts": counts,
                "build": build,
                "load": timings,
                "cites": timed(lambda c, r: cites(c, r, limit=50), cite_refs, server_cpu_ms(conn)),
                "provision_at": timed(provision_at, provision_refs, server_cpu_ms(conn)),
                "machine_load": "load average (1/5/15 min) %.1f / %.1f / %.1f before the queries, %.1f / %.1f / %.1f"
                " after" % (*load_before, *os.getloadavg()),
                "cpus": os.cpu_count(),
                "note": "synthetic passages and act copies; see the docstring",
            }
    finally:
        if args.keep:
            db.stop_embedded(Path(args.keep) / "pgdata")
        if pgdata is not None:
            db.stop_embedded(pgdata)
            shutil.rmtree(pgdata.parent, ignore_errors=True)
    print(json.dumps(result, ensure_ascii=False, indent=1))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    previous[str(args.passages)] = result
    RESULTS.write_text(json.dumps(previous, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
