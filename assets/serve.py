"""The serving bundle: every index and the chunk table, published atomically as one version."""


from dagster import MaterializeResult, asset

from assets.index import bm25_index, entity_graph, faiss_index
from mendel import pipeline
from orchestration.resources import MendelResource


@asset(group_name="serve", kinds={"python"}, owners=["team:ingest"], deps=[bm25_index, faiss_index, entity_graph],
       description="A versioned, checksummed bundle that the serving module loads; older versions are pruned.")
def index_bundle(mendel: MendelResource) -> MaterializeResult:
    settings = mendel.settings()
    with mendel.connect() as conn:
        result = pipeline.publish_bundle(conn, settings.build_dir, settings.bundles_dir,
                                         model=mendel.get_embedder().name, keep=mendel.bundles_keep)
    return MaterializeResult(metadata=result)
