"""The court sources at size, crawled from the local mirror into a fresh embedded PostgreSQL and processed as the
nightly does up to recognition: Nejvyšší soud (the demo window: 960 dated decisions), the lower courts' open data
(1,498 records; 2 without text quarantined), Ústavní soud (the six real NALUS pages, found by file number).

    nice -n 5 .venv/bin/python benchmarks/bench_courts.py [--skip-ner]

Reports each crawl's wall time and requests, a second open-data crawl's requests (closed days are not asked for
again), the extraction (with the court metadata), chunking and recognition times, and the decisions with passages
per source and court level. Writes benchmarks/results/courts.json; results and method in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mendel.core import db  # noqa: E402
from mendel.core.config import SAMPLE_CORPUS  # noqa: E402
from mendel.core.rawstore import RawStore  # noqa: E402
from mendel.core.sources import source_envs  # noqa: E402
from mendel.nightly import chunk_stage, extract_stage, recognise_stage  # noqa: E402
from mirror.server import MirrorThread  # noqa: E402

CRAWLS = (("nsoud", {}), ("justice", {}), ("nalus", {"MENDEL_NALUS_FROM": "2100-01-01"}))  # NALUS: the six pages


def crawl(name: str, env: dict, extra: dict, run_id: str) -> tuple[dict, float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "crawlers.run", name],
        env={**env, **extra, "MENDEL_RUN_ID": run_id},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-4000:])
    return ast.literal_eval(proc.stdout.strip().splitlines()[-1]), time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-ner", action="store_true", help="stop after chunking")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "courts.json")
    args = parser.parse_args()
    load_at_start = [round(x, 1) for x in os.getloadavg()]  # the machine is shared: say how busy it was
    work = Path(tempfile.mkdtemp(prefix="mendel-bench-courts-"))
    work.chmod(0o755)  # pgserver runs PostgreSQL as its own user when started as root
    result: dict = {"crawls": {}, "stages_s": {}}
    try:
        database_url = db.create_database(db.embedded_url(work / "pgdata"), f"bench_{uuid.uuid4().hex[:8]}")
        db.migrate(database_url)
        with MirrorThread(SAMPLE_CORPUS) as mirror:
            env = {k: v for k, v in os.environ.items() if k not in source_envs() and k != "DAGSTER_PIPES_CONTEXT"}
            env.update(
                MENDEL_HOME=str(work / "home"),
                MENDEL_PROFILE="demo",
                MENDEL_MIRROR_URL=mirror.base_url,
                MENDEL_DATABASE_URL=database_url,
            )
            for name, extra in CRAWLS:
                counts, wall = crawl(name, env, extra, f"bench-{name}")
                result["crawls"][name] = {
                    "wall_s": round(wall, 1),
                    "requests": counts["requests"],
                    "stored": counts["stored"],
                    "quarantined": counts["quarantined"],
                }
                print(name, result["crawls"][name], flush=True)
            counts, wall = crawl("justice", env, {}, "bench-justice-again")
            result["crawls"]["justice_second_run"] = {"wall_s": round(wall, 1), "requests": counts["requests"]}
        store = RawStore(work / "home" / "raw")
        with psycopg.connect(database_url, autocommit=True) as conn:
            for stage, run in (
                ("extract_with_court_metadata", lambda: extract_stage.extract_with_records(conn, store)),
                ("chunk", lambda: chunk_stage.chunk_pending(conn)),
                *(() if args.skip_ner else (("recognise", lambda: recognise_stage.recognise_pending(conn)),)),
            ):
                started = time.perf_counter()
                run()
                result["stages_s"][stage] = round(time.perf_counter() - started, 1)
                print(stage, result["stages_s"][stage], flush=True)
            rows = conn.execute(
                "SELECT d.source, coalesce(c.court_level, '?'), count(DISTINCT d.doc_id) FROM documents d"
                " JOIN chunks k ON k.doc_id = d.doc_id AND k.layer = 3 LEFT JOIN court_decisions c ON c.doc_id = d.doc_id"
                " WHERE d.doc_type = 'decision' AND d.status = 'active' GROUP BY 1, 2 ORDER BY 1, 2"
            ).fetchall()
            (passages,) = conn.execute(
                "SELECT count(*) FROM chunks k JOIN documents d USING (doc_id) WHERE k.layer = 3"
                " AND d.doc_type = 'decision'"
            ).fetchone()
        result["decisions_with_passages"] = {f"{source}/{level}": n for source, level, n in rows}
        result["decisions_with_passages_total"] = sum(n for *_, n in rows)
        result["decision_passages"] = passages
        result["machine"] = {
            "cpus": os.cpu_count(),
            "load_at_start": load_at_start,
            "python": platform.python_version(),
        }
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        print(json.dumps(result, ensure_ascii=False, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
