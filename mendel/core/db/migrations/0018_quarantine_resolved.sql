-- A crawl quarantine entry is resolved when a later fetch of its URL succeeds (stored or unchanged):
-- resolved_at / resolved_by (the run whose fetch succeeded). Open entries are those with resolved_at NULL; a URL that
-- fails again after being resolved gets a new entry.
ALTER TABLE quarantine ADD COLUMN IF NOT EXISTS resolved_at timestamptz;
ALTER TABLE quarantine ADD COLUMN IF NOT EXISTS resolved_by text;
CREATE INDEX IF NOT EXISTS quarantine_open_crawl_idx ON quarantine (source, url) WHERE stage = 'crawl' AND resolved_at IS NULL;
