-- A change mark per document, so that the index steps read the documents changed since they last ran instead of
-- digesting every document each night (mendel.index.change_marks). documents.changed_txid takes the id of the
-- transaction that may have changed what an index holds of the document: its own indexed columns (title, source,
-- url, citation, status, doc_type, the served or current version), or any of its chunks inserted, deleted, or
-- updated in a column the index digests (mendel.index.corpus._DIGEST_QUERY, mendel.index.fulltext's contextual
-- text, mendel.nightly.index_stage._VECTOR_DIGESTS). A document deleted leaves its mark in document_removals.
-- Transaction ids, not a sequence: a reader that remembers the oldest transaction still running when it looked
-- (txid_snapshot_xmin) misses no change committed after it looked, however long the writer's transaction ran.
-- A mark is a hint, never the truth: the index steps still compare digests of the marked documents.
ALTER TABLE documents ADD COLUMN IF NOT EXISTS changed_txid bigint NOT NULL DEFAULT txid_current();
CREATE INDEX IF NOT EXISTS documents_changed_txid_idx ON documents (changed_txid);

CREATE TABLE IF NOT EXISTS document_removals (
    doc_id text NOT NULL,
    changed_txid bigint NOT NULL DEFAULT txid_current()
);
CREATE INDEX IF NOT EXISTS document_removals_changed_txid_idx ON document_removals (changed_txid);

CREATE OR REPLACE FUNCTION documents_mark_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed_txid := txid_current();
    RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS documents_mark_change ON documents;
CREATE TRIGGER documents_mark_change BEFORE UPDATE ON documents FOR EACH ROW
    WHEN ((OLD.title, OLD.source, OLD.url, OLD.citation, OLD.status, OLD.doc_type, OLD.served_version_id,
           OLD.current_version_id)
          IS DISTINCT FROM (NEW.title, NEW.source, NEW.url, NEW.citation, NEW.status, NEW.doc_type,
           NEW.served_version_id, NEW.current_version_id))
    EXECUTE FUNCTION documents_mark_change();

CREATE OR REPLACE FUNCTION documents_mark_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO document_removals (doc_id) SELECT doc_id FROM gone;
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS documents_mark_removal ON documents;
CREATE TRIGGER documents_mark_removal AFTER DELETE ON documents REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION documents_mark_removal();

-- chunks, statement by statement (a night's COPY of a million rows marks each document once)
CREATE OR REPLACE FUNCTION chunks_mark_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (SELECT DISTINCT doc_id FROM added);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION chunks_mark_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (SELECT DISTINCT doc_id FROM gone);
    RETURN NULL;
END $$;
-- an update marks its document only where a digested column changed (lexemes, terms, mentions' marks do not)
CREATE OR REPLACE FUNCTION chunks_mark_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (
            SELECT o.doc_id FROM gone o JOIN added n ON n.chunk_id = o.chunk_id
            WHERE (o.doc_id, o.version_id, o.layer, o.seq, o.page_start, o.page_end, o.section_path, o.content_hash,
                   o.parent_id, o.char_start, o.char_end, o.summary, o.embedded_hash, o.embedding IS NULL)
                  IS DISTINCT FROM
                  (n.doc_id, n.version_id, n.layer, n.seq, n.page_start, n.page_end, n.section_path, n.content_hash,
                   n.parent_id, n.char_start, n.char_end, n.summary, n.embedded_hash, n.embedding IS NULL)
            UNION SELECT n.doc_id FROM gone o JOIN added n ON n.chunk_id = o.chunk_id WHERE n.doc_id <> o.doc_id
        );
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION chunks_mark_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current() WHERE changed_txid <> txid_current();
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS chunks_mark_insert ON chunks;
CREATE TRIGGER chunks_mark_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION chunks_mark_inserted();
DROP TRIGGER IF EXISTS chunks_mark_delete ON chunks;
CREATE TRIGGER chunks_mark_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION chunks_mark_deleted();
DROP TRIGGER IF EXISTS chunks_mark_update ON chunks;
CREATE TRIGGER chunks_mark_update AFTER UPDATE ON chunks REFERENCING OLD TABLE AS gone NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION chunks_mark_updated();
DROP TRIGGER IF EXISTS chunks_mark_truncate ON chunks;
CREATE TRIGGER chunks_mark_truncate AFTER TRUNCATE ON chunks
    FOR EACH STATEMENT EXECUTE FUNCTION chunks_mark_truncated();

-- The mark each step that reads marks in the database last consumed, with what its work was made with (basis).
CREATE TABLE IF NOT EXISTS change_mark_consumers (
    consumer text PRIMARY KEY,
    mark bigint NOT NULL,
    basis text NOT NULL
);
