"""Indexes that grow by segments, at scale: the nightly's index steps and the publish after 1 % of the documents
changed, against rebuilding whole, and search over the two bundles side by side.

    nice -n 10 .venv/bin/python benchmarks/bench_segments.py --sizes 100000,300000
    nice -n 10 .venv/bin/python benchmarks/bench_segments.py --sizes 20000 --work /tmp/segbench   # a quick run
    MENDEL_FAISS_IVFPQ_MIN=500000 nice -n 10 .venv/bin/python benchmarks/bench_segments.py --sizes 1000000 --no-rebuild

SYNTHETIC PASSAGES, NEVER INDEXED IN THE PRODUCT: each size is a scale corpus (benchmarks/scale_corpus.py: real
sentences of the sample corpus in a generated order, documents ``synthetic/…``, random unit vectors) written with its
three layers into a fresh embedded PostgreSQL as the chunk and embed stages leave it (without pgvector's HNSW index,
which the embed stage, not the index steps, keeps). Then, timed, with the
pipeline's own functions (mendel.nightly.index_stage, mendel.index.fulltext, mendel.nightly.publish_stage):

1. the first night: every layer's BM25 + chunk table, the PostgreSQL lexemes, FAISS, the (empty) graph, the publish;
2. a night after 1 % of the documents got a new version (new chunks, vectors and texts; the chunk stage's work is
   done untimed, as the stages before the index do it): the same steps, then the background merges;
   then a night with nothing changed (the same steps again);
3. rebuilding whole on that same database into an empty build directory (what every night cost before segments).

Search is timed over three bundles of the same rows: the one grown by segments, the one rebuilt whole (one segment
a part) and that one rewritten in the format before segments (bm25s, one FAISS file a layer: main's serving).

Bytes written: what each step wrote (new segments, tombstones, states) and what the publish wrote (files that are
not hard links of files written before). Search: ``Searcher.search`` over the segmented and the whole bundle, each
in a process of its own (peak RSS of that process), the same queries (dev questions, bundle sentences), query
vectors random (the corpus's are) and at hand (no encoding timed), p50/p95 of the median of 3 passes a query; and
hit-by-hit agreement of the two. Then ``side_by_side``: all the bundles in one process, searched query by query in
turn, so that a shared machine's load weighs on each alike (the figures to compare them by).
Writes benchmarks/results/segments.json.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scale_corpus import ScaleCorpus, real_sentences, tree_bytes  # noqa: E402
from benchmarks.segments_search import load_average, log, make_queries, search_rounds  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "segments.json"
CHANGED_SHARE = 0.01
GOAL_SECONDS = 300.0
POSTINGS_TRIGGERS = ("chunks_postings_insert", "chunks_postings_update")


# --- the corpus into PostgreSQL ----------------------------------------------------------------------------------


def _vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector.tolist()) + "]"


def write_corpus(conn, corpus: ScaleCorpus, docs: list[int] | None = None, rename: dict[int, str] | None = None):
    """Documents ``docs`` of ``corpus`` (all when None) as a new current version each, their three layers' chunks
    with vectors, replacing the chunks of any version before (as the chunk stage leaves a changed document).
    ``rename``: corpus document -> the document id it is written as (a changed document's new text)."""
    import hashlib

    wanted = set(range(corpus.n_documents)) if docs is None else set(docs)
    rename = rename or {}
    doc_id = {d: rename.get(d, corpus.doc_id(d)) for d in wanted}
    ids = sorted(doc_id.values())
    conn.execute("DELETE FROM chunks WHERE doc_id = ANY(%s)", (ids,))
    with conn.cursor() as cur, cur.copy("COPY documents (doc_id, source, url, title, doc_type) FROM STDIN") as copy:
        for d in sorted(wanted):
            if d not in rename:
                copy.write_row((doc_id[d], "synthetic", "", corpus.title(d), "synthetic"))
    stamp = uuid.uuid4().hex
    with (
        conn.cursor() as cur,
        cur.copy("COPY document_versions (doc_id, sha256, byte_size, chunked_at) FROM STDIN") as copy,
    ):
        for d in sorted(wanted):
            copy.write_row((doc_id[d], hashlib.sha256(f"{doc_id[d]}:{stamp}".encode()).hexdigest(), 0, "now"))
    conn.execute(
        "UPDATE documents d SET current_version_id = v.version_id FROM document_versions v"
        " WHERE v.doc_id = d.doc_id AND d.doc_id = ANY(%s)"
        " AND v.version_id = (SELECT max(version_id) FROM document_versions w WHERE w.doc_id = d.doc_id)",
        (ids,),
    )
    versions = dict(conn.execute("SELECT doc_id, current_version_id FROM documents WHERE doc_id = ANY(%s)", (ids,)))
    columns = (
        "chunk_id, version_id, doc_id, layer, seq, page_start, page_end, section_path, char_start, char_end, text,"
        " content_hash, embedding, parent_id, summary, embedded_hash"
    )
    for layer in (3, 2, 1):
        vectors = corpus.vectors(layer)
        owner = (
            corpus.doc_of_chunk
            if layer == 3
            else (corpus.doc_of_chunk[corpus.section_ptr[:-1]] if layer == 2 else np.arange(corpus.n_documents))
        )
        with conn.cursor() as cur, cur.copy(f"COPY chunks ({columns}) FROM STDIN") as copy:
            for row, record in enumerate(corpus.records(layer)):
                d = int(owner[row])
                if d not in wanted:
                    continue
                text_hash = hashlib.sha256(record.text.encode()).hexdigest()
                copy.write_row(
                    (
                        record.chunk_id,
                        versions[doc_id[d]],
                        doc_id[d],
                        layer,
                        record.seq,
                        record.page_start,
                        record.page_end,
                        record.section,
                        record.char_start,
                        record.char_end,
                        record.text,
                        text_hash,
                        _vector_text(vectors[row]),
                        record.parent_id,
                        record.summary or None,
                        text_hash,
                    )
                )
        del vectors


# --- the steps, timed ----------------------------------------------------------------------------------------------


def night(conn, home: Path, model: str, merges: bool = True) -> dict:
    """The nightly's index steps and the publish, each timed, with what each wrote."""
    from mendel.index import fulltext
    from mendel.nightly import index_stage, publish_stage

    build = home / "build"
    steps = [
        ("bm25", lambda: index_stage.build_bm25(conn, build / "bm25")),
        ("lexemes", lambda: fulltext.fill_lexemes(conn)),
        ("faiss", lambda: index_stage.build_faiss(conn, build / "dense")),
        ("graph", lambda: index_stage.build_graph(conn, build / "graph")),
        ("publish", lambda: publish_stage.publish_bundle(conn, build, home / "bundles", model=model)),
    ]
    result: dict = {"load_avg_before": load_average(), "steps": {}}
    total = time.perf_counter()
    for name, step in steps:
        clock, cpu = time.perf_counter(), time.process_time()
        stats = step()
        figures = {"seconds": round(time.perf_counter() - clock, 2), "cpu_seconds": round(time.process_time() - cpu, 2)}
        written = sum(v for k, v in stats.items() if k.endswith("bytes_written") and isinstance(v, int))
        figures["bytes_written"] = written
        figures.update({k: v for k, v in stats.items() if k in ("written_rows", "deleted_rows", "segments", "merges")})
        # how many documents the step read to find what changed (change marks), where it says
        figures.update({k: v for k, v in stats.items() if k.endswith(("documents_digested", "documents_read"))})
        result["steps"][name] = figures
        log(f"  {name}: {json.dumps(figures)}")
    result["seconds"] = round(time.perf_counter() - total, 2)
    result["bytes_written"] = sum(s["bytes_written"] for s in result["steps"].values())
    result["bundle_bytes"] = tree_bytes(Path(stats["path"]))
    result["bundle"] = stats["path"]
    if merges:
        clock = time.perf_counter()
        done = index_stage.merge_large(build)
        result["background_merges"] = {
            "seconds": round(time.perf_counter() - clock, 2),
            "merges": sum(v["merges"] for v in done.values()),
            "bytes_written": sum(v["bytes_written"] for v in done.values()),
        }
    result["load_avg_after"] = load_average()
    return result


def whole_format_bundle(source: Path, target_dir: Path) -> Path:
    """The bundle ``source`` (one segment a part: rebuilt whole) rewritten in the format before segments —
    ``chunks.jsonl``, bm25s' files and one FAISS file a layer — over the same rows, in the same order, with the same
    FAISS index files: what serving loaded before segments, to time against."""
    from mendel.index import bundle, lexical, segments
    from mendel.index.corpus import contextual_text

    staging = bundle.staging_dir(target_dir)
    summaries = {r["doc_id"]: r.get("summary", "") for r in bundle.layer_rows(source, 1)}
    for layer in (3, 2, 1):
        rows = list(bundle.layer_rows(source, layer))
        root = bundle.layer_path(staging, layer)
        bundle.write_chunks(root, rows)
        texts = [
            contextual_text(r.get("citation"), r["title"], r["section"], summaries.get(r["doc_id"], ""), r["text"])
            for r in rows
        ]
        lexical.write_bm25(root / "bm25", [r["chunk_id"] for r in rows], texts)
        (seg,) = segments.PartState.read(bundle.part_path(source, "dense", layer)).segments
        (root / "dense").mkdir(parents=True)
        shutil.copy(seg.path / "dense.faiss", root / "dense" / "dense.faiss")
        shutil.copy(seg.path / "ids.json", root / "dense" / "ids.json")
    for name in ("documents.json", "documents", "graph"):
        if (source / name).exists():
            copy = shutil.copytree if (source / name).is_dir() else shutil.copy
            copy(source / name, staging / name)
    manifest = {k: v for k, v in bundle.read_manifest(source).items() if k not in ("version", "files", "layers")}
    return bundle.publish(staging, target_dir, {**manifest, "layers": bundle.check_layers(staging)})


# --- one size ------------------------------------------------------------------------------------------------------


def bench_size(n: int, work: Path, pool, passes: int, query_count: int, options: argparse.Namespace) -> dict:
    """One size: load, the first night, a night after 1 % changed, the whole rebuild unless ``options.no_rebuild``
    (then the first night's bundle, built whole, is searched as the whole one), the searches."""
    import psycopg

    from mendel.core import db

    log(f"{n:,} passages: writing the synthetic corpus into PostgreSQL")
    url = db.create_database(db.embedded_url(work / "pgdata"), f"segbench_{uuid.uuid4().hex[:8]}")
    db.migrate(url)
    corpus = ScaleCorpus(n, pool, seed=0)
    model = "synthetic/random-unit"
    result: dict = {"passages": n, "documents": corpus.n_documents, "sections": corpus.layer_size(2)}
    with psycopg.connect(url, autocommit=True) as conn:
        # pgvector's HNSW index serves the PostgreSQL backend and grows as the embed stage writes vectors: not an
        # index step, and inserting into it would take most of this benchmark's time
        for (index,) in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexdef ILIKE '%% USING hnsw %%'"
        ).fetchall():
            conn.execute(f"DROP INDEX IF EXISTS {index}")  # 0036 named them per layer: every one of them
        clock = time.perf_counter()
        write_corpus(conn, corpus)
        result["load_seconds"] = round(time.perf_counter() - clock, 1)
        home = work / f"home-{n}"
        log(f"{n:,} passages: the first night")
        # the PostgreSQL backend's postings (chunk_postings, kept by triggers as lexemes are written) take ~7 GB at
        # 1M passages: --no-pg-postings leaves them out of the first night only
        for trigger in POSTINGS_TRIGGERS if options.no_pg_postings else ():
            conn.execute(f"ALTER TABLE chunks DISABLE TRIGGER {trigger}")
        result["first_night"] = night(conn, home, model, merges=False)
        result["first_night"]["pg_postings"] = not options.no_pg_postings
        for trigger in POSTINGS_TRIGGERS if options.no_pg_postings else ():
            conn.execute(f"ALTER TABLE chunks ENABLE TRIGGER {trigger}")
        changed = sorted(
            random.Random(n).sample(range(corpus.n_documents), max(1, round(CHANGED_SHARE * corpus.n_documents)))
        )
        fresh = ScaleCorpus(len(changed) * 25, pool, seed=n + 1)
        write_corpus(conn, fresh, rename={k: corpus.doc_id(d) for k, d in enumerate(changed)})
        result["changed_documents"] = len(changed)
        log(f"{n:,} passages: a night with {len(changed)} documents changed")
        result["segmented_night"] = night(conn, home, model)
        log(f"{n:,} passages: a night with nothing changed")
        result["unchanged_night"] = night(conn, home, model, merges=False)
        if not options.no_rebuild and not options.nights_only:
            log(f"{n:,} passages: rebuilding whole")
            result["whole_rebuild"] = night(conn, work / f"whole-{n}", model, merges=False)
    result["bytes_written_vs_bundle"] = round(
        result["segmented_night"]["steps"]["publish"]["bytes_written"]
        / max(1, result["segmented_night"]["bundle_bytes"]),
        5,
    )
    queries_file = work / f"queries-{n}.json"  # serving_memory.py reads it after --nights-only too
    queries_file.write_text(json.dumps(make_queries(corpus, query_count), ensure_ascii=False), encoding="utf-8")
    if options.nights_only:
        return result
    if not options.no_rebuild and not options.no_before_segments:
        whole_format_bundle(Path(result["whole_rebuild"]["bundle"]), work / f"unsegmented-{n}")
    result.update(search_rounds(n, work, passes, whole=Path(result["first_night"]["bundle"])))
    night_s = result["segmented_night"]["seconds"]
    result["goal"] = {"seconds": GOAL_SECONDS, "met": night_s <= GOAL_SECONDS}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,300000")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--search-only", action="store_true", help="search again the bundles left in --work")
    parser.add_argument("--no-rebuild", action="store_true", help="no whole rebuild: the first night's is searched")
    parser.add_argument("--no-before-segments", action="store_true", help="no copy in the format before segments")
    parser.add_argument("--no-pg-postings", action="store_true", help="no PostgreSQL postings on the first night")
    parser.add_argument("--nights-only", action="store_true", help="the nights only: no rebuild, no search")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the figures go")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="segbench-"))
    work.mkdir(parents=True, exist_ok=True)
    pool = real_sentences("decisions")
    results = {"machine": {"cpus": os.cpu_count(), "load_avg_start": load_average()}, "synthetic": True, "sizes": {}}
    if args.results.exists():
        results["sizes"] = json.loads(args.results.read_text()).get("sizes", {})
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            if args.search_only:
                first = Path(results["sizes"][str(n)]["first_night"]["bundle"])
                results["sizes"][str(n)].update(search_rounds(n, work, args.passes, whole=first))
            else:
                results["sizes"][str(n)] = bench_size(n, work, pool, args.passes, args.queries, args)
            results["machine"]["load_avg_end"] = load_average()
            args.results.write_text(json.dumps(results, indent=1))
            log(json.dumps({k: v for k, v in results["sizes"][str(n)].items() if k != "hits"})[:3000])
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
