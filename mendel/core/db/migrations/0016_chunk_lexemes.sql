-- Full-text search over passages inside PostgreSQL (the postgres serving backend, serving.pg_search).
-- lexemes holds the chunk's contextual text analysed by the same Czech analyser as BM25
-- (mendel.index.analyzer.analyze), written as a tsvector with positions; lexemes_hash says what it was made
-- from, so a changed text or summary is re-analysed (mendel.index.fulltext.fill_lexemes).
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS lexemes tsvector;
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS lexemes_hash text;
CREATE INDEX IF NOT EXISTS chunks_lexemes_gin_idx ON chunks USING gin (lexemes);
