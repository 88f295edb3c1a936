-- Core store: documents and their versions, pages, sections, chunks, entities, crawl log, quarantine.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE documents (
    doc_id        text PRIMARY KEY,            -- ELI, ECLI or a source-specific key
    source        text NOT NULL,
    url           text NOT NULL,
    title         text,
    doc_type      text,
    citation      text,
    published     date,
    status        text NOT NULL DEFAULT 'active',  -- active | withdrawn
    current_version_id bigint,
    first_seen    timestamptz NOT NULL DEFAULT now(),
    last_seen     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE document_versions (
    version_id    bigserial PRIMARY KEY,
    doc_id        text NOT NULL REFERENCES documents(doc_id),
    sha256        text NOT NULL,
    content_type  text,
    byte_size     bigint NOT NULL,
    fetched_at    timestamptz NOT NULL DEFAULT now(),
    extracted_at  timestamptz,
    UNIQUE (doc_id, sha256)
);

CREATE TABLE pages (
    version_id    bigint NOT NULL REFERENCES document_versions(version_id) ON DELETE CASCADE,
    page_no       integer NOT NULL CHECK (page_no >= 1),
    text          text NOT NULL,
    is_ocr        boolean NOT NULL DEFAULT false,
    ocr_confidence real,
    PRIMARY KEY (version_id, page_no)
);

CREATE TABLE sections (
    section_id    bigserial PRIMARY KEY,
    version_id    bigint NOT NULL REFERENCES document_versions(version_id) ON DELETE CASCADE,
    parent_id     bigint REFERENCES sections(section_id) ON DELETE CASCADE,
    depth         integer NOT NULL,
    kind          text NOT NULL,               -- ČÁST, HLAVA, DÍL, ODDÍL, §, Čl., ...
    label         text NOT NULL,
    path          text NOT NULL,
    page_start    integer NOT NULL,
    page_end      integer NOT NULL,
    char_start    integer NOT NULL,
    char_end      integer NOT NULL
);

CREATE TABLE chunks (
    chunk_id      text PRIMARY KEY,            -- sha256 of version, layer and offsets
    version_id    bigint NOT NULL REFERENCES document_versions(version_id) ON DELETE CASCADE,
    doc_id        text NOT NULL REFERENCES documents(doc_id),
    layer         smallint NOT NULL DEFAULT 3,
    seq           integer NOT NULL,
    page_start    integer NOT NULL,
    page_end      integer NOT NULL,
    section_path  text NOT NULL DEFAULT '',
    char_start    integer NOT NULL,
    char_end      integer NOT NULL,
    text          text NOT NULL,
    content_hash  text NOT NULL,
    embedding     vector(384),
    ner_done_at   timestamptz
);
CREATE INDEX chunks_doc_idx ON chunks (doc_id);

CREATE TABLE embedding_cache (
    model         text NOT NULL,
    content_hash  text NOT NULL,
    embedding     vector(384) NOT NULL,
    PRIMARY KEY (model, content_hash)
);

CREATE TABLE entities (
    entity_id     text PRIMARY KEY,            -- label + ':' + norm
    label         text NOT NULL,
    norm          text NOT NULL,
    eli           text
);

CREATE TABLE mentions (
    chunk_id      text NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    entity_id     text NOT NULL REFERENCES entities(entity_id),
    start_char    integer NOT NULL,
    end_char      integer NOT NULL,
    surface       text NOT NULL,
    PRIMARY KEY (chunk_id, start_char, end_char)
);

CREATE TABLE crawl_log (
    id            bigserial PRIMARY KEY,
    run_id        text,
    source        text NOT NULL,
    url           text NOT NULL,
    status        integer,
    outcome       text NOT NULL,               -- stored | unchanged | quarantined | disallowed | failed
    sha256        text,
    etag          text,
    last_modified text,
    byte_size     bigint,
    reason        text,
    fetched_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crawl_log_url_idx ON crawl_log (url, fetched_at DESC);

CREATE TABLE quarantine (
    id            bigserial PRIMARY KEY,
    stage         text NOT NULL,               -- crawl | extract | ner | index
    source        text,
    doc_id        text,
    url           text,
    sha256        text,
    reason        text NOT NULL,
    detail        text,
    created_at    timestamptz NOT NULL DEFAULT now()
);
