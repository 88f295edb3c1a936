-- Per-document quarantine on the hard data-quality expectations (mendel.quality.review_database).
-- quality_checked_at: when a version's pages were accepted by the hard checks; NULL marks a new version,
--   one of those whose failing share may block the run (quality_thresholds.yaml, max_new_failing_share).
-- quality_quarantine: a current version that failed a hard expectation, with the failed expectations and the
--   offending rows; the chunk stage skips it (its chunks are deleted), so it is in no index. A new version of
--   the document has another version_id and is checked afresh: a fixed document comes back by itself.
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS quality_checked_at timestamptz;

CREATE TABLE IF NOT EXISTS quality_quarantine (
    version_id     bigint PRIMARY KEY REFERENCES document_versions(version_id) ON DELETE CASCADE,
    doc_id         text NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    expectations   text[] NOT NULL,            -- e.g. {pages.no_mojibake}
    examples       jsonb NOT NULL,             -- e.g. ["<doc_id> p. 1: mojibake=NejvyÅ¡Å¡Ã­ soud"]
    quarantined_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS quality_quarantine_doc_idx ON quality_quarantine (doc_id);
