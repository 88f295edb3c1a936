"""Score an entity recogniser against gold JSONL records.

Exact match: same start, end and label. Overlap match: same label and the
spans share at least one character (each gold / predicted entity is matched at
most once, greedily in text order). Norm accuracy: share of exact matches whose
``norm`` equals the gold ``norm``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol


class EntityLike(Protocol):
    start: int
    end: int
    label: str
    norm: str | None


Predict = Callable[[str], Iterable[Any]]  # items: EntityLike objects or dicts with the same keys


@dataclass
class LabelScore:
    label: str
    gold: int = 0
    predicted: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    overlap_tp_gold: int = 0  # gold entities overlapped by a prediction
    overlap_tp_pred: int = 0  # predictions overlapping a gold entity
    norm_correct: int = 0
    errors: list[dict] = field(default_factory=list, repr=False)

    @staticmethod
    def _ratio(num: int, den: int) -> float:
        return num / den if den else 1.0

    @property
    def precision(self) -> float:
        return self._ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return self._ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def overlap_precision(self) -> float:
        return self._ratio(self.overlap_tp_pred, self.predicted)

    @property
    def overlap_recall(self) -> float:
        return self._ratio(self.overlap_tp_gold, self.gold)

    @property
    def overlap_f1(self) -> float:
        p, r = self.overlap_precision, self.overlap_recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def norm_accuracy(self) -> float:
        return self._ratio(self.norm_correct, self.tp)

    def as_row(self) -> dict:
        row = {k: v for k, v in asdict(self).items() if k != "errors"}
        row.update(
            precision=round(self.precision, 4),
            recall=round(self.recall, 4),
            f1=round(self.f1, 4),
            overlap_precision=round(self.overlap_precision, 4),
            overlap_recall=round(self.overlap_recall, 4),
            overlap_f1=round(self.overlap_f1, 4),
            norm_accuracy=round(self.norm_accuracy, 4),
        )
        return row


def gold_issues(records: Iterable[dict]) -> list[str]:
    """Entities whose offsets do not reproduce their ``text`` (e.g. a hand-edited or shifted gold file)."""
    issues = []
    for record in records:
        text = record["text"]
        for ent in record.get("entities", []):
            if text[ent["start"] : ent["end"]] != ent.get("text"):
                issues.append(
                    f"{record.get('id')}: offsets {ent['start']}:{ent['end']} do not match {ent.get('text')!r}"
                )
    return issues


def load_gold(path: str | Path, strict: bool = True) -> list[dict]:
    """Read gold JSONL; with ``strict`` an entity whose offsets do not match its text raises ValueError."""
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    if strict and (issues := gold_issues(records)):
        raise ValueError(f"{path}: {issues[0]}" + (f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""))
    return records


def _get(entity: Any, key: str):
    return entity[key] if isinstance(entity, dict) else getattr(entity, key)


def _as_tuple(entity: Any) -> tuple[int, int, str, str | None]:
    return int(_get(entity, "start")), int(_get(entity, "end")), str(_get(entity, "label")), _get(entity, "norm")


def _greedy_overlaps(spans, others):
    """Labels of the spans that overlap a same-label span of ``others``, each of those used at most once."""
    used: set[int] = set()
    for a in spans:
        for i, b in enumerate(others):
            if i not in used and a[2] == b[2] and a[0] < b[1] and b[0] < a[1]:
                used.add(i)
                yield a[2]
                break


def score(gold_records: Iterable[dict], predict: Predict, labels: Iterable[str] | None = None) -> dict[str, LabelScore]:
    """Per-label scores of ``predict`` on ``gold_records``; ``labels`` limits/extends the reported labels."""
    scores: dict[str, LabelScore] = {label: LabelScore(label) for label in (labels or ())}
    restrict = set(labels) if labels is not None else None

    def bucket(label: str) -> LabelScore | None:
        if restrict is not None and label not in restrict:
            return None
        return scores.setdefault(label, LabelScore(label))

    for record in gold_records:
        text = record["text"]
        gold = [_as_tuple(e) for e in record.get("entities", [])]
        pred = [_as_tuple(e) for e in predict(text)]
        for g in gold:
            if (s := bucket(g[2])) is not None:
                s.gold += 1
        for p in pred:
            if (s := bucket(p[2])) is not None:
                s.predicted += 1

        gold_by_span = {(g[0], g[1], g[2]): g for g in gold}
        matched_gold = set()
        for p in pred:
            s = bucket(p[2])
            if s is None:
                continue
            g = gold_by_span.get((p[0], p[1], p[2]))
            if g is not None and (g[0], g[1], g[2]) not in matched_gold:
                matched_gold.add((g[0], g[1], g[2]))
                s.tp += 1
                if p[3] == g[3]:
                    s.norm_correct += 1
                else:
                    s.errors.append(
                        {
                            "id": record.get("id"),
                            "kind": "norm",
                            "text": text[p[0] : p[1]],
                            "start": p[0],
                            "end": p[1],
                            "gold_norm": g[3],
                            "pred_norm": p[3],
                        }
                    )
            else:
                s.fp += 1
                s.errors.append(
                    {
                        "id": record.get("id"),
                        "kind": "fp",
                        "text": text[p[0] : p[1]],
                        "start": p[0],
                        "end": p[1],
                        "pred_norm": p[3],
                    }
                )
        for g in gold:
            s = bucket(g[2])
            if s is not None and (g[0], g[1], g[2]) not in matched_gold:
                s.fn += 1
                s.errors.append(
                    {
                        "id": record.get("id"),
                        "kind": "fn",
                        "text": text[g[0] : g[1]],
                        "start": g[0],
                        "end": g[1],
                        "gold_norm": g[3],
                    }
                )

        scored_gold = [g for g in gold if bucket(g[2]) is not None]
        scored_pred = [p for p in pred if bucket(p[2]) is not None]
        for label in _greedy_overlaps(scored_gold, pred):
            bucket(label).overlap_tp_gold += 1
        for label in _greedy_overlaps(scored_pred, gold):
            bucket(label).overlap_tp_pred += 1
    return dict(sorted(scores.items()))


def format_table(scores: dict[str, LabelScore]) -> str:
    """Plain-text table, one row per label."""
    headers = ("label", "gold", "pred", "tp", "fp", "fn", "P", "R", "F1", "ovl P", "ovl R", "norm acc")
    rows = []
    for s in scores.values():
        rows.append(
            (
                s.label,
                str(s.gold),
                str(s.predicted),
                str(s.tp),
                str(s.fp),
                str(s.fn),
                f"{s.precision:.3f}",
                f"{s.recall:.3f}",
                f"{s.f1:.3f}",
                f"{s.overlap_precision:.3f}",
                f"{s.overlap_recall:.3f}",
                f"{s.norm_accuracy:.3f}",
            )
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))
    out = [line, "-" * len(line)]
    for r in rows:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(out)
