-- Index layers, summaries, contextual embeddings and the entity graph (mendel.index.graph).

-- chunks now hold three layers: 1 = the document, 2 = a section, 3 = a ~500-character passage.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS parent_id text;      -- L3 -> its L2 chunk, L2 -> its L1 chunk
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS summary text;        -- L1 / L2: ~150-character summary
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embedded_hash text;  -- sha256 of what chunks.embedding was made from
CREATE INDEX IF NOT EXISTS chunks_version_layer_idx ON chunks (version_id, layer, seq);
CREATE INDEX IF NOT EXISTS chunks_parent_idx ON chunks (parent_id);

-- Set when all three layers of a version are written; versions chunked before this migration get their
-- L1/L2 chunks (and keep their L3 chunks, mentions and vectors where the offsets are unchanged) on the next run.
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS chunked_at timestamptz;

-- What each live document adds to the graph, replaced when the document changes, deleted when it goes.
CREATE TABLE graph_contributions (
    doc_id      text NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    version_id  bigint NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('MENTIONED', 'CO_CHUNK', 'CO_DOCUMENT', 'REFERS_TO', 'PART_OF',
                                              'AMENDS', 'REPEALS')),
    source      text NOT NULL,
    target      text NOT NULL,                -- '' for MENTIONED
    count       double precision NOT NULL,
    PRIMARY KEY (doc_id, kind, source, target)
);

-- The inputs (version, mentions, relations) each document's contributions were computed from.
CREATE TABLE graph_documents (
    doc_id      text PRIMARY KEY REFERENCES documents(doc_id) ON DELETE CASCADE,
    version_id  bigint NOT NULL,
    fingerprint text NOT NULL,
    built_at    timestamptz NOT NULL DEFAULT now()
);

-- The aggregated graph as of the last index build (the bundle's graph/graph.json holds the same).
CREATE TABLE graph_nodes (
    entity_id   text PRIMARY KEY,             -- LABEL:norm (DOCUMENT:<doc_id> for documents without a citation)
    label       text NOT NULL,
    norm        text NOT NULL,
    eli         text,
    chunks      integer NOT NULL,             -- live chunks mentioning it
    documents   integer NOT NULL
);

CREATE TABLE graph_edges (
    source      text NOT NULL,
    target      text NOT NULL,
    type        text NOT NULL,                -- CO_OCCURS (source < target), REFERS_TO, PART_OF, AMENDS, REPEALS
    weight      double precision NOT NULL,
    chunks      double precision,             -- CO_OCCURS: shared chunks
    documents   double precision,             -- CO_OCCURS: documents where both are among the top entities
    queries     double precision,             -- CO_OCCURS: co-activation in logged queries
    PRIMARY KEY (source, target, type)
);
CREATE INDEX graph_edges_target_idx ON graph_edges (target);
