"""The serving bundle: every index and the chunk table, published atomically as one version."""

from dagster import MaterializeResult, asset

from assets.index.assets import bm25_index, entity_graph, faiss_index
from assets.law.assets import citations, law_versions
from mendel.index import bundle
from mendel.nightly import publish_stage
from orchestration.policies import NETWORK_RETRY
from orchestration.resources import MendelResource


@asset(
    group_name="serve",
    kinds={"python"},
    owners=["team:ingest"],
    deps=[bm25_index, faiss_index, entity_graph],
    description="A versioned, checksummed bundle of every layer's chunks and indexes and the graph that the "
    "serving module loads, sharing unchanged segments with the bundle before it (hard links); older versions are "
    "pruned (layout: mendel.index.bundle).",
)
def index_bundle(mendel: MendelResource) -> MaterializeResult:
    settings = mendel.settings()
    with mendel.connect() as conn:
        result = publish_stage.publish_bundle(
            conn, settings.build_dir, settings.bundles_dir, model=mendel.get_embedder().name, keep=mendel.bundles_keep
        )
    return MaterializeResult(metadata=result)


# output_required=False: without a configured server the export yields nothing, so the UI shows it as not
# materialized by the run (and the run summary as skipped) instead of a green "Materialized".
@asset(
    group_name="serve",
    kinds={"neo4j"},
    owners=["team:ingest"],
    deps=[entity_graph, law_versions, citations],
    retry_policy=NETWORK_RETRY,
    output_required=False,
    description="The entity graph, the hand-kept domain graph and the law in time (documents, versions, "
    "provisions, CITES / AMENDS / REPEALS) merged into Neo4j over Bolt (when configured).",
)
def neo4j_graph(context, mendel: MendelResource):
    import json

    from mendel.index.neo4j_export import connect, export_graph, neo4j_settings
    from mendel.index.neo4j_law import law_graph
    from mendel.law.domain_graph import load_domain_graph

    settings = neo4j_settings()
    if not settings.configured:
        context.log.info("MENDEL_NEO4J_URL is not set; the Neo4j export is skipped")
        return
    graph = json.loads(bundle.graph_path(mendel.settings().build_dir).read_text(encoding="utf-8"))
    with mendel.connect() as conn:
        law = law_graph(conn)
    driver = connect(settings)
    try:
        # Edges of weight < 1 only share a document; the chunk-level ones carry the signal.
        result = export_graph(driver, graph, load_domain_graph(), database=settings.database, min_weight=1.0, law=law)
    finally:
        driver.close()
    flat = {k: v for k, v in result.items() if isinstance(v, (int, float, str, bool))}
    yield MaterializeResult(metadata={"exported": True, **flat})
