"""The NER gate's score is kept while nothing it depends on changed (assets.processing.recognition.scored_gate): the same verdict,
table and failures as scoring afresh; other thresholds are scored again."""

from __future__ import annotations

import psycopg
import yaml

from assets.processing.recognition import scored_gate
from ner_eval.gate import default_thresholds_path, evaluate_gate


def test_the_gate_is_scored_once_until_what_it_depends_on_changes(fresh_db, tmp_path):
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        first = scored_gate(conn, None, None)
        kept = scored_gate(conn, None, None)
        fresh = evaluate_gate()
        assert first["scored"] and not kept["scored"]
        for gate in (first, kept):
            assert (gate["passed"], gate["table"], gate["failures"]) == (fresh.passed, fresh.table, fresh.failures)

        thresholds = yaml.safe_load(default_thresholds_path().read_text(encoding="utf-8"))
        thresholds["LAW_REF"]["precision"] = 1.0
        impossible = tmp_path / "thresholds.yaml"
        impossible.write_text(yaml.safe_dump(thresholds), encoding="utf-8")
        stricter = scored_gate(conn, None, str(impossible))
        assert stricter["scored"] and not stricter["passed"]
        assert not scored_gate(conn, None, str(impossible))["scored"]
        assert scored_gate(conn, None, None)["scored"]  # only the last score is kept
