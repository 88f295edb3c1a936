"""The NER gate's score is kept while nothing it depends on changed (assets.processing.recognition.scored_gate): the same verdict,
table, court-metadata figures and failures as scoring afresh; other thresholds are scored again."""

from __future__ import annotations

import psycopg
import pytest
import yaml

from assets.processing.recognition import scored_gate
from ner_eval.gate import default_thresholds_path, evaluate_gates
from tests.support.nightly import E2E_COURT_GOLD


@pytest.mark.slow  # scores both golds twice
def test_the_gate_is_scored_once_until_what_it_depends_on_changes(fresh_db, tmp_path):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        first = scored_gate(conn, None, None, E2E_COURT_GOLD)
        kept = scored_gate(conn, None, None, E2E_COURT_GOLD)
        fresh = evaluate_gates(court_gold=E2E_COURT_GOLD)
        assert first["scored"] and not kept["scored"]
        for gate in (first, kept):
            assert (gate["passed"], gate["table"], gate["failures"]) == (
                fresh.passed,
                fresh.annotated.table,
                fresh.failures,
            )
            assert gate["courts"] == fresh.courts.numbers() and gate["courts_passed"] is fresh.courts.passed

        thresholds = yaml.safe_load(default_thresholds_path().read_text(encoding="utf-8"))
        thresholds["LAW_REF"]["precision"] = 1.0
        impossible = tmp_path / "thresholds.yaml"
        impossible.write_text(yaml.safe_dump(thresholds), encoding="utf-8")
        stricter = scored_gate(conn, None, str(impossible), E2E_COURT_GOLD)
        assert stricter["scored"] and not stricter["passed"]
        assert not scored_gate(conn, None, str(impossible), E2E_COURT_GOLD)["scored"]
        assert scored_gate(conn, None, None, E2E_COURT_GOLD)["scored"]  # only the last score is kept


def test_another_court_gold_is_scored_again(fresh_db):
    other = E2E_COURT_GOLD.replace("export-3-", "export-12-")
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        assert scored_gate(conn, None, None, E2E_COURT_GOLD)["scored"]
        again = scored_gate(conn, None, None, other)
        assert again["scored"] and again["courts"]["decisions"] == 100
