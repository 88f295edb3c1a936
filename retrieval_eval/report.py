"""Markdown retrieval report with PNG plots (matplotlib, Agg backend): ``write_report(results, out_dir)`` takes the
output of :func:`retrieval_eval.retrieval.evaluate` (or ``evaluate_forms``: the typed forms of the questions side by
side), optionally with ``heldout``, ``peers`` and ``scaling`` sections in the same shape, and renders a missing
metric as "–".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

REPORT_NAME = "retrieval_report.md"
RESULTS_NAME = "retrieval_results.json"
METRICS = ("recall@1", "recall@5", "recall@10", "recall@20", "mrr", "ndcg@10")
PLOT_METRICS = ("recall@10", "mrr")
TYPE_METRIC = "recall@10"
PAIR = ("recall@10", "mrr")  # the two figures a breakdown cell shows
DASH = "–"
AS_WRITTEN = "as written"


def _number(value, digits: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return DASH
    return f"{value:.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|---|" + "---:|" * (len(header) - 1),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on the batch machines
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)
    return path.name


# --- tables -------------------------------------------------------------------------------------------------


def ablation_table(result: dict) -> list[str]:
    """Markdown rows: every variant's metrics and its mean / p95 latency."""
    rows = []
    for variant, data in result.get("variants", {}).items():
        overall, latency = data.get("overall", {}), data.get("latency_ms", {})
        rows.append(
            [
                variant,
                *(_number(overall.get(m)) for m in METRICS),
                _number(latency.get("mean"), 1),
                _number(latency.get("p95"), 1),
            ]
        )
    return _table(["variant", *METRICS, "mean ms", "p95 ms"], rows)


def type_table(result: dict, metric: str = TYPE_METRIC) -> list[str]:
    """Markdown rows: ``metric`` per question type for every variant."""
    types = list(result.get("types", {}))
    rows = [
        [variant, *(_number(data.get("by_type", {}).get(t, {}).get(metric)) for t in types)]
        for variant, data in result.get("variants", {}).items()
    ]
    return _table(["variant", *(f"{t} ({result['types'][t]})" for t in types)], rows)


def _pair(scores: dict | None) -> str:
    scores = scores or {}
    return f"{_number(scores.get(PAIR[0]))} / {_number(scores.get(PAIR[1]))}"


def _delta(now: dict | None, before: dict | None) -> str:
    """``+0.012 / -0.034``: a form's recall@10 and MRR less the same questions' as written."""
    cells = []
    for metric in PAIR:
        a, b = (now or {}).get(metric), (before or {}).get(metric)
        ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
        cells.append(f"{a - b:+.3f}" if ok else DASH)
    return " / ".join(cells)


def breakdown_table(result: dict, by: str, counts: str) -> list[str]:
    """Markdown rows: recall@10 / MRR of every variant per group (``by``: ``by_kind`` or ``by_register``, with the
    group sizes under ``counts``)."""
    groups = result.get(counts) or {}
    rows = [
        [variant, *(_pair(data.get(by, {}).get(g)) for g in groups)]
        for variant, data in result.get("variants", {}).items()
    ]
    return _table(["variant", *(f"{g} ({n})" for g, n in groups.items())], rows)


def forms_table(result: dict) -> list[str]:
    """Markdown rows: recall@10 / MRR of every variant as written and in each typed form, with the form's
    difference from the same questions as written (a form may hold fewer questions)."""
    forms = result.get("forms") or {}
    header = [f"{AS_WRITTEN} ({result.get('questions', 0)})"]
    for form, data in forms.items():
        header += [f"{form} ({data.get('questions', 0)})", f"{form} − {AS_WRITTEN}"]
    rows = []
    for variant, data in result.get("variants", {}).items():
        cells = [_pair(data.get("overall"))]
        for form_result in forms.values():
            now = form_result.get("variants", {}).get(variant, {}).get("overall")
            cells += [_pair(now), _delta(now, form_result.get("as_written", {}).get(variant))]
        rows.append([variant, *cells])
    return _table(["variant (recall@10 / MRR)", *header], rows)


def forms_kind_table(result: dict, variant: str = "default") -> list[str]:
    """Markdown rows: ``variant``'s recall@10 / MRR per question kind, as written and in each typed form."""
    forms = result.get("forms") or {}
    kinds = list(result.get("kinds") or {})
    sets = {AS_WRITTEN: result, **forms}
    rows = []
    for kind in kinds:
        cells = []
        for data in sets.values():
            scores = data.get("variants", {}).get(variant, {}).get("by_kind", {}).get(kind)
            n = (data.get("kinds") or {}).get(kind)
            cells.append(f"{_pair(scores)} ({n})" if n else DASH)
        rows.append([kind, *cells])
    return _table([f"kind: {variant} recall@10 / MRR (n)", *sets], rows)


def admission_table(result: dict) -> list[str]:
    """Markdown rows, one per form: how the default search answered the questions with no answer in the
    collection -- named the governing act as not held, marked its hits weak or gave none, admitted either way,
    or answered with confidence."""
    sets = {AS_WRITTEN: result, **(result.get("forms") or {})}
    rows = []
    for form, data in sets.items():
        nic = data.get("not_in_collection")
        if not nic:
            continue
        total = nic.get("questions", 0)

        def share(count, of=total):
            return f"{count} ({count / of:.2f})" if isinstance(count, int) and of else DASH

        named_of = nic.get("with_governing_act", 0)
        rows.append(
            [
                form,
                str(total),
                share(nic.get("names_governing_act"), named_of) + (f" of {named_of}" if named_of != total else ""),
                share(nic.get("weak_or_empty")),
                share(nic.get("admitted")),
                share(total - nic.get("admitted", 0)),
            ]
        )
    header = ["form", "questions", "governing act named", "weak or no hits", "admitted", "confident answer"]
    return _table(header, rows) if rows else []


def peers_table(peers: dict) -> list[str]:
    rows = []
    for name, system in peers.get("systems", {}).items():
        overall, latency = system.get("overall", {}), system.get("latency_ms", {})
        rows.append(
            [
                name,
                *(_number(overall.get(m)) for m in METRICS),
                _number(latency.get("p50"), 1),
                _number(latency.get("p95"), 1),
                str(system.get("notes", "")).replace("|", "/"),
            ]
        )
    return _table(["system", *METRICS, "p50 ms", "p95 ms", "notes"], rows)


def scaling_table(scaling: dict) -> list[str]:
    sizes = scaling.get("sizes", [])
    variants = list(dict.fromkeys(v for size in sizes for v in size.get("variants", {})))
    rows = []
    for size in sizes:
        for variant in variants:
            data = size.get("variants", {}).get(variant, {})
            overall, latency = data.get("overall", {}), data.get("latency_ms", {})
            rows.append(
                [
                    str(size.get("documents", DASH)),
                    str(size.get("chunks", DASH)),
                    variant,
                    _number(overall.get("recall@10")),
                    _number(overall.get("mrr")),
                    _number(latency.get("p50"), 1),
                    _number(latency.get("p95"), 1),
                ]
            )
    return _table(["documents", "chunks", "variant", "recall@10", "MRR", "p50 ms", "p95 ms"], rows)


# --- plots --------------------------------------------------------------------------------------------------


def plot_metrics_per_variant(result: dict, path: Path, title: str) -> str | None:
    """Grouped bars: recall@10 and MRR per variant."""
    variants = list(result.get("variants", {}))
    if not variants:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(variants) + 2), 4))
    width = 0.8 / len(PLOT_METRICS)
    for n, metric in enumerate(PLOT_METRICS):
        values = [result["variants"][v].get("overall", {}).get(metric) or 0.0 for v in variants]
        bars = ax.bar(
            [i + (n - (len(PLOT_METRICS) - 1) / 2) * width for i in range(len(variants))], values, width, label=metric
        )
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(range(len(variants)), variants, rotation=20, ha="right")
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("score")
    ax.set_title(title)
    ax.legend(loc="lower right")
    return _save(fig, path)


def plot_types_heatmap(result: dict, path: Path, title: str, metric: str = TYPE_METRIC) -> str | None:
    """Heat map: ``metric`` per variant (rows) and question type (columns)."""
    variants, types = list(result.get("variants", {})), list(result.get("types", {}))
    if not variants or not types:
        return None
    plt = _pyplot()
    grid = [[result["variants"][v].get("by_type", {}).get(t, {}).get(metric) or 0.0 for t in types] for v in variants]
    fig, ax = plt.subplots(figsize=(1.3 * len(types) + 3, 0.45 * len(variants) + 1.5))
    image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(types)), [f"{t}\n(n={result['types'][t]})" for t in types])
    ax.set_yticks(range(len(variants)), variants)
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            ax.text(
                c, r, f"{value:.2f}", ha="center", va="center", fontsize=8, color="black" if value > 0.6 else "white"
            )
    fig.colorbar(image, ax=ax, label=metric)
    ax.set_title(title)
    return _save(fig, path)


def plot_peers(peers: dict, path: Path) -> str | None:
    systems = list(peers.get("systems", {}))
    if not systems:
        return None
    result = {"variants": {name: {"overall": peers["systems"][name].get("overall", {})} for name in systems}}
    return plot_metrics_per_variant(result, path, "Peers on the same corpus and questions")


def plot_scaling(scaling: dict, path: Path) -> str | None:
    """recall@10 (left) and p95 latency (right) against the number of documents, one line per variant."""
    sizes = sorted(scaling.get("sizes", []), key=lambda s: s.get("documents", 0))
    variants = list(dict.fromkeys(v for size in sizes for v in size.get("variants", {})))
    if not sizes or not variants:
        return None
    plt = _pyplot()
    fig, (quality, latency) = plt.subplots(1, 2, figsize=(10, 4))
    for variant in variants:
        points = [(s["documents"], s["variants"][variant]) for s in sizes if variant in s.get("variants", {})]
        xs = [d for d, _ in points]
        quality.plot(xs, [v.get("overall", {}).get("recall@10") for _, v in points], marker="o", label=variant)
        latency.plot(xs, [v.get("latency_ms", {}).get("p95") for _, v in points], marker="o", label=variant)
    for ax, label in ((quality, "recall@10"), (latency, "p95 latency (ms)")):
        ax.set_xscale("log")
        ax.set_xlabel("documents")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    quality.set_ylim(0, 1.05)
    quality.legend(fontsize=7)
    quality.set_title("Quality vs corpus size")
    latency.set_title("Latency vs corpus size")
    return _save(fig, path)


# --- the report ---------------------------------------------------------------------------------------------


def _question_set_section(result: dict, out_dir: Path, prefix: str, heading: str) -> list[str]:
    label = result.get("label") or prefix
    lines = [
        f"## {heading}",
        "",
        f"{result.get('questions', 0)} questions (`{result.get('questions_file', label)}`), "
        f"bundle `{Path(result['bundle']).name if result.get('bundle') else DASH}`, "
        f"{result.get('seconds', DASH)} s in all"
        + (
            f" on {machine.get('cpus', DASH)} CPUs at load {machine.get('load_avg_1m', DASH)}"
            if (machine := result.get("machine") or {})
            else ""
        )
        + ".",
        "",
        *ablation_table(result),
        "",
        f"{TYPE_METRIC} per question type (n):",
        "",
        *type_table(result),
        "",
    ]
    lines += _breakdowns(result)
    bars = plot_metrics_per_variant(
        result, out_dir / f"{prefix}_variants.png", f"{label}: recall@10 and MRR per variant"
    )
    heat = plot_types_heatmap(result, out_dir / f"{prefix}_types.png", f"{label}: {TYPE_METRIC} per question type")
    lines += [f"![{label}: recall@10 and MRR per variant]({name})" for name in [bars] if name]
    lines += [f"![{label}: {TYPE_METRIC} per question type]({name})" for name in [heat] if name]
    return lines + [""]


def _breakdowns(result: dict) -> list[str]:
    """The sections a question set with kinds, registers, typed forms or unanswerable questions adds."""
    lines = []
    if result.get("kinds"):
        lines += ["recall@10 / MRR per question kind (n):", "", *breakdown_table(result, "by_kind", "kinds"), ""]
    if result.get("registers"):
        lines += ["recall@10 / MRR per register (n):", "", *breakdown_table(result, "by_register", "registers"), ""]
    if result.get("forms"):
        lines += [
            "The questions as typed: as written, without diacritics (`ascii`) and in a hurry (`typo`); "
            "each form's difference is taken against the same questions as written.",
            "",
            *forms_table(result),
            "",
        ]
        if result.get("kinds") and "default" in result.get("variants", {}):
            lines += [*forms_kind_table(result), ""]
    admissions = admission_table(result)
    if admissions:
        lines += [
            "Questions with no answer in the collection (the default search): the coverage block names the act "
            "that governs the question as not held, the hits are marked weak or there are none; "
            "admitted = any of these.",
            "",
            *admissions,
            "",
        ]
    for key, heading in (
        ("skipped", "left out (the bundle does not hold their gold)"),
        ("gold_warnings", "gold provisions no passage carries in its path"),
    ):
        items = result.get(key) or []
        if items:
            lines += [f"Questions {heading}: {len(items)}", "", *(f"- {item}" for item in items), ""]
    return lines


def render(results: dict, out_dir: Path) -> str:
    """The markdown text; writes the PNGs it links into ``out_dir``."""
    lines = [
        "# Retrieval evaluation",
        "",
        "A hit is relevant when it lies on the gold document and page or contains the gold evidence, or, for gold "
        "naming a provision, a decision or a municipality's document, when it is a passage of that act whose "
        "provision path holds the § (that decision, a document of that place); "
        "latency is per-query wall time on this machine (BM25 and dense lists timed apart).",
        "",
    ]
    lines += _question_set_section(results, out_dir, "main", f"Ablations: {results.get('label') or 'questions'}")
    if isinstance(results.get("heldout"), dict) and results["heldout"].get("variants"):
        lines += _question_set_section(
            results["heldout"], out_dir, "heldout", f"Ablations: {results['heldout'].get('label') or 'held-out'}"
        )
    peers = results.get("peers")
    if isinstance(peers, dict) and peers.get("systems"):
        lines += ["## Peers", "", *peers_table(peers), ""]
        if peers.get("latency_note"):
            lines += [str(peers["latency_note"]), ""]
        name = plot_peers(peers, out_dir / "peers.png")
        lines += [f"![peers: recall@10 and MRR]({name})", ""] if name else []
    scaling = results.get("scaling")
    if isinstance(scaling, dict) and scaling.get("sizes"):
        lines += ["## Scaling", "", *scaling_table(scaling), ""]
        loss = scaling.get("recall10_loss") or {}
        if loss:
            lines += [
                "recall@10 lost from the smallest to the largest corpus (goal ≤ 10 %): "
                + ", ".join(
                    f"{v} {_number(100 * f, 1) if isinstance(f, (int, float)) else DASH} %" for v, f in loss.items()
                ),
                "",
            ]
        name = plot_scaling(scaling, out_dir / "scaling.png")
        lines += [f"![recall@10 and p95 latency vs documents]({name})", ""] if name else []
    return "\n".join(lines).rstrip() + "\n"


def write_report(results: dict, out_dir: Path) -> Path:
    """``out_dir/retrieval_report.md`` with its PNGs, and the results themselves as ``retrieval_results.json``.

    ``results``: ``{"questions", "ks", "types", "bundle", "seconds", "variants": {variant: {"overall": {metric:
    value}, "by_type": {type: {metric: value}}, "latency_ms": {"mean", "p50", "p95", "max"}}}, "per_question"}``,
    optionally with ``label``, ``heldout`` (another such result), ``peers`` (``{"systems": {name: {"overall",
    "latency_ms", "notes"}}}``) and ``scaling`` (``{"sizes": [{"documents", "chunks", "variants"}],
    "recall10_loss": {variant: fraction}}``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / RESULTS_NAME).write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    path = out_dir / REPORT_NAME
    path.write_text(render(results, out_dir), encoding="utf-8")
    return path
