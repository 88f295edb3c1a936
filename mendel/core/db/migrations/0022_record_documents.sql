-- Record documents (mendel.records): crawled records written as small searchable texts — a municipality's RÚIAN
-- register data, an act's e-Sbírka metadata. The text is an ordinary document version (text/plain in the raw
-- store, extracted and chunked like any other); this table says what record it renders and where that record
-- came from, so a hit is grounded to the source file or API record, never passed off as a decision or act text.
CREATE TABLE IF NOT EXISTS record_documents (
    doc_id      text PRIMARY KEY REFERENCES documents (doc_id),
    kind        text NOT NULL,                     -- register_record | act_metadata (= documents.doc_type)
    record      text NOT NULL,                     -- the record rendered: ruian:obec:564729, esbirka:/sb/2025/573
    sources     jsonb NOT NULL DEFAULT '[]'::jsonb -- [{doc_id, url, title, ...}]: the files / API records it is from
);

-- The records stage version (mendel.stages) that wrote a record document's version; another version re-renders it.
ALTER TABLE document_versions ADD COLUMN IF NOT EXISTS record_version text;
