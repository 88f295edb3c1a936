-- Register records (RÚIAN municipalities, parts, streets, buildings, address points): records, not pages.
CREATE TABLE registry_records (
    source        text NOT NULL,
    kind          text NOT NULL,
    code          text NOT NULL,
    name          text,
    parent_code   text,
    valid_from    date,
    data          jsonb NOT NULL,
    version_id    bigint REFERENCES document_versions(version_id) ON DELETE SET NULL,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source, kind, code)
);
CREATE INDEX registry_records_name_idx ON registry_records (kind, name);

ALTER TABLE document_versions ADD COLUMN records_loaded_at timestamptz;
