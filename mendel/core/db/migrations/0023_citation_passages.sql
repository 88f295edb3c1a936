-- The citator's passages ready at build time (mendel.citator.build_index): per citation_index row, the citing
-- passages `mendel cites` shows for that document — at most PASSAGES_PER_DOCUMENT of
-- {sentence, page, cited, origins[, produces_version]}, in the order shown — so that a query reads them with the
-- row instead of cutting sentences out of the passages' text on every call. NULL: not built yet (rows of an
-- index built before this migration); the query then cuts them itself.
ALTER TABLE citation_index ADD COLUMN IF NOT EXISTS passages jsonb;
