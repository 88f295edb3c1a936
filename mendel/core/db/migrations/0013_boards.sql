-- The register of notice boards as the board_registry asset last read it (mendel.boards.register_boards): one row
-- a board, its place (kód obce, obec, okres, kraj) and its whole description (spec: what the crawl needs). A board
-- the register no longer names keeps its row with removed_at set, and its documents are withdrawn.
CREATE TABLE IF NOT EXISTS boards (
    key           text PRIMARY KEY,          -- the board_documents partition key
    kind          text NOT NULL,             -- ofn | export | html | article_api
    url           text NOT NULL,             -- what documents.listing holds for the documents it owns
    name          text,
    publisher_ico text,
    obec_kod      text,
    obec          text,
    okres         text,
    kraj          text,
    spec          jsonb NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT now(),
    seen_at       timestamptz NOT NULL DEFAULT now(),
    removed_at    timestamptz
);
CREATE INDEX IF NOT EXISTS boards_url_idx ON boards (url);
