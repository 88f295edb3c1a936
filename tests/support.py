"""Helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

from pathlib import Path

# Two small real acts keep the end-to-end run short while crossing every stage.
E2E_ACTS = "/sb/2024/87,/sb/2025/573"


def nightly_resources(home: Path, database_url: str, mirror_url: str, **overrides):
    from orchestration.resources import MendelResource

    return MendelResource(home=str(home), profile="demo", database_url=database_url, mirror_url=mirror_url,
                          esbirka_years="2024,2025", esbirka_acts=E2E_ACTS, **overrides)


def run_nightly(home: Path, database_url: str, mirror_url: str, instance, **overrides):
    from orchestration.definitions import build_definitions

    defs = build_definitions(mendel=nightly_resources(home, database_url, mirror_url, **overrides))
    return defs.resolve_job_def("nightly").execute_in_process(instance=instance, raise_on_error=False)
