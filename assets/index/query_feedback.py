"""Query-log feedback: entity co-activation in served queries, folded nightly for the entity graph build."""

from dagster import MaterializeResult, asset

from mendel.index.query_feedback import fold_query_log
from orchestration.resources import MendelResource


@asset(
    group_name="index",
    kinds={"postgres"},
    owners=["team:ingest"],
    description="Entities named together in logged queries (query_log) as weighted pairs in "
    "query_entity_edges; the entity graph adds them to its co-occurrence edges.",
)
def query_entity_edges(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        stats = fold_query_log(conn)
    return MaterializeResult(metadata=stats)
