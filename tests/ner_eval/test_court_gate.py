"""The gate's court-metadata gold blocks a regression on decisions the annotated gold does not see."""

from __future__ import annotations

import pytest

import mendel.ner.provisions as provisions
from ner_eval.court_gate import court_gold_paths, evaluate_court_gate, load_court_thresholds
from ner_eval.gate import evaluate_gates
from tests.support.nightly import E2E_COURT_GOLD

EXPORT_1 = E2E_COURT_GOLD.replace("export-3-1000000", "export-1-100000")


@pytest.fixture
def thresholds(tmp_path):
    path = tmp_path / "court.yaml"
    path.write_text("recall: 0.89\nwritten_recall: 0.95\nprecision_share: 0.5\nread_share: 0.99\n", encoding="utf-8")
    return path


def test_the_shipped_thresholds_name_known_metrics():
    assert set(load_court_thresholds()) == {"recall", "written_recall", "precision_share", "read_share"}
    assert len(court_gold_paths()) == 16 and court_gold_paths(EXPORT_1)[0].name == "export-1-100000.xml"


def test_disabling_chain_distribution_makes_the_gate_fail(monkeypatch, thresholds):
    """The deliberate regression: a chain's act reaches its first provision only."""
    passing = evaluate_court_gate(EXPORT_1, thresholds)
    assert passing.passed, passing.failures

    distribute = provisions.distribute
    monkeypatch.setattr(provisions, "distribute", lambda elements, act: distribute(elements[:1], act))
    failing = evaluate_gates(court_gold=EXPORT_1, court_thresholds_path=thresholds)
    assert failing.annotated.passed  # the annotated gold does not notice ...
    assert not failing.courts.passed and not failing.passed  # ... the court metadata does
    assert [f.split(" ")[2] for f in failing.failures] == ["recall", "written_recall"]
    assert failing.failures[0] == f"court metadata: recall {failing.courts.score.overall.recall:.3f} < 0.890"
    assert failing.courts.score.overall.recall < passing.score.overall.recall - 0.03
    print(failing.format())


def test_an_unreadable_export_fails_the_gate(tmp_path, thresholds):
    empty = tmp_path / "export-empty.xml"
    empty.write_bytes(b"<Dokumenty>")
    gate = evaluate_court_gate(str(empty), thresholds)
    assert not gate.passed and gate.failures[0] == "no decisions read from 1 export files"
