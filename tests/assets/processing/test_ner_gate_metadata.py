"""The NER gate as the Dagster UI shows it: per-label numbers to plot over runs, and one table with every metric
beside its threshold (not a markdown blob)."""

from dagster import TableMetadataValue

from assets.processing.recognition import GATE_METRICS, gate_metadata
from ner_eval.gate import evaluate_gate, load_thresholds


def test_gate_metadata_has_plottable_numbers_and_thresholds_beside_scores():
    gate = evaluate_gate()
    metadata = gate_metadata(gate.table)
    for label in load_thresholds():
        for metric in GATE_METRICS:
            value = metadata[f"{label}_{metric}"]
            assert isinstance(value, float) and 0.0 <= value <= 1.0
        row = next(r for r in gate.table if r["label"] == label)
        assert metadata[f"{label}_recall"] == row["recall"]
    table = metadata["scores"]
    assert isinstance(table, TableMetadataValue)
    names = [column.name for column in table.schema.columns]
    assert names.index("min_precision") == names.index("precision") + 1  # each threshold beside its score
    assert names.index("min_recall") == names.index("recall") + 1
    by_label = {record.data["label"]: record.data for record in table.records}
    assert set(by_label) == set(load_thresholds())
    assert all(isinstance(r["passed"], bool) for r in by_label.values())


def test_a_failing_label_shows_failed_in_its_row(tmp_path):
    impossible = tmp_path / "impossible.yaml"
    impossible.write_text("LAW_REF: {precision: 1.01}\n", encoding="utf-8")
    gate = evaluate_gate(thresholds_path=impossible)
    rows = {r.data["label"]: r.data for r in gate_metadata(gate.table)["scores"].records}
    assert rows["LAW_REF"]["passed"] is False and rows["LAW_REF"]["min_precision"] == 1.01


def test_both_golds_show_as_numbers_and_a_failure_says_which_gold(tmp_path):
    from assets.processing.recognition import court_gate_metadata
    from ner_eval.gate import evaluate_gates
    from tests.support.nightly import E2E_COURT_GOLD

    strict = tmp_path / "court.yaml"
    strict.write_text("recall: 0.999\n", encoding="utf-8")
    gates = evaluate_gates(court_gold=E2E_COURT_GOLD, court_thresholds_path=strict)
    gate = {
        "passed": gates.passed,
        "annotated_passed": gates.annotated.passed,
        "courts_passed": gates.courts.passed,
        "courts": gates.courts.numbers(),
    }
    metadata = court_gate_metadata(gate)
    assert metadata["annotated_gold_passed"] is True and metadata["court_metadata_passed"] is False
    assert 0.5 < metadata["court_metadata_recall"] < 0.999 == metadata["court_metadata_min_recall"]
    assert metadata["court_metadata_decisions"] == 100.0
    numbers = {k: v for k, v in metadata.items() if k.startswith("court_metadata_") and not k.endswith("_passed")}
    assert numbers and all(isinstance(v, float) for v in numbers.values())
    assert [f for f in gates.failures if f.startswith("court metadata: recall")] == gates.failures
