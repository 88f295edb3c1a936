"""OCR on every core: pages/s of `extract_document` on the scanned Blešno PDFs with one Tesseract at a time, with one
per core, and as the nightly extracts them (one worker process per core), alternating in one run and checked to
give the same text (the goal: one per core on 2 cores >= 1.8x one worker).

    .venv/bin/python benchmarks/bench_ocr.py [--rounds 2] [--scans 6]

Writes benchmarks/results/ocr.json with the load average and the CPU seconds per page.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import replace
from pathlib import Path

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import DEFAULT_LIMITS, extract_document, extract_files
from mendel.extract.ocr import default_workers, ocr_available

SCANS = sorted((SAMPLE_CORPUS / "municipal" / "blesno" / "scanned").glob("*.pdf"))


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def ocr_run(paths: list[Path], workers: int) -> tuple[float, float, list[str]]:
    limits = replace(DEFAULT_LIMITS, ocr_workers=workers)
    started, cpu_started = time.perf_counter(), cpu_seconds()
    texts = []
    for path in paths:
        document = extract_document(path.read_bytes(), "application/pdf", limits=limits)
        texts += [page.text for page in document.pages if page.is_ocr]
    return time.perf_counter() - started, cpu_seconds() - cpu_started, texts


def pipeline_run(paths: list[Path], workers: int) -> tuple[float, float, list[str]]:
    """As the nightly's extraction runs: documents shared among worker processes (their start-up included)."""
    started, cpu_started = time.perf_counter(), cpu_seconds()
    texts = []
    for document, failure in extract_files([(str(p), "application/pdf", None) for p in paths], workers, min_files=1):
        if document is None:
            raise SystemExit(f"extraction failed: {failure}")
        texts += [page.text for page in document.pages if page.is_ocr]
    return time.perf_counter() - started, cpu_seconds() - cpu_started, texts


PIPELINE = "pipeline"  # the key of the documents-in-parallel runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scans", type=int, default=len(SCANS), help="how many of the scanned PDFs")
    args = parser.parse_args()
    if not ocr_available("ces+eng"):
        raise SystemExit("tesseract with ces+eng is not installed")
    paths = SCANS[: args.scans]
    cores = default_workers()
    seconds: dict = {1: [], cores: [], PIPELINE: []}
    cpu: dict = {1: 0.0, cores: 0.0, PIPELINE: 0.0}
    load_at_start = os.getloadavg()[0]
    pages, reference = 0, None
    for round_no in range(args.rounds):
        for workers in (1, cores, PIPELINE) if round_no % 2 == 0 else (PIPELINE, cores, 1):
            elapsed, cpu_s, texts = pipeline_run(paths, cores) if workers == PIPELINE else ocr_run(paths, workers)
            pages = len(texts)
            seconds[workers].append(elapsed)
            cpu[workers] += cpu_s
            if reference is None:
                reference = texts
            elif texts != reference:
                raise SystemExit(f"{workers} worker(s) read other text than the first run")
            print(
                f"round {round_no + 1}: {workers} {pages} pages in {elapsed:.1f} s ({pages / elapsed:.2f} pages/s)",
                flush=True,
            )
    rate = {w: pages / (sum(s) / len(s)) for w, s in seconds.items()}
    result = {
        "scans": len(paths),
        "pages": pages,
        "rounds": args.rounds,
        "cores": cores,
        "cpus": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "load_average": {"start": round(load_at_start, 2), "end": round(os.getloadavg()[0], 2)},
        "pages_per_s": {
            "1 worker": round(rate[1], 3),
            f"{cores} workers": round(rate[cores], 3),
            f"{cores} processes x {cores} workers (the nightly)": round(rate[PIPELINE], 3),
        },
        "cpu_s_per_page": {f"{w} worker(s)": round(c / (pages * len(seconds[w])), 2) for w, c in cpu.items()},
        "seconds": {f"{w} worker(s)": [round(s, 1) for s in runs] for w, runs in seconds.items()},
        "speedup": round(rate[cores] / rate[1], 2),
        "speedup_nightly": round(rate[PIPELINE] / rate[1], 2),
        "goal_speedup": 1.8,
    }
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "ocr.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
