"""Legal entity recognition, gated by precision/recall on the gold corpus (a blocking check)."""


from dagster import AssetCheckResult, AssetCheckSeverity, AssetCheckSpec, MaterializeResult, MetadataValue, asset

from mendel import pipeline
from ner_eval.gate import evaluate_gate
from orchestration.resources import MendelResource

GATE_CHECK = "ner_gold_precision_recall"


def _markdown_table(rows: list[dict]) -> str:
    if not rows:
        return "(no rows)"
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


@asset(
    group_name="ner",
    kinds={"python", "postgres"},
    owners=["team:ingest"],
    deps=["document_chunks"],
    check_specs=[AssetCheckSpec(GATE_CHECK, asset="legal_entities", blocking=True,
                                description="Per-label precision/recall/norm accuracy on ner_eval gold vs thresholds")],
    description="LAW_REF, DECISION_REF, DATE, MONEY and INSTITUTION mentions with canonical ids for every new"
                " chunk, and the AMENDS/REPEALS relations of amending acts (table relations).",
)
def legal_entities(mendel: MendelResource) -> MaterializeResult:
    gate = evaluate_gate(gold_path=mendel.ner_gold_path, thresholds_path=mendel.ner_thresholds_path)
    with mendel.connect() as conn:
        stats = pipeline.recognise_pending(conn)
        stats["total_entities"] = conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        stats["total_relations"] = conn.execute("SELECT count(*) FROM relations").fetchone()[0]
    by_label = stats.pop("by_label")
    return MaterializeResult(
        metadata={**stats, **{f"mentions_{label}": n for label, n in sorted(by_label.items())}},
        check_results=[
            AssetCheckResult(
                check_name=GATE_CHECK,
                passed=gate.passed,
                severity=AssetCheckSeverity.ERROR,
                metadata={
                    "scores": MetadataValue.md(_markdown_table(gate.table)),
                    "failures": MetadataValue.text("\n".join(gate.failures) or "none"),
                },
            )
        ],
    )
