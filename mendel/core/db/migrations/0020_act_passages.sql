-- Search in force: the passages of an act's consolidated versions (mendel.index.act_passages). Each
-- is a row of chunks (layer 3, on the act document's current version, so NER, embedding and the indexes treat
-- it as any passage) made from one § or čl. of the provisions tree; its identity is the provision's wording
-- digest, so a version that leaves a provision unchanged keeps its passage (and vector) and only lists itself.
CREATE TABLE IF NOT EXISTS act_passages (
    chunk_id      text PRIMARY KEY REFERENCES chunks (chunk_id) ON DELETE CASCADE,
    doc_id        text NOT NULL,
    provision_id  text NOT NULL,            -- § 4
    wording_sha   text NOT NULL,            -- provisions.wording_sha of the whole subtree
    versions      text[] NOT NULL,          -- act_versions.version values carrying this wording, oldest first
    page_located  boolean NOT NULL          -- chunks.page_start is the promulgated PDF's page of the provision
);
CREATE INDEX IF NOT EXISTS act_passages_doc_idx ON act_passages (doc_id);
