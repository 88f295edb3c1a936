"""Retrieval quality of the bundle just published: the ablations on the dev questions, with the report and plot
in the asset's metadata. Nothing depends on it, so a failure here is recorded on the run without touching the
bundle that serving already uses."""

import base64
from pathlib import Path

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.serve import index_bundle
from retrieval_eval.report import ablation_table
from retrieval_eval.retrieval import evaluate_bundle
from orchestration.resources import MendelResource
from retrieval_eval import DEV_QUESTIONS

PLOT_NAME = "main_variants.png"


def _inline_png(path: Path, alt: str) -> str:
    return f"![{alt}](data:image/png;base64,{base64.b64encode(path.read_bytes()).decode('ascii')})"


@asset(group_name="serve", kinds={"python"}, owners=["team:ingest"], deps=[index_bundle],
       description="Recall@k, MRR, nDCG@10 and latency of every search variant (BM25, dense, hybrid, fast paths, "
                   "graph, the default) on the dev questions the published bundle can answer; the markdown "
                   "report and PNG plots are written under $MENDEL_HOME/reports/retrieval/<bundle version>/.")
def retrieval_evaluation(context: AssetExecutionContext, mendel: MendelResource) -> MaterializeResult:
    settings = mendel.settings()
    summary = evaluate_bundle(settings.bundles_dir, DEV_QUESTIONS, settings.home / "reports" / "retrieval",
                              embedder=mendel.get_embedder(), label="dev")
    result = summary["result"]
    metadata = {"bundle": summary["bundle"], "questions_file": summary["questions_file"],
                "questions_skipped": len(summary["skipped"]), "reused": summary["reused"]}
    if result is None:
        context.log.warning("no dev question is grounded in bundle %s; nothing evaluated", summary["bundle"])
        return MaterializeResult(metadata={**metadata, "evaluated": False, "questions": 0})
    if summary["skipped"]:
        context.log.info("%d dev gold items are not in this bundle (first: %s)", len(summary["skipped"]),
                         summary["skipped"][0])
    metadata.update({"evaluated": True, "questions": result["questions"],
                     "table": MetadataValue.md("\n".join(ablation_table(result))),
                     "report": MetadataValue.path(summary["report"]), "seconds": result.get("seconds", 0.0)})
    for variant, data in result["variants"].items():
        metadata[f"recall@10 {variant}"] = float(data["overall"].get("recall@10", 0.0))
        metadata[f"mrr {variant}"] = float(data["overall"].get("mrr", 0.0))
    plot = Path(summary["report_dir"]) / PLOT_NAME
    if plot.exists():
        metadata["plot"] = MetadataValue.md(_inline_png(plot, "recall@10 and MRR per variant"))
    return MaterializeResult(metadata=metadata)
