"""Retrieval quality of the bundle just published: the ablations on the dev questions (tuned on), with the report
and plot in the asset's metadata, and a non-blocking check that the new bundle's default search did not lose
recall@10 or MRR on them against the bundle live before it. The blind sets are never run here: they are evaluated
once per release (``python -m retrieval_eval.release``), so no night's figure can steer tuning. Nothing depends on
this asset, so a failure here is recorded on the run without touching the bundle that serving already uses."""

import base64
import functools
from pathlib import Path

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.index.bundle import index_bundle
from orchestration.resources import MendelResource
from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.report import ablation_table
from retrieval_eval.retrieval import WATCHED, evaluate_bundle, previous_result, regressions

DEV_CHECK = "dev_no_regression"

PLOT_NAME = "main_variants.png"


def _inline_png(path: Path, alt: str) -> str:
    return f"![{alt}](data:image/png;base64,{base64.b64encode(path.read_bytes()).decode('ascii')})"


@asset(
    group_name="serve",
    kinds={"python"},
    owners=["team:ingest"],
    deps=[index_bundle],
    check_specs=[
        AssetCheckSpec(
            DEV_CHECK,
            asset="retrieval_evaluation",
            blocking=False,
            description="the default search's recall@10 and MRR on the dev questions are "
            "not lower than on the bundle live before this one",
        )
    ],
    description="Recall@k, MRR, nDCG@10 and latency of every search variant (BM25, dense, hybrid, fast paths, "
    "graph, the default) on the dev questions the published bundle can answer; the markdown report and PNG "
    "plots are written under $MENDEL_HOME/reports/retrieval/<bundle version>/dev/.",
)
def retrieval_evaluation(context: AssetExecutionContext, mendel: MendelResource) -> MaterializeResult:
    from serving.ranking.search import Searcher

    settings = mendel.settings()
    reports_dir = settings.home / "reports" / "retrieval"
    # loaded only when the live bundle's report is not written yet
    searcher = functools.cache(lambda: Searcher.latest(settings.bundles_dir, embedder=mendel.get_embedder()))
    summary = evaluate_bundle(settings.bundles_dir, DEV_QUESTIONS, reports_dir, label="dev", searcher=searcher)
    result = summary["result"]
    metadata = {
        "bundle": summary["bundle"],
        "questions_file": summary["questions_file"],
        "questions_skipped": len(summary["skipped"]),
        "reused": summary["reused"],
    }
    check = _regression_check(reports_dir, summary)
    if result is None:
        context.log.warning("no dev question is grounded in bundle %s; nothing evaluated", summary["bundle"])
        return MaterializeResult(metadata={**metadata, "evaluated": False, "questions": 0}, check_results=[check])
    if summary["skipped"]:
        context.log.info(
            "%d dev gold items are not in this bundle (first: %s)", len(summary["skipped"]), summary["skipped"][0]
        )
    metadata.update(
        {
            "evaluated": True,
            "questions": result["questions"],
            "table": MetadataValue.md("\n".join(ablation_table(result))),
            "report": MetadataValue.path(summary["report"]),
            "seconds": result.get("seconds", 0.0),
            **_headline(result),
        }
    )
    plot = Path(summary["report_dir"]) / PLOT_NAME
    if plot.exists():
        metadata["plot"] = MetadataValue.md(_inline_png(plot, "recall@10 and MRR per variant"))
    return MaterializeResult(metadata=metadata, check_results=[check])


def _headline(result: dict) -> dict[str, float]:
    """Recall@10 and MRR of every variant evaluated, as metadata the UI can plot over runs."""
    return {
        f"{metric} {variant}": float(data["overall"].get(metric, 0.0))
        for variant, data in result["variants"].items()
        for metric in WATCHED
    }


def _regression_check(reports_dir: Path, summary: dict) -> AssetCheckResult:
    """The dev figures of the default search against the bundle live before this one."""
    result = summary["result"]
    if result is None:
        return AssetCheckResult(
            check_name=DEV_CHECK,
            passed=True,
            severity=AssetCheckSeverity.WARN,
            description="no dev question is grounded in this bundle: nothing to compare",
            metadata={"questions": 0},
        )
    check_metadata = {
        "questions": result["questions"],
        **{key: value for key, value in _headline(result).items() if key.endswith(" default")},
    }
    before = previous_result(reports_dir, summary["bundle"], "dev")
    lost = regressions(result, before[1]) if before else {}
    if lost:
        description = "lower than the bundle live before it: " + ", ".join(
            f"{metric} {was:.3f} → {now:.3f}" for metric, (was, now) in lost.items()
        )
    elif before:
        description = "not lower than the bundle live before it"
    else:
        description = "no earlier bundle's dev figures to compare"
    if before:
        check_metadata["compared_with"] = before[0]
        check_metadata.update({f"{metric} default before": was for metric, (was, _) in lost.items()})
    return AssetCheckResult(
        check_name=DEV_CHECK,
        passed=not lost,
        severity=AssetCheckSeverity.WARN,
        description=description,
        metadata=check_metadata,
    )
