-- How far a search-by-date listing (the Nejvyšší soud's) is known to be read in full: every decision put on the web
-- up to covered_to was listed by a complete read whose window started no later than the coverage before it, so the
-- next nightly read may start at covered_to minus the source's look-back instead of at the start of the corpus
-- (mendel.crawl.listing_windows). A read that failed anywhere, was cut short or was a closed backfill window
-- leaves it as it was.
CREATE TABLE IF NOT EXISTS listing_windows (
    source     text PRIMARY KEY,
    covered_to date NOT NULL,
    run_id     text,
    updated_at timestamptz NOT NULL DEFAULT now()
);
