"""Quality gate on two golds: the recogniser must reach per-label thresholds on the team's annotated gold
(``evaluate_gate``) and the court-metadata recall on real decisions (``ner_eval.court_gate``); ``evaluate_gates``
scores both, and a failure of either fails the gate and says which.

``python -m ner_eval.gate [GOLD [THRESHOLDS]]`` prints both and exits non-zero on failure.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from ner_eval.court_gate import CourtGate, evaluate_court_gate
from ner_eval.court_metadata import LawNorms
from ner_eval.scorer import LabelScore, Predict, format_table, gold_issues, load_gold, score

ANNOTATED = "annotated gold"
COURTS = "court metadata"

METRICS = ("precision", "recall", "norm_accuracy")


@dataclass
class GateResult:
    passed: bool
    scores: dict[str, LabelScore]
    failures: list[str] = field(default_factory=list)
    table: list[dict] = field(default_factory=list)  # one row per label, for run metadata

    def format(self) -> str:
        lines = [format_table(self.scores), "", "gate: PASSED" if self.passed else "gate: FAILED"]
        lines += [f"  - {failure}" for failure in self.failures]
        return "\n".join(lines)


def _bundled(*parts: str):
    return resources.files("ner_eval").joinpath(*parts)


def default_gold_path() -> Path:
    """The gold corpus shipped with the package."""
    return Path(str(_bundled("gold", "sample_gold.jsonl")))


def default_thresholds_path() -> Path:
    return Path(str(_bundled("thresholds.yaml")))


def load_thresholds(path: str | Path | None = None) -> dict[str, dict[str, float]]:
    source = Path(path) if path is not None else _bundled("thresholds.yaml")
    data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    thresholds = {}
    for label, metrics in data.items():
        unknown = set(metrics) - set(METRICS)
        if unknown:
            raise ValueError(f"unknown metrics for {label}: {sorted(unknown)}")
        thresholds[str(label)] = {name: float(value) for name, value in metrics.items()}
    return thresholds


def evaluate_gate(
    gold_path: str | Path | None = None, thresholds_path: str | Path | None = None, predict: Predict | None = None
) -> GateResult:
    """Score ``predict`` (default: the rule recogniser) on the gold file and compare with the thresholds."""
    if predict is None:
        from mendel.ner import recognise_text as predict
    thresholds = load_thresholds(thresholds_path)
    if gold_path is None:
        with resources.as_file(_bundled("gold", "sample_gold.jsonl")) as bundled:
            gold = load_gold(bundled, strict=False)
    else:
        gold = load_gold(gold_path, strict=False)
    scores = score(gold, predict, labels=list(thresholds))

    failures, table = [], []
    issues = gold_issues(gold)
    if issues:  # a corrupted gold file fails the gate instead of crashing it
        failures.append(f"gold: {len(issues)} entities whose offsets do not match their text, e.g. {issues[0]}")
    for label, minimums in thresholds.items():
        s = scores[label]
        row = s.as_row()
        if s.gold == 0:
            failures.append(f"{label}: no gold entities to evaluate")
        for metric, minimum in minimums.items():
            value = getattr(s, metric)
            row[f"min_{metric}"] = minimum
            if value < minimum:
                failures.append(f"{label}: {metric} {value:.3f} < {minimum:.3f}")
        row["passed"] = not any(f.startswith(f"{label}:") for f in failures)
        table.append(row)
    return GateResult(passed=not failures, scores=scores, failures=failures, table=table)


@dataclass
class Gates:
    """Both golds' verdicts; the gate passes when both do."""

    annotated: GateResult
    courts: CourtGate

    @property
    def passed(self) -> bool:
        return self.annotated.passed and self.courts.passed

    @property
    def failures(self) -> list[str]:
        return [f"{ANNOTATED}: {f}" for f in self.annotated.failures] + [f"{COURTS}: {f}" for f in self.courts.failures]

    def format(self) -> str:
        lines = [format_table(self.annotated.scores), "", self.courts.format(), ""]
        lines.append("gate: PASSED" if self.passed else "gate: FAILED")
        return "\n".join(lines + [f"  - {failure}" for failure in self.failures])


def evaluate_gates(
    gold_path: str | Path | None = None,
    thresholds_path: str | Path | None = None,
    court_gold: str | Path | None = None,
    court_thresholds_path: str | Path | None = None,
    predict: Predict | None = None,
    norms: LawNorms | None = None,
) -> Gates:
    """The annotated gold (``evaluate_gate``) and the court metadata (``evaluate_court_gate``)."""
    return Gates(
        evaluate_gate(gold_path, thresholds_path, predict),
        evaluate_court_gate(court_gold, court_thresholds_path, norms),
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    result = evaluate_gates(*(args[:2]))
    print(result.format())
    return 0 if result.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
