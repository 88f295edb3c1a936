"""The nightly job as the tests run it: a small real slice of the sample corpus (the ``nightly`` fixture in
tests/conftest.py runs it once a session), and entities expected at their offsets."""

from __future__ import annotations

from pathlib import Path

# A small real slice keeps the end-to-end run short while crossing every stage: two acts, the one
# Nejvyšší soud decision published in 2025, and the RÚIAN files (the municipal crawl has its own tests).
E2E_ACTS = "/sb/2024/87,/sb/2025/573"
E2E_SOURCES = "esbirka,nsoud,ruian"
# One Nejvyšší soud decision (29 Nd 461/2024, put on the web that day; none of the bundled ones was decided on it).
E2E_CRAWL_ENV = {"MENDEL_NSOUD_FROM": "2025-01-20", "MENDEL_NSOUD_TO": "2025-01-20"}
# The NER gate's court-metadata gold in these runs: one export of 100 real decisions (the whole 1,500 take ~40 s of
# CPU to score; the gate's own tests score them all).
E2E_COURT_GOLD = str(Path(__file__).resolve().parents[2] / "sample_corpus/courts/justice_opendata/export-3-1000000.xml")


def nightly_resources(home: Path, database_url: str, mirror_url: str, **overrides):
    from orchestration.resources import MendelResource

    settings = {
        "esbirka_years": "2024,2025",
        "esbirka_acts": E2E_ACTS,
        "sources": E2E_SOURCES,
        "crawl_env": E2E_CRAWL_ENV,
        "ner_court_gold": E2E_COURT_GOLD,
        **overrides,
    }
    return MendelResource(home=str(home), profile="demo", database_url=database_url, mirror_url=mirror_url, **settings)


def run_nightly(home: Path, database_url: str, mirror_url: str, instance, **overrides):
    from orchestration.definitions import build_definitions

    defs = build_definitions(mendel=nightly_resources(home, database_url, mirror_url, **overrides))
    return defs.resolve_job_def("nightly").execute_in_process(instance=instance, raise_on_error=False)


def expected_entities(text: str, items):
    """(surface, label, norm) in text order -> Entity list with the offsets found in text."""
    from mendel.ner.rules import Entity

    out, pos = [], 0
    for surface, label, norm in items:
        start = text.index(surface, pos)
        out.append(Entity(start, start + len(surface), label, surface, norm))
        pos = start + len(surface)
    return out
