"""PNG plots of the benchmark results: one or more per ``benchmarks/results/*.json`` with plottable figures.

    .venv/bin/python benchmarks/plots.py [--results benchmarks/results] [--out benchmarks/results/plots]

A missing, unreadable or oddly shaped file is reported and skipped: this never fails ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
SCALE_KEYS = ("documents", "chunks", "passages", "size", "boards", "n")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)
    return path


def _bars(path: Path, title: str, values: dict[str, float], ylabel: str, log: bool = False) -> Path | None:
    values = {k: v for k, v in values.items() if _number(v)}
    if not values:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(values) + 2), 3.8))
    bars = ax.bar(list(values), list(values.values()), color="tab:blue")
    ax.bar_label(bars, fmt="%.3g", fontsize=7)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.tick_params(axis="x", rotation=20)
    return _save(fig, path)


def _lines(
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str,
    series: dict[str, list[tuple[float, float]]],
    log_x: bool = True,
    log_y: bool = False,
) -> Path | None:
    series = {k: sorted(p for p in v if _number(p[0]) and _number(p[1])) for k, v in series.items()}
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8.5 if len(series) > 4 else 6.5, 4))
    for n, (name, points) in enumerate(series.items()):
        ax.plot(
            [x for x, _ in points],
            [y for _, y in points],
            marker="o",
            label=name,
            linestyle=("-", "--", ":")[n // 10 % 3],
        )  # the colour cycle repeats after ten
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if len(series) > 4:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        ax.legend(fontsize=7)
    return _save(fig, path)


# --- known result files -------------------------------------------------------------------------------------


def plot_index(data: dict, out: Path) -> list[Path]:
    """Build seconds and bytes of each index part against the number of chunks; embedding throughput; re-run."""
    made = []
    scale = [s for s in data.get("scale", []) if isinstance(s, dict) and _number(s.get("chunks"))]
    seconds: dict[str, list] = {}
    sizes: dict[str, list] = {}
    for s in scale:
        for part, figures in s.items():
            if isinstance(figures, dict):
                if _number(figures.get("seconds")):
                    seconds.setdefault(part, []).append((s["chunks"], figures["seconds"]))
                if _number(figures.get("bytes")):
                    sizes.setdefault(part, []).append((s["chunks"], figures["bytes"] / 2**20))
    made.append(
        _lines(out / "index_build_seconds.png", "Index build time per part", "chunks", "seconds", seconds, log_y=True)
    )
    made.append(_lines(out / "index_size_mib.png", "Index size per part", "chunks", "MiB", sizes, log_y=True))
    embedding = data.get("embedding", {})
    made.append(
        _bars(
            out / "index_embedding.png",
            f"Embedding throughput ({embedding.get('model', '?')})",
            {k: v.get("passages_per_s") for k, v in embedding.items() if isinstance(v, dict)},
            "passages / s",
        )
    )
    rerun = data.get("rerun", {})
    made.append(
        _bars(
            out / "index_rerun.png",
            "Index stages: full run vs unchanged vs 1 % changed",
            {k: v.get("seconds") for k, v in rerun.items() if isinstance(v, dict)},
            "seconds",
            log=True,
        )
    )
    return [m for m in made if m]


def plot_serving(data: dict, out: Path, stem: str = "serving") -> list[Path]:
    """p50/p95 latency and queries per second per system against the corpus size (``stem``: the results file,
    serving.json or serving-random.json, names the PNGs)."""
    latency: dict[str, list] = {}
    qps: dict[str, list] = {}
    sizes = data.get("sizes", {})
    for size, figures in sizes.items() if isinstance(sizes, dict) else []:
        try:
            n = int(size)
        except (TypeError, ValueError):
            continue
        for system, r in (figures.get("systems") or {}).items() if isinstance(figures, dict) else []:
            if not isinstance(r, dict):
                continue
            for q in ("p50", "p95"):
                value = r.get(q, r.get(f"{q}_ms"))
                if _number(value):
                    latency.setdefault(f"{system} {q}", []).append((n, value))
            value = r.get("qps", r.get("queries_per_s"))
            if _number(value):
                qps.setdefault(system, []).append((n, value))
    label = stem.replace("serving", "").strip("-_")
    title = f" ({label} vectors)" if label else ""
    made = [
        _lines(out / f"{stem}_latency.png", f"Serving latency per system{title}", "chunks", "ms", latency, log_y=True),
        _lines(out / f"{stem}_qps.png", f"Queries per second per system{title}", "chunks", "queries / s", qps),
    ]
    return [m for m in made if m]


def plot_crawl(data: dict, out: Path) -> list[Path]:
    made = [
        _bars(
            out / "crawl_throughput.png",
            "Crawl throughput",
            {k: data.get(k) for k in ("pages_per_s", "documents_per_s")},
            "per second",
        ),
        _bars(
            out / "crawl_outcomes.png",
            "Crawl outcomes",
            {
                k: v
                for k, v in (data.get("counts") or {}).items()
                if k in ("stored", "unchanged", "quarantined", "disallowed", "withdrawn")
            },
            "documents",
        ),
    ]
    return [m for m in made if m]


def plot_ner(data: dict, out: Path) -> list[Path]:
    speeds = {k: v.get("passages_per_cpu_s") for k, v in data.items() if isinstance(v, dict)}  # baseline, new, …
    made = _bars(out / "ner_throughput.png", "NER throughput", speeds, "passages / CPU-second", log=True)
    return [made] if made else []


def plot_extract(data: dict, out: Path) -> list[Path]:
    ocr = data.get("ocr") or {}
    speeds = {
        "text PDF": (data.get("text_pdf") or {}).get("pages_per_core_s"),
        "OCR (ours)": (ocr.get("ours") or {}).get("pages_per_core_s"),
        "bare tesseract": (ocr.get("bare_tesseract") or {}).get("pages_per_core_s"),
    }
    made = _bars(out / "extract_pages_per_core_s.png", "Extraction speed", speeds, "pages / core-second", log=True)
    return [made] if made else []


def plot_retrieval(data: dict, out: Path) -> list[Path]:
    series = {}
    for name, result in (("dev", data), ("held-out", data.get("heldout") or {})):
        for variant, figures in (result.get("variants") or {}).items():
            value = (figures.get("overall") or {}).get("recall@10")
            if _number(value):
                series[f"{name}: {variant}"] = value
    made = [_bars(out / "retrieval_recall10.png", "recall@10 per variant (dev and held-out)", series, "recall@10")]
    scaling = data.get("scaling") or {}
    lines: dict[str, list] = {}
    for size in scaling.get("sizes", []) if isinstance(scaling, dict) else []:
        for variant, figures in (size.get("variants") or {}).items():
            recall = (figures.get("overall") or {}).get("recall@10")
            lines.setdefault(variant, []).append((size.get("documents"), recall))
    made.append(_lines(out / "retrieval_scaling.png", "recall@10 vs documents", "documents", "recall@10", lines))
    return [m for m in made if m]


def plot_retrieval_peers(data: dict, out: Path) -> list[Path]:
    systems = data.get("systems") or {}
    made = [
        _bars(
            out / "retrieval_peers_recall10.png",
            "Peers: recall@10 on the dev set",
            {k: (v.get("overall") or {}).get("recall@10") for k, v in systems.items() if isinstance(v, dict)},
            "recall@10",
        ),
        _bars(
            out / "retrieval_peers_latency.png",
            "Peers: p95 latency (ranking only)",
            {k: (v.get("latency_ms") or {}).get("p95") for k, v in systems.items() if isinstance(v, dict)},
            "ms",
            log=True,
        ),
    ]
    return [m for m in made if m]


def plot_retrieval_scaling(data: dict, out: Path) -> list[Path]:
    quality: dict[str, list] = {}
    latency: dict[str, list] = {}
    for size in data.get("sizes", []) if isinstance(data.get("sizes"), list) else []:
        for variant, figures in (size.get("variants") or {}).items():
            quality.setdefault(variant, []).append(
                (size.get("documents"), (figures.get("overall") or {}).get("recall@10"))
            )
            p95 = (figures.get("latency_ms") or {}).get("p95")
            latency.setdefault(variant, []).append((size.get("documents"), p95))
    made = [
        _lines(out / "retrieval_scaling_recall10.png", "recall@10 vs documents", "documents", "recall@10", quality),
        _lines(out / "retrieval_scaling_latency.png", "p95 latency vs documents", "documents", "ms", latency),
    ]
    return [m for m in made if m]


# --- anything else ------------------------------------------------------------------------------------------


def _numeric_leaves(data, prefix: str = "", depth: int = 0) -> dict[str, float]:
    found: dict[str, float] = {}
    if depth > 3 or not isinstance(data, dict):
        return found
    for key, value in data.items():
        name = f"{prefix}{key}"
        if _number(value):
            found[name] = value
        elif isinstance(value, dict):
            found.update(_numeric_leaves(value, f"{name}.", depth + 1))
    return found


def plot_generic(data, out: Path, stem: str) -> list[Path]:
    """A list of per-size records (under the top level or a top-level key): every timing against the size;
    otherwise the top-level numbers as bars."""
    candidates = (
        [data]
        if isinstance(data, list)
        else [v for v in data.values() if isinstance(v, list)]
        if isinstance(data, dict)
        else []
    )
    for records in candidates:
        records = [r for r in records if isinstance(r, dict)]
        scale_key = next((k for k in SCALE_KEYS if records and all(_number(r.get(k)) for r in records)), None)
        if scale_key is None:
            continue
        series: dict[str, list] = {}
        for r in records:
            for name, value in _numeric_leaves(r).items():
                if name != scale_key and any(t in name for t in ("ms", "seconds", "_s", "latency", "per_s")):
                    series.setdefault(name, []).append((r[scale_key], value))
        made = _lines(
            out / f"{stem}.png",
            f"{stem}: timings per {scale_key}",
            scale_key,
            "value",
            dict(list(series.items())[:10]),
            log_y=True,
        )
        if made:
            return [made]
    leaves = dict(list(_numeric_leaves(data if isinstance(data, dict) else {}).items())[:25])
    made = _bars(out / f"{stem}.png", stem, leaves, "value", log=bool(leaves) and max(leaves.values()) > 1000)
    return [made] if made else []


RENDERERS = {
    "index": plot_index,
    "serving": plot_serving,
    "serving-random": lambda data, out: plot_serving(data, out, "serving-random"),
    "crawl_scale": plot_crawl,
    "ner": plot_ner,
    "extract": plot_extract,
    "retrieval": plot_retrieval,
    "retrieval_peers": plot_retrieval_peers,
    "retrieval_scaling": plot_retrieval_scaling,
}


def render_all(results_dir: Path = RESULTS, out_dir: Path | None = None) -> dict[str, list[str]]:
    """Plots of every results/*.json; returns file stem -> PNG names (an empty list when nothing was plotted)."""
    results_dir = Path(results_dir)
    out_dir = Path(out_dir) if out_dir else results_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    made: dict[str, list[str]] = {}
    for path in sorted(results_dir.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            renderer = RENDERERS.get(path.stem)
            files = (
                renderer(data, out_dir)
                if renderer and isinstance(data, dict)
                else plot_generic(data, out_dir, path.stem)
            )
        except Exception as exc:  # a bad file is reported, the others still get their plots
            print(f"{path.name}: not plotted ({type(exc).__name__}: {exc})", file=sys.stderr)
            made[path.stem] = []
            continue
        made[path.stem] = [f.name for f in files]
        print(f"{path.name}: {', '.join(made[path.stem]) or 'nothing plottable'}")
    return made


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--out", type=Path, default=None, help="default: <results>/plots")
    args = parser.parse_args(argv)
    render_all(args.results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
