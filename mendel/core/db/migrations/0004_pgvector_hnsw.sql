-- Approximate nearest-neighbour search over chunk embeddings inside PostgreSQL (pgvector HNSW, cosine).
-- The FAISS index in the bundle stays the serving path; this index serves SQL-side dense retrieval
-- (mendel.index.pgvector.search_pgvector). Rows without an embedding are not indexed.
-- m / ef_construction are pgvector's defaults, written out so a change is a new migration.
CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw_idx
    ON chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64);
