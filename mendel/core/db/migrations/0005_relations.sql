-- AMENDS / REPEALS relations read from the language of amending acts by the NER stage
-- (mendel.ner.relations, written in pipeline.recognise_pending; read by the graph build).
-- subject_norm: the amending act's own citation ("270/2025 Sb."); object_norm: the amended or repealed
-- act or provision, written like a LAW_REF norm ("40/2009 Sb.", "40/2009 Sb. § 12 odst. 3").
-- page_no, char_start, char_end: the statement the relation was read from, as offsets into that page's
-- text (a statement that runs on to the next page ends past the page's length; pages are joined with a
-- blank line, as in document text); evidence: that statement, whitespace collapsed.
CREATE TABLE relations (
    relation_id  bigserial PRIMARY KEY,
    version_id   bigint REFERENCES document_versions(version_id) ON DELETE CASCADE,
    kind         text CHECK (kind IN ('AMENDS', 'REPEALS')),
    subject_norm text NOT NULL,
    object_norm  text NOT NULL,
    page_no      int,
    char_start   int,
    char_end     int,
    evidence     text
);
CREATE INDEX relations_version_idx ON relations (version_id);
CREATE INDEX relations_object_idx ON relations (object_norm);
