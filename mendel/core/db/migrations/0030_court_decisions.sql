-- Court decisions as their courts describe them, and the open-data days a crawl has closed.
--
-- court_decisions: one row per stored decision (its current version), read from the stored original by
-- mendel.records.court_decisions — the court and its level, the file number as written and canonical, the ECLI
-- only where the source gives one, dates, decision type, keywords, the provisions the source's metadata lists
-- (as listed: "§ 142 z. č. 99/1963 Sb.", and parsed by the law-reference recogniser) and every field the source
-- gives (fields). The citator links the listed provisions as the court's own witness.
CREATE TABLE IF NOT EXISTS court_decisions (
    doc_id          text PRIMARY KEY REFERENCES documents (doc_id),
    version_id      bigint NOT NULL REFERENCES document_versions (version_id) ON DELETE CASCADE,
    source          text NOT NULL,
    court           text NOT NULL,
    court_level     text,                             -- constitutional | supreme | high | regional | district
    file_number     text,                             -- as the source writes it
    file_number_key text,                             -- canonical (mendel.citator.targets), for matching any form
    ecli            text,                             -- only the source's own
    decided         date,
    published       date,
    decision_type   text,
    category        text,
    keywords        text[] NOT NULL DEFAULT '{}',
    provisions      text[] NOT NULL DEFAULT '{}',      -- as the source lists them
    fields          jsonb NOT NULL DEFAULT '{}'::jsonb, -- every field of the source's metadata, unchanged
    made_by         text NOT NULL                      -- the version of the reader that wrote the row
);
CREATE INDEX IF NOT EXISTS court_decisions_level_idx ON court_decisions (court_level, decided);
CREATE INDEX IF NOT EXISTS court_decisions_key_idx ON court_decisions (file_number_key);

-- open_data_days: the publication days of a day-by-day source (the lower courts' open data) read in full. A day is
-- read again every run until it is older than the source's publication lag; the first complete read after that
-- closes it, and a closed day is not asked for again.
CREATE TABLE IF NOT EXISTS open_data_days (
    source      text NOT NULL,
    day         date NOT NULL,
    pages       integer NOT NULL,
    records     integer NOT NULL,
    last_read   timestamptz NOT NULL DEFAULT now(),
    closed_at   timestamptz,
    run_id      text,
    PRIMARY KEY (source, day)
);

-- citation_links gains the court's own witness: 'court_metadata', a provision the decision's metadata lists
-- (court_decisions.provisions), beside the recogniser's mentions.
ALTER TABLE citation_links DROP CONSTRAINT IF EXISTS citation_links_origin_check;
ALTER TABLE citation_links ADD CONSTRAINT citation_links_origin_check
    CHECK (origin IN ('odkaz', 'amends', 'repeals', 'record', 'court_metadata'));
