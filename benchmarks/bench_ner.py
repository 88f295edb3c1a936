"""Throughput of the legal NER, ``mendel.ner.recognise``, in passages per second on real passages of the sample
corpus; optionally beside the recogniser of an older checkout, in the same run.

    .venv/bin/python benchmarks/bench_ner.py [--corpus mixed|decisions] [--rounds 5] [--repeat 3]
        [--baseline-tree DIR] [--with-cs-core-news-sm]

``mixed`` (the default): passages of acts, Nejvyšší soud decisions and a municipal newsletter; ``decisions``: the
passages of the first 150 lower-court decisions of the ministry's open data (``courts/justice_opendata``), each
decision's passages one document. Each recogniser runs in its own process, rounds alternating;
``--with-cs-core-news-sm`` also times that third-party pipeline if it happens to be installed (never a project
dependency). Writes benchmarks/results/ner.json (``ner-decisions.json`` for the decisions).
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


DECISION_EXPORTS = ("export-3-1000000.xml", "export-12-1000000.xml")
DECISIONS_TIMED = 150


def decision_passages() -> tuple[list[str], list[str]]:
    """The passages of real lower-court decisions and, for each, the decision it belongs to."""
    from lxml import etree

    from mendel.core.config import SAMPLE_CORPUS
    from mendel.passages.chunking import chunk_pages

    texts, documents = [], []
    for name in DECISION_EXPORTS:
        root = etree.parse(str(SAMPLE_CORPUS / "courts" / "justice_opendata" / name), etree.XMLParser(recover=True))
        for record in root.getroot().iter("Dokument"):
            if len(set(documents)) >= DECISIONS_TIMED:
                break
            text = "\n\n".join(record.findtext(tag) or "" for tag in ("Vyrok", "Oduvodneni")).strip()
            for chunk in chunk_pages([text]):
                texts.append(chunk.text)
                documents.append(record.findtext("JednaciCislo"))
    return texts, documents


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


def _recogniser(documents: list[str] | None):
    """(name, function of a list of texts -> entity count) of the ``mendel`` on sys.path; the texts of one document
    recognised as one where the recogniser knows documents."""
    import inspect

    try:
        from mendel.ner import recognise
    except ImportError:
        from mendel.ner.rules import extract_entities

        return "mendel.ner.rules.extract_entities", lambda texts: sum(len(extract_entities(t)) for t in texts)
    if documents and "documents" in inspect.signature(recognise).parameters:
        return "mendel.ner.recognise", lambda texts: sum(map(len, recognise(texts, documents=documents)))
    return "mendel.ner.recognise", lambda texts: sum(map(len, recognise(texts)))


def worker(texts_path: str, repeat: int) -> dict:
    data = json.loads(Path(texts_path).read_text(encoding="utf-8"))
    texts, documents = (data["texts"], data["documents"]) if isinstance(data, dict) else (data, None)
    name, run = _recogniser(documents)
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", choices=("mixed", "decisions"), default="mixed")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per recogniser")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes over the passages in each round")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="checkout of an earlier commit")
    parser.add_argument("--with-cs-core-news-sm", action="store_true")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)  # internal: JSON file of passages
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeat)))
        return

    documents = None
    if args.corpus == "decisions":
        texts, documents = decision_passages()
    else:
        texts = corpus_passages()
    chars = sum(map(len, texts))
    trees = {"new": ROOT}
    if args.baseline_tree:
        trees = {"baseline": args.baseline_tree.resolve(), **trees}
    with tempfile.TemporaryDirectory() as tmp:
        texts_path = str(Path(tmp) / "passages.json")
        payload = {"texts": texts, "documents": documents} if documents else texts
        Path(texts_path).write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(run_worker(tree, texts_path, args.repeat))

    import spacy

    result: dict = {
        "corpus": args.corpus,
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
    name = "ner.json" if args.corpus == "mixed" else f"ner-{args.corpus}.json"
    (out / name).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
