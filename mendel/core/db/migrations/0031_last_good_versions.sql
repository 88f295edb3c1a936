-- A document whose newest version fails a hard quality check keeps its last good version live
-- (mendel.checks.quality.review): served_version_id names that version while the current one is quarantined;
-- NULL means the current version is the one served. Every reader of a document's live chunks joins on
-- coalesce(served_version_id, current_version_id).
ALTER TABLE documents ADD COLUMN IF NOT EXISTS served_version_id bigint
    REFERENCES document_versions(version_id) ON DELETE SET NULL;

-- A quality quarantine row is open until its document passes the hard checks again (its next version, or the
-- same version reviewed again): resolved_at says when. A version that fails again re-opens its row.
ALTER TABLE quality_quarantine ADD COLUMN IF NOT EXISTS resolved_at timestamptz;
CREATE INDEX IF NOT EXISTS quality_quarantine_open_idx ON quality_quarantine (doc_id) WHERE resolved_at IS NULL;
