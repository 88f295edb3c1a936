"""The indexes and the serving bundle: embeddings, BM25, FAISS, the entity graph with the served queries folded in,
the published bundle and the optional Neo4j export; the merges of index segments the night leaves, in a job of
their own."""

import dagster as dg

from assets.index.assets import bm25_index, chunk_embeddings, entity_graph, faiss_index
from assets.index.bundle import index_bundle, neo4j_graph
from assets.index.merges import index_merges_job, index_merges_schedule
from assets.index.query_feedback import query_entity_edges

defs = dg.Definitions(
    assets=[chunk_embeddings, bm25_index, faiss_index, entity_graph, query_entity_edges, index_bundle, neo4j_graph],
    jobs=[index_merges_job],
    schedules=[index_merges_schedule],
)
