-- BM25's postings of the document (layer 1) and section (layer 2) chunks, for the postgres serving backend
-- (serving.ranking.pg_lists searches these layers as the bundle's layers/L1 and layers/L2).
--
-- A tsvector cannot hold them: a whole act is one layer-1 chunk, and a tsvector keeps 256 positions of a lexeme
-- and none past 16,383, so a code's term frequencies and length would not be the ones bm25s counts. The chunk keeps
-- its analysed terms with their exact frequencies instead (term_names[i] occurs term_counts[i] times in its
-- contextual text; mendel.index.layer_terms writes them), and the triggers below derive the postings from them, so
-- every writer keeps them and a chunk deleted or truncated away takes its postings along.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS term_names text[];
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS term_counts integer[];

CREATE TABLE IF NOT EXISTS layer_postings (
    layer     smallint NOT NULL,   -- 1 or 2: each layer is a BM25 index of its own (its own idf and mean length)
    term      text NOT NULL,
    passage   integer NOT NULL,    -- chunks.passage_key
    frequency integer NOT NULL,    -- the term's occurrences in the chunk's contextual text
    PRIMARY KEY (layer, term, passage) INCLUDE (frequency)
);

CREATE OR REPLACE FUNCTION layer_postings_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.term_names IS NOT NULL THEN
        DELETE FROM layer_postings p
        WHERE p.layer = OLD.layer AND p.term = ANY (OLD.term_names) AND p.passage = OLD.passage_key;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.term_names IS NOT NULL THEN
        INSERT INTO layer_postings (layer, term, passage, frequency)
        SELECT NEW.layer, u.term, NEW.passage_key, u.frequency
        FROM unnest(NEW.term_names, NEW.term_counts) AS u (term, frequency);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION layer_postings_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE layer_postings;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS chunks_layer_postings_insert ON chunks;
CREATE TRIGGER chunks_layer_postings_insert AFTER INSERT ON chunks
    FOR EACH ROW WHEN (NEW.term_names IS NOT NULL) EXECUTE FUNCTION layer_postings_follow();
DROP TRIGGER IF EXISTS chunks_layer_postings_update ON chunks;
CREATE TRIGGER chunks_layer_postings_update AFTER UPDATE OF term_names, term_counts, passage_key, layer ON chunks
    FOR EACH ROW WHEN (OLD.term_names IS DISTINCT FROM NEW.term_names OR OLD.term_counts IS DISTINCT FROM NEW.term_counts
        OR OLD.passage_key IS DISTINCT FROM NEW.passage_key OR OLD.layer IS DISTINCT FROM NEW.layer)
    EXECUTE FUNCTION layer_postings_follow();
DROP TRIGGER IF EXISTS chunks_layer_postings_delete ON chunks;
CREATE TRIGGER chunks_layer_postings_delete AFTER DELETE ON chunks
    FOR EACH ROW WHEN (OLD.term_names IS NOT NULL) EXECUTE FUNCTION layer_postings_follow();
DROP TRIGGER IF EXISTS chunks_layer_postings_truncate ON chunks;
CREATE TRIGGER chunks_layer_postings_truncate AFTER TRUNCATE ON chunks
    FOR EACH STATEMENT EXECUTE FUNCTION layer_postings_clear();

-- Dense search within one upper layer: a partial HNSW index each (the planner picks one for a statement whose
-- WHERE says layer = 1 or layer = 2), so finding a section's nearest does not walk the passages' graph and filter.
CREATE INDEX IF NOT EXISTS chunks_embedding_l1_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64) WHERE layer = 1;
CREATE INDEX IF NOT EXISTS chunks_embedding_l2_hnsw_idx ON chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64) WHERE layer = 2;

-- The postings tables churn each night: a re-analysed or replaced passage deletes its rows and inserts new ones
-- (tens of millions of rows at a million passages, a few per cent of them changed a night). With PostgreSQL's
-- default thresholds (20 % of the table dead or inserted, 10 % changed for ANALYZE) autovacuum would wait many
-- nights, while the serving backend reads the postings by index-only scans, which visit the heap for every page
-- not marked all-visible, and plans term = ANY(...) by statistics the churn makes stale. So vacuum, freeze-ahead
-- and analyze run after about 2 % of the rows changed, whatever the night's load did.
ALTER TABLE chunk_postings SET (
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 10000
);
ALTER TABLE layer_postings SET (
    autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_insert_threshold = 10000,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 10000
);
