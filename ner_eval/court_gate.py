"""The gate's second gold: recall of the court system's own provision lists on real decisions.

``evaluate_court_gate`` scores the recogniser with ``ner_eval.court_metadata`` on the exports (default: every file of
``sample_corpus/courts/justice_opendata/``) and compares with ``court_thresholds.yaml``; ``ner_eval.gate`` joins it
with the annotated gold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from ner_eval.court_metadata import DECISIONS_DIR, CourtScore, LawNorms, load_decisions, score_decisions

COURT_METRICS = ("recall", "written_recall", "precision_share", "read_share")


def default_court_thresholds_path() -> Path:
    return Path(str(resources.files("ner_eval").joinpath("court_thresholds.yaml")))


def load_court_thresholds(path: str | Path | None = None) -> dict[str, float]:
    data = yaml.safe_load(Path(path or default_court_thresholds_path()).read_text(encoding="utf-8")) or {}
    unknown = set(data) - set(COURT_METRICS)
    if unknown:
        raise ValueError(f"unknown court-metadata metrics: {sorted(unknown)}")
    return {name: float(value) for name, value in data.items()}


def court_gold_paths(source: str | Path | None = None) -> list[Path]:
    """The export files of a court gold: a folder (its ``*.xml``), files separated by commas, or the default."""
    if source is None:
        return sorted(DECISIONS_DIR.glob("*.xml"))
    if Path(source).is_dir():
        return sorted(Path(source).glob("*.xml"))
    return [Path(part.strip()) for part in str(source).split(",") if part.strip()]


@dataclass
class CourtGate:
    passed: bool
    score: CourtScore
    minimums: dict[str, float]
    failures: list[str] = field(default_factory=list)

    @property
    def read_share(self) -> float:
        load = self.score.load
        expected = load.records - load.skipped_repeated if load else 0
        return load.decisions / expected if expected else 0.0

    def numbers(self) -> dict[str, float]:
        """The figures the Dagster check shows, each beside its minimum."""
        overall = self.score.overall
        found = {
            "recall": overall.recall,
            "written_recall": self.score.written.recall,
            "precision_share": overall.precision_share,
            "read_share": self.read_share,
            "decisions": float(overall.decisions),
            "listed": float(overall.listed),
        }
        return {
            **{name: round(value, 4) for name, value in found.items()},
            **{f"min_{name}": value for name, value in self.minimums.items()},
        }

    def format(self) -> str:
        n = self.numbers()
        lines = [
            f"court metadata: {int(n['decisions'])} decisions, {int(n['listed'])} listed pairs;"
            f" recall {n['recall']:.3f} (min {self.minimums.get('recall', 0):.3f}),"
            f" of the pairs the text writes {n['written_recall']:.3f} (min {self.minimums.get('written_recall', 0):.3f}),"
            f" precision share {n['precision_share']:.3f} (min {self.minimums.get('precision_share', 0):.3f})"
        ]
        return "\n".join(lines + [f"  - {failure}" for failure in self.failures])


def evaluate_court_gate(
    source: str | Path | None = None, thresholds_path: str | Path | None = None, norms: LawNorms | None = None
) -> CourtGate:
    """Score ``norms`` (default: the recogniser's LAW_REF norms) on the court gold and compare with the minimums."""
    minimums = load_court_thresholds(thresholds_path)
    paths = court_gold_paths(source)
    decisions, load = load_decisions(paths)
    score = score_decisions(decisions, norms)
    score.load = load
    gate = CourtGate(passed=True, score=score, minimums=minimums)
    if not decisions:
        gate.failures.append(f"no decisions read from {len(paths)} export files")
    values = {"read_share": gate.read_share, "written_recall": score.written.recall}
    for metric, minimum in minimums.items():
        value = values[metric] if metric in values else getattr(score.overall, metric)
        if value < minimum:
            gate.failures.append(f"{metric} {value:.3f} < {minimum:.3f}")
    gate.passed = not gate.failures
    return gate
