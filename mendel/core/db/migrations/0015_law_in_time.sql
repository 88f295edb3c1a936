-- The law as it stands: act versions with their text as a tree of provisions, the e-Sbírka change
-- feed's cursor, and the citator's targets and links (mendel.act_versions, mendel.law_in_time, mendel.citator).

-- A version (znění) of an act: 0010 gave it dates and e-Sbírka's references; now also its version ELI, the
-- amending acts that produced it (historie/detail "novely") and when e-Sbírka published it (zmeny-zneni).
ALTER TABLE act_versions ADD COLUMN IF NOT EXISTS version_eli text;         -- /eli/cz/sb/2025/573/2026-06-01
ALTER TABLE act_versions ADD COLUMN IF NOT EXISTS amended_by jsonb NOT NULL DEFAULT '[]'::jsonb;
                                                                            -- [{"citation": "175/2026 Sb.", "eli": ...}]
ALTER TABLE act_versions ADD COLUMN IF NOT EXISTS published_at timestamptz; -- datumCasPublikaceDokumentu
ALTER TABLE act_versions ADD COLUMN IF NOT EXISTS version_number integer;   -- cisloZneni
CREATE INDEX IF NOT EXISTS act_versions_effective_idx ON act_versions (doc_id, effective_from);

-- The text of a version as a tree: část / hlava / díl / oddíl / § or čl. / odstavec / písmeno / bod.
-- provision_id is stable between versions ("§ 4 odst. 1 písm. a)", "část 2 čl. I"); a provision's subtree is
-- the rows of the same version with seq between its seq and last_seq.
CREATE TABLE IF NOT EXISTS provisions (
    doc_id        text NOT NULL,
    version       text NOT NULL,
    provision_id  text NOT NULL,
    path          text NOT NULL,             -- par_4/pism_a: the version ELI's path below /dokument/norma
    kind          text NOT NULL,             -- e-Sbírka's kodTypuFragmentu of the unit: Paragraf, Pismeno_Lb, ...
    parent_id     text,
    seq           integer NOT NULL,
    last_seq      integer NOT NULL,
    depth         integer NOT NULL,
    heading       text,                      -- Nadpis above or below the unit
    text          text NOT NULL,             -- the unit's own wording (children are rows of their own)
    wording_sha   text NOT NULL,             -- sha256 of the whole subtree's wording: equal = unchanged
    fragment_ids  bigint[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (doc_id, version, provision_id),
    FOREIGN KEY (doc_id, version) REFERENCES act_versions (doc_id, version) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS provisions_order_idx ON provisions (doc_id, version, seq);

-- Where the nightly increment of e-Sbírka (/dokumenty-sbirky/zmeny-zneni) stopped: the latest publication
-- time it has taken in. No row: the next crawl asks for every version.
CREATE TABLE IF NOT EXISTS change_feeds (
    feed          text PRIMARY KEY,           -- 'esbirka:zmeny-zneni'
    last_published timestamptz NOT NULL,
    checked_at    timestamptz NOT NULL DEFAULT now()
);

-- The citator. What an entity of the NER (LAW_REF, DECISION_REF) cites, in canonical form: target_key is the
-- act's citation ("573/2025 Sb.") or a court file number as the court writes it ("IV. ÚS 393/00"), matched
-- case-folded; target_provision the provision path ("§ 2 odst. 1", '' for the act or the decision).
CREATE TABLE IF NOT EXISTS citation_targets (
    entity_id        text PRIMARY KEY REFERENCES entities (entity_id) ON DELETE CASCADE,
    target_kind      text NOT NULL CHECK (target_kind IN ('act', 'decision')),
    target_key       text NOT NULL,
    target_provision text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS citation_targets_idx ON citation_targets (lower(target_key), target_provision text_pattern_ops);
CREATE INDEX IF NOT EXISTS mentions_entity_idx ON mentions (entity_id);

-- Citations that are not NER mentions: e-Sbírka's odkazyZFragmentu of an act version ('odkaz'), AMENDS / REPEALS
-- relations ('amends', 'repeals', naming the version they produce) and the references of citation records
-- ('record'). Rebuilt per citing document (mendel.citator.build_links).
CREATE TABLE IF NOT EXISTS citation_links (
    link_id          bigserial PRIMARY KEY,
    origin           text NOT NULL CHECK (origin IN ('odkaz', 'amends', 'repeals', 'record')),
    target_kind      text NOT NULL CHECK (target_kind IN ('act', 'decision')),
    target_key       text NOT NULL,
    target_provision text NOT NULL DEFAULT '',
    citing_doc_id    text NOT NULL,
    citing_version   text,                    -- odkaz: the citing act's version
    produces_version text,                    -- amends / repeals: the cited act's version it produced, if known
    page             integer,
    sentence         text,
    surface          text
);
CREATE INDEX IF NOT EXISTS citation_links_target_idx
    ON citation_links (lower(target_key), target_provision text_pattern_ops);
CREATE INDEX IF NOT EXISTS citation_links_citing_idx ON citation_links (citing_doc_id);
