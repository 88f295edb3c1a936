-- The passages' nearest-neighbour graph on its own, built wider. The index of 0004 held every layer (passages,
-- sections, documents: 118,116 vectors on the whole sample corpus) with pgvector's default m 16 and
-- ef_construction 64; a passage search walked section and document centroids too and filtered them out after the
-- scan. On that corpus (84,672 passages, 133 dev questions, benchmarks/pg_hnsw_recall.py) it returned 0.716 of
-- the exact top 10 at hnsw.ef_search 200 and 0.859 at 1,000; this index 0.860 at 200 and 0.926 at 400
-- (m 32 / ef_construction 128: 0.915 and 0.962, but its build and every insert cost ~3x this one's).
-- Searches with the layer written out (serving.ranking.pg_sql.NEAREST, search_pgvector's layer 3) take it;
-- sections and documents keep their partial indexes of 0035; a search over every layer at once reads the table.
DROP INDEX IF EXISTS chunks_embedding_hnsw_idx;
CREATE INDEX IF NOT EXISTS chunks_embedding_l3_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 128) WHERE layer = 3;
