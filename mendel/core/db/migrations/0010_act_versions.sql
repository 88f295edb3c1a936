-- e-Sbírka act versions (znění) assembled from the API's fragments (/dokumenty-sbirky/{staleUrl}/fragmenty),
-- and the cross-references e-Sbírka records in them (odkazyZFragmentu), which the entity graph reads.
-- The act's text itself stays a document (documents.doc_id = the act's ELI); these rows describe its versions.
CREATE TABLE IF NOT EXISTS act_versions (
    doc_id          text NOT NULL,                 -- the act's ELI, /eli/cz/sb/2024/87
    version         text NOT NULL,                 -- '0000-00-00' announced text, a date for a consolidated one,
                                                   -- '' when the source names no date (the current version)
    stale_url       text NOT NULL,                 -- /sb/2024/87/0000-00-00
    citation        text NOT NULL,                 -- 87/2024 Sb.
    title           text,
    version_kind    text,                          -- typZneni: VYHLASENE, AKTUALNI, ...
    announced       date,
    effective_from  date,
    effective_to    date,
    fragment_count  integer NOT NULL,
    reference_count integer NOT NULL,
    sha256          text NOT NULL,                 -- the assembled version (JSON, kept in the raw store)
    page_etags      jsonb NOT NULL DEFAULT '{}'::jsonb,  -- fragment page URL -> ETag, for conditional re-crawls
    fetched_at      timestamptz NOT NULL DEFAULT now(),  -- when this content was first assembled
    checked_at      timestamptz NOT NULL DEFAULT now(),  -- when the source last confirmed it
    PRIMARY KEY (doc_id, version)
);

CREATE TABLE IF NOT EXISTS act_references (
    doc_id            text NOT NULL,
    version           text NOT NULL,
    odkaz_id          bigint NOT NULL,               -- e-Sbírka's odkazId
    fragment_id       bigint,
    fragment_eli      text,                          -- the citing provision, /eli/cz/sb/2024/90/.../par_150/odst_1
    fragment_citation text,                          -- its zkracenaCitace, "§ 150 odst. 1 zákona č. 90/2024 Sb."
    kind              text,                          -- kodTypuVazbyOdkazu
    target_stale_url  text,                          -- cil.staleUrl as given, /sb/2002/119#par_5
    target_eli        text,                          -- the cited act, /eli/cz/sb/2002/119
    target_citation   text,                          -- 119/2002 Sb.
    target_provision  text,                          -- the anchor, par_5-odst_1 ('' for the whole act)
    target_external   text,                          -- cil.odkaz or cil.celex when the target is not a Sbírka act
    PRIMARY KEY (doc_id, version, odkaz_id),
    FOREIGN KEY (doc_id, version) REFERENCES act_versions (doc_id, version) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS act_references_target_idx ON act_references (target_eli);
