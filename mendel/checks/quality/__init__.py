"""Data quality of extracted documents: Great Expectations suites over documents, pages and sections
(:mod:`.suites` over :mod:`.frames`, thresholds in ``mendel/data/quality_thresholds.yaml``), and the nightly
review that quarantines the documents failing a hard expectation (:mod:`.review`), validating only what changed
(:mod:`.stored_shares`)."""
