"""The HTML report of a NER evaluation: the per-label table and, per label, every false positive, false negative and
wrong norm in its context. ``mendel eval ner`` writes it (``--html PATH``, default under ``$MENDEL_HOME/reports``).
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from pathlib import Path

from ner_eval.gate import GateResult, default_gold_path
from ner_eval.scorer import load_gold

CONTEXT_CHARS = 60
ERROR_KINDS = (
    ("fp", "False positives", "predicted, not in the gold"),
    ("fn", "False negatives", "in the gold, not predicted with this exact span"),
    ("norm", "Wrong norms", "exact span, different norm"),
)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1b1b1b; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: right; }
th:first-child, td:first-child, td.text { text-align: left; }
tr.failed td { background: #fde8e8; }
td.context { text-align: left; font-family: ui-monospace, monospace; white-space: pre-wrap; max-width: 60rem; }
mark { background: #ffe066; }
.passed { color: #1a7f37; } .failed-gate { color: #c62828; }
"""


def _esc(value) -> str:
    return html.escape("" if value is None else str(value))


def _context(text: str, start: int, end: int) -> str:
    before = text[max(0, start - CONTEXT_CHARS) : start]
    after = text[end : end + CONTEXT_CHARS]
    return (
        ("…" if start > CONTEXT_CHARS else "")
        + _esc(before)
        + "<mark>"
        + _esc(text[start:end])
        + "</mark>"
        + _esc(after)
        + ("…" if end + CONTEXT_CHARS < len(text) else "")
    )


def _metric(row: dict, name: str) -> str:
    value = row.get(name)
    return "" if value is None else f"{value:.3f}"


def render_html(result: GateResult, records: list[dict], gold_path: str | Path) -> str:
    """The report as one self-contained HTML page."""
    by_id = {r.get("id"): r for r in records}
    verdict = (
        '<p class="passed">Gate PASSED</p>'
        if result.passed
        else '<p class="failed-gate">Gate FAILED</p><ul>'
        + "".join(f"<li>{_esc(f)}</li>" for f in result.failures)
        + "</ul>"
    )
    head = (
        "label",
        "gold",
        "predicted",
        "TP",
        "FP",
        "FN",
        "P",
        "R",
        "F1",
        "overlap P",
        "overlap R",
        "overlap F1",
        "norm acc",
        "min P",
        "min R",
        "min norm acc",
        "passed",
    )
    rows = []
    for row in result.table:
        cells = [
            row["label"],
            row["gold"],
            row["predicted"],
            row["tp"],
            row["fp"],
            row["fn"],
            _metric(row, "precision"),
            _metric(row, "recall"),
            _metric(row, "f1"),
            _metric(row, "overlap_precision"),
            _metric(row, "overlap_recall"),
            _metric(row, "overlap_f1"),
            _metric(row, "norm_accuracy"),
            _metric(row, "min_precision"),
            _metric(row, "min_recall"),
            _metric(row, "min_norm_accuracy"),
            "yes" if row.get("passed") else "no",
        ]
        css = "" if row.get("passed") else ' class="failed"'
        rows.append(f"<tr{css}>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="cs"><head><meta charset="utf-8"><title>NER evaluation</title>',
        f"<style>{STYLE}</style></head><body>",
        "<h1>NER evaluation</h1>",
        f"<p>Gold: <code>{_esc(gold_path)}</code>, {len(records)} records. "
        f"Written {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}. Exact match: same start, end and "
        "label; overlap: same label, at least one shared character; norm accuracy over exact matches.</p>",
        verdict,
        '<table id="scores"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>",
        *rows,
        "</tbody></table>",
    ]
    for label, score in result.scores.items():
        parts.append(f'<section id="{_esc(label)}"><h2>{_esc(label)}</h2>')
        for kind, title, explanation in ERROR_KINDS:
            errors = [e for e in score.errors if e["kind"] == kind]
            parts.append(f'<h3 id="{_esc(label)}-{kind}">{title} ({len(errors)})</h3><p>{explanation}</p>')
            if not errors:
                continue
            parts.append(
                "<table><thead><tr><th>record</th><th>source</th><th>context</th><th>gold norm</th>"
                "<th>predicted norm</th></tr></thead><tbody>"
            )
            for e in errors:
                record = by_id.get(e.get("id")) or {}
                text = record.get("text", "")
                context = (
                    _context(text, e["start"], e["end"])
                    if "start" in e and text
                    else f"<mark>{_esc(e.get('text'))}</mark>"
                )
                parts.append(
                    f'<tr><td>{_esc(e.get("id"))}</td><td class="text">{_esc(record.get("source"))}</td>'
                    f'<td class="context">{context}</td><td class="text">{_esc(e.get("gold_norm"))}</td>'
                    f'<td class="text">{_esc(e.get("pred_norm"))}</td></tr>'
                )
            parts.append("</tbody></table>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_html_report(result: GateResult, out_path: str | Path, gold_path: str | Path | None = None) -> Path:
    """Render the report of ``result`` (scored on ``gold_path``, default: the bundled gold) to ``out_path``."""
    gold_path = Path(gold_path) if gold_path is not None else default_gold_path()
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(result, load_gold(gold_path, strict=False), gold_path), encoding="utf-8")
    return out
