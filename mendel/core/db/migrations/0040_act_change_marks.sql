-- An act's version fields and heading paths (what its chunks carry in the indexes: mendel.passages.act_passages.
-- ActChunkVersions, mendel.index.corpus.heading_paths) come from act_versions, provisions and act_passages, which no
-- mark followed: every index step read every act again each night. A write to those tables now marks the act's
-- document as 0037 marks a document for its chunks (documents.changed_txid), so BM25's digests and the embed stage
-- read only the marked acts.
-- An insert or delete marks statement by statement (a new version's provisions are thousands of rows); an update
-- only where a value changed (e-Sbírka confirming a version unchanged writes its page ETags and checked_at, and the
-- passages stage rewrites its rows as they were, every night). Each document is written once per transaction.
CREATE OR REPLACE FUNCTION act_rows_mark_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (SELECT DISTINCT doc_id FROM added);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION act_rows_mark_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (SELECT DISTINCT doc_id FROM gone);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION act_row_mark_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current()
        WHERE changed_txid <> txid_current() AND doc_id IN (OLD.doc_id, NEW.doc_id);
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION act_rows_mark_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET changed_txid = txid_current() WHERE changed_txid <> txid_current();
    RETURN NULL;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['act_versions', 'provisions', 'act_passages'] LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS %1$s_mark_insert ON %1$I', t);
        EXECUTE format('CREATE TRIGGER %1$s_mark_insert AFTER INSERT ON %1$I REFERENCING NEW TABLE AS added'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION act_rows_mark_added()', t);
        EXECUTE format('DROP TRIGGER IF EXISTS %1$s_mark_delete ON %1$I', t);
        EXECUTE format('CREATE TRIGGER %1$s_mark_delete AFTER DELETE ON %1$I REFERENCING OLD TABLE AS gone'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION act_rows_mark_gone()', t);
        EXECUTE format('DROP TRIGGER IF EXISTS %1$s_mark_truncate ON %1$I', t);
        EXECUTE format('CREATE TRIGGER %1$s_mark_truncate AFTER TRUNCATE ON %1$I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION act_rows_mark_truncated()', t);
    END LOOP;
END $$;

DROP TRIGGER IF EXISTS act_versions_mark_update ON act_versions;
CREATE TRIGGER act_versions_mark_update AFTER UPDATE ON act_versions FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'page_etags' - 'checked_at') IS DISTINCT FROM (to_jsonb(NEW) - 'page_etags' - 'checked_at'))
    EXECUTE FUNCTION act_row_mark_updated();
DROP TRIGGER IF EXISTS provisions_mark_update ON provisions;
CREATE TRIGGER provisions_mark_update AFTER UPDATE ON provisions FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION act_row_mark_updated();
DROP TRIGGER IF EXISTS act_passages_mark_update ON act_passages;
CREATE TRIGGER act_passages_mark_update AFTER UPDATE ON act_passages FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION act_row_mark_updated();
