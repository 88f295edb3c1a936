"""Throughput of the legal NER, ``mendel.ner.recognise``, in passages per second on real passages of the sample
corpus; optionally beside the recogniser of an older checkout, in the same run.

    .venv/bin/python benchmarks/bench_ner.py [--rounds 5] [--repeat 3] [--baseline-tree DIR] [--with-cs-core-news-sm]
    .venv/bin/python benchmarks/bench_ner.py --pool [--rounds 3] [--repeat 3]

``--pool`` times the recognise stage's way (mendel.nightly.recognise_stage.recognised_batches: batches of 512
passages, in one worker process a core) against one process, rounds alternating, worker start included; wall and
CPU seconds of the whole process tree (the ``pool`` part of ner.json). On a busy machine two processes also get a
bigger share of it than one: read the wall ratio where the machine is idle, the CPU seconds anywhere.

Each recogniser runs in its own process, rounds alternating; ``--with-cs-core-news-sm`` also times that
third-party pipeline if it happens to be installed (never a project dependency). Writes benchmarks/results/ner.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ESBIRKA_PDFS = ("176-2025.pdf", "234-2025.pdf", "573-2025.pdf", "316-2025.pdf", "120-2025.pdf", "285-2025.pdf")
MUNICIPAL_PDFS = ("municipal/blesno/text/informacni-noviny__bib-2020-02.pdf",)
DECISIONS = "courts/ns_decisions_sample.jsonl"


def corpus_passages() -> list[str]:
    from mendel.core.config import SAMPLE_CORPUS
    from mendel.extract.pdf import pdf_pages
    from mendel.passages.chunking import chunk_pages

    documents = [
        [p.text for p in pdf_pages((SAMPLE_CORPUS / "esbirka" / "pdf" / name).read_bytes())] for name in ESBIRKA_PDFS
    ]
    documents += [[p.text for p in pdf_pages((SAMPLE_CORPUS / name).read_bytes())] for name in MUNICIPAL_PDFS]
    with open(SAMPLE_CORPUS / DECISIONS, encoding="utf-8") as lines:
        documents += [[json.loads(line)["full_text"]] for line in lines if line.strip()]
    return [chunk.text for pages in documents for chunk in chunk_pages(pages)]


# --- one recogniser, in this process ---------------------------------------------------------------


def _recogniser():
    """(name, function of a list of texts -> entity count) of the ``mendel`` on sys.path."""
    try:
        from mendel.ner import recognise
    except ImportError:
        from mendel.ner.rules import extract_entities

        return "mendel.ner.rules.extract_entities", lambda texts: sum(len(extract_entities(t)) for t in texts)
    return "mendel.ner.recognise", lambda texts: sum(map(len, recognise(texts)))


def worker(texts_path: str, repeat: int) -> dict:
    texts = json.loads(Path(texts_path).read_text(encoding="utf-8"))
    name, run = _recogniser()
    entities = run(texts)  # warm-up: compiled patterns, the pipeline, the tokenizer's vocabulary
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        run(texts)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return {"recogniser": name, "entities": entities, "cpu_s": best_cpu, "wall_s": best_wall}


# --- the comparison --------------------------------------------------------------------------------


def run_worker(tree: Path, texts_path: str, repeat: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", texts_path, "--repeat", str(repeat)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(runs: list[dict], passages: int, chars: int) -> dict:
    best_cpu = min(r["cpu_s"] for r in runs)
    best_wall = min(r["wall_s"] for r in runs)
    return {
        "recogniser": runs[0]["recogniser"],
        "entities": runs[0]["entities"],
        "cpu_s": round(best_cpu, 3),
        "passages_per_cpu_s": round(passages / best_cpu),
        "chars_per_cpu_s": round(chars / best_cpu),
        "wall_s": round(best_wall, 3),
        "passages_per_wall_s": round(passages / best_wall),
        "rounds_cpu_s": [round(r["cpu_s"], 3) for r in runs],
    }


def cs_core_news_sm(texts: list[str], repeat: int) -> dict:
    import spacy

    try:
        core = spacy.load("cs_core_news_sm")
    except (OSError, ImportError) as exc:
        return {"available": False, "reason": f"not installed in this venv ({type(exc).__name__})"}
    entities = sum(len(doc.ents) for doc in core.pipe(texts, batch_size=64))
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        list(core.pipe(texts, batch_size=64))
        best = min(best, time.process_time() - started)
    return {
        "available": True,
        "version": core.meta.get("version"),
        "components": core.pipe_names,
        "entities": entities,
        "cpu_s": round(best, 3),
        "passages_per_cpu_s": round(len(texts) / best),
    }


def pool_speed(texts: list[str], rounds: int, workers: int) -> dict:
    """One process against ``workers`` worker processes over the same batches, rounds alternating."""
    import resource

    from mendel.nightly import recognise_stage

    recognise_stage.POOL_MIN_CHUNKS = 0  # the pool whatever the size
    batches = [[(t, None) for t in texts[i : i + 512]] for i in range(0, len(texts), 512)]

    def tree_cpu() -> float:
        mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime

    recognise_stage.recognise_batch(batches[0][:8])  # this process's pipeline built before timing
    timings: dict[int, list[tuple[float, float]]] = {1: [], workers: []}
    found: dict[int, int] = {}
    for round_no in range(rounds):
        for count in (1, workers) if round_no % 2 == 0 else (workers, 1):
            started, cpu_started = time.perf_counter(), tree_cpu()
            results = list(recognise_stage.recognised_batches(batches, workers=count))
            timings[count].append((time.perf_counter() - started, tree_cpu() - cpu_started))
            found[count] = sum(len(entities) for batch in results for entities in batch)
    assert found[1] == found[workers], found  # the same entities either way
    one = sorted(w for w, _ in timings[1])[len(timings[1]) // 2]
    many = sorted(w for w, _ in timings[workers])[len(timings[workers]) // 2]
    return {
        "passages": len(texts),
        "workers": workers,
        "rounds": rounds,
        "wall_s": {"1": round(one, 2), str(workers): round(many, 2)},
        "cpu_s": {
            "1": round(sorted(c for _, c in timings[1])[rounds // 2], 2),
            str(workers): round(sorted(c for _, c in timings[workers])[rounds // 2], 2),
        },
        "speedup_wall": round(one / many, 2),
        "entities": found[1],
        "load_avg_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per recogniser")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes over the passages in each round")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="checkout of an earlier commit")
    parser.add_argument("--with-cs-core-news-sm", action="store_true")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)  # internal: JSON file of passages
    parser.add_argument("--pool", action="store_true", help="the recognise stage's worker processes against one")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeat)))
        return
    if args.pool:
        from mendel.extract.model import configured_workers
        from mendel.nightly.recognise_stage import NER_WORKERS_ENV

        path = Path(__file__).parent / "results" / "ner.json"
        result = json.loads(path.read_text()) if path.exists() else {}
        texts = corpus_passages() * args.repeat
        result["pool"] = pool_speed(texts, args.rounds, max(2, configured_workers(NER_WORKERS_ENV)))
        path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        print(json.dumps(result["pool"], ensure_ascii=False))
        return

    texts = corpus_passages()
    chars = sum(map(len, texts))
    trees = {"new": ROOT}
    if args.baseline_tree:
        trees = {"baseline": args.baseline_tree.resolve(), **trees}
    with tempfile.TemporaryDirectory() as tmp:
        texts_path = str(Path(tmp) / "passages.json")
        Path(texts_path).write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(run_worker(tree, texts_path, args.repeat))

    import spacy

    result: dict = {
        "passages": len(texts),
        "chars": chars,
        "rounds": args.rounds,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "spacy": spacy.__version__,
    }
    for name in trees:
        result[name] = summary(runs[name], len(texts), chars)
    if "baseline" in result:
        result["baseline"]["tree"] = str(trees["baseline"])
        result["new_over_baseline_passages_per_cpu_s"] = round(
            result["new"]["passages_per_cpu_s"] / result["baseline"]["passages_per_cpu_s"], 2
        )
    if args.with_cs_core_news_sm:
        result["cs_core_news_sm"] = cs_core_news_sm(texts, args.repeat)

    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    if (out / "ner.json").exists() and "pool" in (earlier := json.loads((out / "ner.json").read_text())):
        result["pool"] = earlier["pool"]  # --pool writes that part
    (out / "ner.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
