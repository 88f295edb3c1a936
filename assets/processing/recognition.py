"""Legal entity recognition, gated on two golds (a blocking check): precision/recall per label on the team's
annotated gold, and the recall of the court system's own provision lists on real decisions (court metadata).

The gate is scored before anything is written: a failing rule set leaves entities, mentions, relations and
every chunk's ``ner_done_at`` exactly as they were, so the next run with a passing gate recognises them."""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
    asset,
)

from mendel.core import stage_versions
from mendel.nightly import recognise_stage
from ner_eval.court_gate import court_gold_paths
from ner_eval.gate import evaluate_gates
from orchestration.resources import MendelResource

GATE_CHECK = "ner_gold_precision_recall"
GATE_BUILD = "ner_gate"  # its row in build_fingerprints: the last score and what it was scored with


GATE_COLUMNS = (
    "label",
    "passed",
    "precision",
    "min_precision",
    "recall",
    "min_recall",
    "f1",
    "norm_accuracy",
    "min_norm_accuracy",
    "gold",
    "predicted",
)
GATE_METRICS = ("precision", "recall", "f1", "norm_accuracy")


def gate_metadata(table: list[dict]) -> dict:
    """Per-label scores as plain numbers (plotted over runs in the UI: ``LAW_REF_recall``, …) and one table with
    each metric beside its threshold."""
    numbers = {
        f"{row['label']}_{metric}": float(row[metric])
        for row in table
        for metric in GATE_METRICS
        if row.get(metric) is not None
    }
    columns = [c for c in GATE_COLUMNS if any(c in row for row in table)]
    kinds = {"label": "string", "passed": "bool", "gold": "int", "predicted": "int"}
    schema = TableSchema(columns=[TableColumn(c, kinds.get(c, "float")) for c in columns])
    records = [TableRecord({c: row[c] for c in columns if row.get(c) is not None}) for row in table]
    return {**numbers, "scores": MetadataValue.table(records, schema=schema)}


def court_gate_metadata(gate: dict) -> dict:
    """Each gold's verdict, and the court-metadata figures as plain numbers beside their minimums
    (``court_metadata_recall``, ``court_metadata_min_recall``, …)."""
    numbers = {f"court_metadata_{name}": float(value) for name, value in (gate.get("courts") or {}).items()}
    return {
        "annotated_gold_passed": bool(gate.get("annotated_passed", gate["passed"])),
        "court_metadata_passed": bool(gate.get("courts_passed", gate["passed"])),
        **numbers,
    }


def gate_inputs(
    gold_path: str | None,
    thresholds_path: str | None,
    court_gold: str | None = None,
    court_thresholds_path: str | None = None,
) -> str:
    """A digest of everything the gate's score can depend on: every file of ner_eval (the scorers, the gold corpus),
    the mendel modules it imports with the data they read (the recogniser and its tables: not the crawlers or the
    search vocabulary), the gold and thresholds files named, the court exports, spaCy's release."""
    from importlib.metadata import version
    from pathlib import Path

    import mendel
    import ner_eval
    from mendel.core.code_closure import files_digest, import_closure, package_data
    from mendel.data import DATA_DIR

    roots = {package.__name__: Path(package.__file__).resolve().parent for package in (mendel, ner_eval)}
    scorer_files = [
        p for p in roots["ner_eval"].rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    ]
    modules = import_closure((p for p in scorer_files if p.suffix == ".py"), roots)
    recogniser = {p for p in modules if p.is_relative_to(roots["mendel"])}
    files = set(scorer_files) | recogniser | package_data(recogniser, [DATA_DIR])
    digest = files_digest(files, roots.values())
    digest.update(f"\0spacy {version('spacy')}\0".encode())
    for named in (gold_path, thresholds_path, court_thresholds_path):
        digest.update(b"\0named\0" + (Path(named).read_bytes() if named else b""))
    for export in court_gold_paths(court_gold):
        digest.update(f"\0court\0{export.name}\0".encode() + (export.read_bytes() if export.is_file() else b""))
    return digest.hexdigest()


def scored_gate(
    conn,
    gold_path: str | None,
    thresholds_path: str | None,
    court_gold: str | None = None,
    court_thresholds_path: str | None = None,
) -> dict:
    """The gate's verdict, table, court-metadata figures and failures (each named by its gold): scored on both golds
    (ner_eval.gate), or as last scored when nothing it depends on changed since (:func:`gate_inputs`; the score is a
    function of those alone)."""
    key = gate_inputs(gold_path, thresholds_path, court_gold, court_thresholds_path)
    kept = stage_versions.kept_build(conn, GATE_BUILD, key)
    if kept is not None:
        return {**kept, "scored": False}
    gate = evaluate_gates(gold_path, thresholds_path, court_gold, court_thresholds_path)
    result = {
        "passed": gate.passed,
        "annotated_passed": gate.annotated.passed,
        "courts_passed": gate.courts.passed,
        "table": gate.annotated.table,
        "courts": gate.courts.numbers(),
        "failures": gate.failures,
    }
    stage_versions.record_build(conn, GATE_BUILD, key, result)
    return {**result, "scored": True}


@asset(
    group_name="ner",
    kinds={"python", "postgres"},
    owners=["team:ingest"],
    deps=["document_chunks"],
    check_specs=[
        AssetCheckSpec(
            GATE_CHECK,
            asset="legal_entities",
            blocking=True,
            description="Per-label precision/recall/norm accuracy on the annotated gold, and the recall of the court"
            " system's provision lists on real decisions, vs thresholds; scored before recognition, which runs only"
            " when both pass",
        )
    ],
    description="LAW_REF, DECISION_REF, DATE, MONEY and INSTITUTION mentions with canonical ids for every new"
    " chunk, and the AMENDS/REPEALS relations of amending acts (table relations).",
)
def legal_entities(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        gate = scored_gate(
            conn,
            mendel.ner_gold_path,
            mendel.ner_thresholds_path,
            mendel.ner_court_gold,
            mendel.ner_court_thresholds_path,
        )
        if gate["passed"]:
            stats = recognise_stage.recognise_pending(conn)
            by_label = stats.pop("by_label")
            stats.update({f"mentions_{label}": n for label, n in sorted(by_label.items())})
        else:
            pending = conn.execute("SELECT count(*) FROM chunks WHERE ner_done_at IS NULL").fetchone()[0]
            stats = {"chunks": 0, "mentions": 0, "relations": 0, "quarantined": 0, "held_back_chunks": pending}
        stats["recognised"] = gate["passed"]
        stats["gate_scored"] = gate["scored"]  # False: as last scored, nothing it depends on changed
        stats["total_entities"] = conn.execute("SELECT count(*) FROM entities").fetchone()[0]
        stats["total_relations"] = conn.execute("SELECT count(*) FROM relations").fetchone()[0]
    return MaterializeResult(
        metadata=stats,
        check_results=[
            AssetCheckResult(
                check_name=GATE_CHECK,
                passed=gate["passed"],
                severity=AssetCheckSeverity.ERROR,
                metadata={
                    **gate_metadata(gate["table"]),
                    **court_gate_metadata(gate),
                    "failures": MetadataValue.text("\n".join(gate["failures"]) or "none"),
                },
            )
        ],
    )
