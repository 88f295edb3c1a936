-- Crawl reconciliation and withdrawal.
-- crawl_runs: what each spider discovered in a run, written when it closes, so that
--   discovered = stored + unchanged + quarantined + disallowed is checked from the database alone
--   (crawl_log holds one outcome per discovered URL).
-- documents.listing: the complete listing (an OFN feed, a site's article index) a document was last found in;
--   when that listing is read in full and no longer names the document, the document is marked withdrawn.
CREATE TABLE IF NOT EXISTS crawl_runs (
    run_id              text NOT NULL,
    source              text NOT NULL,
    discovered          integer NOT NULL,
    withdrawn           integer NOT NULL DEFAULT 0,
    reactivated         integer NOT NULL DEFAULT 0,
    incomplete_listings text[] NOT NULL DEFAULT '{}',
    finish_reason       text,
    finished_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, source)
);

ALTER TABLE documents ADD COLUMN IF NOT EXISTS listing text;
CREATE INDEX IF NOT EXISTS documents_listing_idx ON documents (source, listing) WHERE listing IS NOT NULL;
CREATE INDEX IF NOT EXISTS crawl_log_run_idx ON crawl_log (run_id, source);
-- A 304 marks its document seen by URL; a quarantined URL is recorded once per distinct problem.
CREATE INDEX IF NOT EXISTS documents_source_url_idx ON documents (source, url);
CREATE INDEX IF NOT EXISTS quarantine_crawl_url_idx ON quarantine (url) WHERE stage = 'crawl';
