-- 0037 marked a document for an UPDATE of its chunks from a statement trigger with transition tables. PostgreSQL
-- fills those tables with every old and new row an UPDATE of chunks touches (text, lexemes, the embedding), whatever
-- columns it sets, so a bulk write of lexemes or terms -- columns no mark cares about -- paid for copying the whole
-- table twice, spilled to temporary files (benchmarks/chunk_update_triggers.py). A row trigger's WHEN is evaluated
-- as each row is updated and queues nothing where it is false: only the rows whose digested columns changed cost a
-- call. (UPDATE OF <columns> cannot narrow the statement trigger: PostgreSQL refuses a column list on a trigger with
-- transition tables.) The same columns as 0037's chunks_mark_updated; a chunk moved to another document marks both
-- documents. Each document is still written once per transaction (the changed_txid guard).
CREATE OR REPLACE FUNCTION chunks_mark_updated_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (OLD.doc_id, NEW.doc_id);
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS chunks_mark_update ON chunks;
CREATE TRIGGER chunks_mark_update AFTER UPDATE ON chunks FOR EACH ROW
    WHEN ((OLD.doc_id, OLD.version_id, OLD.layer, OLD.seq, OLD.page_start, OLD.page_end, OLD.section_path,
           OLD.content_hash, OLD.parent_id, OLD.char_start, OLD.char_end, OLD.summary, OLD.embedded_hash,
           OLD.embedding IS NULL)
          IS DISTINCT FROM
          (NEW.doc_id, NEW.version_id, NEW.layer, NEW.seq, NEW.page_start, NEW.page_end, NEW.section_path,
           NEW.content_hash, NEW.parent_id, NEW.char_start, NEW.char_end, NEW.summary, NEW.embedded_hash,
           NEW.embedding IS NULL))
    EXECUTE FUNCTION chunks_mark_updated_row();
DROP FUNCTION IF EXISTS chunks_mark_updated();

-- Inserts and deletes stay marked statement by statement, with the same triggers; only the lookup changes. A
-- PL/pgSQL function plans its query once a session, at its first call, and keeps the plan: 0037's
-- "doc_id IN (SELECT ... FROM added)" planned for a large transition table (a hash join reading every document)
-- was then run for each one-row statement after it in that session, costing a pass over documents a row. Probing
-- the primary key for an array of the statement's documents is one plan for any size.
CREATE OR REPLACE FUNCTION chunks_mark_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id = ANY (ARRAY(SELECT DISTINCT doc_id FROM added));
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION chunks_mark_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id = ANY (ARRAY(SELECT DISTINCT doc_id FROM gone));
    RETURN NULL;
END $$;
