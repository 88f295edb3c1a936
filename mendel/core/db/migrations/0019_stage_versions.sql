-- Versioned stages (mendel.stages): every derived row records the version of the stage that made it; a changed
-- version re-processes the rows another version made. NULL: made before versions were recorded.
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS extract_version text;    -- pages and sections
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS chunk_version text;      -- chunks and summaries
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS relations_version text;  -- relations of the version
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS ner_version text;                   -- mentions of the passage
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS embed_version text;                 -- the passage's vector

-- Every version a run used: its input files' digests and, for ner, its pattern lines (what the next version
-- compares with to find the passages a pattern change can touch).
CREATE TABLE IF NOT EXISTS stage_versions (
    stage       text NOT NULL,
    version     text NOT NULL,
    inputs      jsonb NOT NULL,          -- {path under mendel/: sha256}
    patterns    text[],                  -- ner: the normalised lines of the pattern files
    first_used  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stage, version)
);
CREATE INDEX IF NOT EXISTS chunks_ner_version_idx ON chunks (ner_version) WHERE layer = 3;
