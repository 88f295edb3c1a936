-- The quality review's stored results (mendel.quality.review_database), so that a run reviews only the versions
-- not reviewed since they were extracted (or since the review's thresholds, code or Great Expectations changed)
-- and the corpus-level figures of the checks are sums over the live versions' stored shares.
-- quality_reviews: one per reviewed version: the review version it was made by, the extraction it read
--   (document_versions.extracted_at) and its rows in each suite (documents, pages, sections).
-- quality_review_results: a version's share of one expectation (its place in the plan) where it is not nothing:
--   rows left out as missing, failing rows and the first failing rows as "<row key>: <values>".
-- quality_review_plans: what each expectation of a review version is (shown in the checks' metadata), so that a
--   run with nothing to review does not load Great Expectations.
CREATE TABLE IF NOT EXISTS quality_reviews (
    version_id     bigint PRIMARY KEY REFERENCES document_versions(version_id) ON DELETE CASCADE,
    doc_id         text NOT NULL,
    review_version text NOT NULL,
    extracted_at   timestamptz,
    documents      integer NOT NULL,
    pages          integer NOT NULL,
    sections       integer NOT NULL,
    reviewed_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS quality_review_results (
    version_id  bigint NOT NULL REFERENCES quality_reviews(version_id) ON DELETE CASCADE,
    position    integer NOT NULL,
    missing     integer NOT NULL DEFAULT 0,
    unexpected  integer NOT NULL DEFAULT 0,
    examples    jsonb NOT NULL DEFAULT '[]',
    PRIMARY KEY (version_id, position)
);

CREATE TABLE IF NOT EXISTS quality_review_plans (
    review_version text NOT NULL,
    position       integer NOT NULL,
    suite          text NOT NULL,
    name           text NOT NULL,
    severity       text NOT NULL,
    expectation    text NOT NULL,
    kwargs         jsonb NOT NULL,
    counts_missing boolean NOT NULL,  -- false: Great Expectations reports no missing rows (expect_..._to_be_null)
    PRIMARY KEY (review_version, position)
);
