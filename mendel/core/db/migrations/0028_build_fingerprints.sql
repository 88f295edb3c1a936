-- What a derived build was last made from, so that a run whose inputs did not change keeps it instead of building
-- it anew (mendel.citator.build: the citation links and index). fingerprint: the build's code and the state of
-- every table it reads and writes (a digest of each table's row count and row versions, mendel.citator
-- table_states); stats: what the build reported, shown again when it is kept.
CREATE TABLE IF NOT EXISTS build_fingerprints (
    name        text PRIMARY KEY,
    fingerprint text NOT NULL,
    stats       jsonb NOT NULL DEFAULT '{}',
    built_at    timestamptz NOT NULL DEFAULT now()
);
