-- Searches served by the HTTP API: the query, the entity ids recognised in it, the top hits' chunk ids,
-- and the bundle version that answered.
CREATE TABLE query_log (
    id        bigserial PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    query     text NOT NULL,
    entities  jsonb NOT NULL DEFAULT '[]'::jsonb,
    hits      jsonb NOT NULL DEFAULT '[]'::jsonb,
    bundle    text
);
CREATE INDEX query_log_at_idx ON query_log (at);
