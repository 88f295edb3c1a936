-- The citator at scale (mendel.citator.build_index): every citing document per cited item and scope, so that
-- "what cites X" is an index range read however often X is cited. A scope is the cited act or decision as a whole
-- ('') or a provision path and every path above it: a citation of "§ 2 odst. 1" counts for '', '§ 2' and
-- '§ 2 odst. 1'. key_folded: the target key case-folded ("573/2025 sb.", "iv. ús 393/00"). A document citing
-- itself is not counted. Rebuilt by the nightly citations asset.
CREATE TABLE IF NOT EXISTS citation_index (
    target_kind  text NOT NULL,
    key_folded   text NOT NULL,
    scope        text NOT NULL,
    family       text NOT NULL,              -- acts | decisions | notices | other
    doc_id       text NOT NULL,
    published    date,
    citations    integer NOT NULL,           -- how often the document cites it within the scope
    sample_chunks text[] NOT NULL DEFAULT '{}',  -- its first citing passages (chunk ids), shown with the answer
    PRIMARY KEY (target_kind, key_folded, scope, doc_id)
);
CREATE INDEX IF NOT EXISTS citation_index_newest_idx
    ON citation_index (key_folded, scope, family, published DESC NULLS LAST, doc_id DESC);

-- Per cited item, scope and family: citing documents and citations (the counts the citator shows and the graph's
-- citation weights).
CREATE TABLE IF NOT EXISTS citation_totals (
    target_kind  text NOT NULL,
    key_folded   text NOT NULL,
    scope        text NOT NULL,
    family       text NOT NULL,
    documents    integer NOT NULL,
    citations    integer NOT NULL,
    PRIMARY KEY (target_kind, key_folded, scope, family)
);

-- A decision is looked up by its file number or ECLI whatever their case (documents.citation, documents.doc_id).
CREATE INDEX IF NOT EXISTS documents_citation_folded_idx ON documents (lower(citation));
CREATE INDEX IF NOT EXISTS documents_doc_id_folded_idx ON documents (lower(doc_id));
