"""Legal entity recognition, gated by precision/recall on the gold corpus (a blocking check).

The gate is scored before anything is written: a failing rule set leaves entities, mentions, relations and
every chunk's ``ner_done_at`` exactly as they were, so the next run with a passing gate recognises them."""


from dagster import (AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MaterializeResult, MetadataValue, TableColumn,
                     TableRecord, TableSchema, asset)

from mendel import pipeline
from ner_eval.gate import evaluate_gate
from orchestration.resources import MendelResource

GATE_CHECK = "ner_gold_precision_recall"


GATE_COLUMNS = ("label", "passed", "precision", "min_precision", "recall", "min_recall", "f1", "norm_accuracy",
                "min_norm_accuracy", "gold", "predicted")
GATE_METRICS = ("precision", "recall", "f1", "norm_accuracy")


def gate_metadata(table: list[dict]) -> dict:
    """Per-label scores as plain numbers (plotted over runs in the UI: ``LAW_REF_recall``, …) and one table with
    each metric beside its threshold."""
    numbers = {f"{row['label']}_{metric}": float(row[metric]) for row in table for metric in GATE_METRICS
               if row.get(metric) is not None}
    columns = [c for c in GATE_COLUMNS if any(c in row for row in table)]
    kinds = {"label": "string", "passed": "bool", "gold": "int", "predicted": "int"}
    schema = TableSchema(columns=[TableColumn(c, kinds.get(c, "float")) for c in columns])
    records = [TableRecord({c: row[c] for c in columns if row.get(c) is not None}) for row in table]
    return {**numbers, "scores": MetadataValue.table(records, schema=schema)}


@asset(
    group_name="ner",
    kinds={"python", "postgres"},
    owners=["team:ingest"],
    deps=["document_chunks"],
    check_specs=[AssetCheckSpec(GATE_CHECK, asset="legal_entities", blocking=True,
                                description="Per-label precision/recall/norm accuracy on ner_eval gold vs thresholds;"
                                            " scored before recognition, which runs only when it passes")],
    description="LAW_REF, DECISION_REF, DATE, MONEY and INSTITUTION mentions with canonical ids for every new"
                " chunk, and the AMENDS/REPEALS relations of amending acts (table relations).",
)
def legal_entities(mendel: MendelResource) -> MaterializeResult:
    gate = evaluate_gate(gold_path=mendel.ner_gold_path, thresholds_path=mendel.ner_thresholds_path)
    with mendel.connect() as conn:
        if gate.passed:
            stats = pipeline.recognise_pending(conn)
            by_label = stats.pop("by_label")
            stats.update({f"mentions_{label}": n for label, n in sorted(by_label.items())})
        else:
            pending = conn.execute("SELECT count(*) FROM chunks WHERE ner_done_at IS NULL").fetchone()[0]
            stats = {"chunks": 0, "mentions": 0, "relations": 0, "quarantined": 0, "held_back_chunks": pending}
        stats["recognised"] = gate.passed
        stats["total_entities"] = conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        stats["total_relations"] = conn.execute("SELECT count(*) FROM relations").fetchone()[0]
    return MaterializeResult(
        metadata=stats,
        check_results=[
            AssetCheckResult(
                check_name=GATE_CHECK,
                passed=gate.passed,
                severity=AssetCheckSeverity.ERROR,
                metadata={**gate_metadata(gate.table),
                          "failures": MetadataValue.text("\n".join(gate.failures) or "none")},
            )
        ],
    )
