"""The quality thresholds (``mendel/data/quality_thresholds.yaml``): every expectation's parameters and its
severity, ``hard`` (the blocking check fails) or ``soft`` (a warning)."""

from __future__ import annotations

from pathlib import Path

import yaml

from mendel.data import DATA_DIR

THRESHOLDS_PATH = DATA_DIR / "quality_thresholds.yaml"
SEVERITIES = ("hard", "soft")


def load_thresholds(path: str | Path | None = None) -> dict:
    with open(path or THRESHOLDS_PATH, encoding="utf-8") as handle:
        thresholds = yaml.safe_load(handle)
    for suite in ("documents", "pages", "sections"):
        for name, rule in thresholds.get(suite, {}).items():
            if rule.get("severity") not in SEVERITIES:
                raise ValueError(f"{suite}.{name}: severity must be one of {SEVERITIES}, not {rule.get('severity')!r}")
    return thresholds
