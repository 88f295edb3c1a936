-- Boards the board finder looked for on municipal websites (mendel.crawl.boards.candidates): one row per row of the
-- national list it searched, with the last search's outcome and reason. A confirmed board (its first read yielded
-- notices with titles and posting dates) enters the register and stays confirmed; the others are counted by outcome
-- and searched again after a while. What named the board and its CMS is kept as evidence.
CREATE TABLE IF NOT EXISTS board_candidates (
    list_key      text PRIMARY KEY,          -- the national list's row: obec:{kód obce}, site:{domain}, edesky:{id}
    site          text NOT NULL,             -- the website's domain
    name          text,
    obec_kod      text,
    start_url     text NOT NULL,             -- where the search started: the home page, or a board page known before
    board_url     text,                      -- the page the site labels as its notice board
    cms           text,                      -- a key of board_rules_by_cms.yaml, or unknown
    rules_from    text,                      -- cms:{key}@{version}: the rule set the first read used
    confidence    real,
    outcome       text NOT NULL,             -- confirmed | no_board_link | no_rule_set | layout_unknown
                                             -- | no_dated_notices | unreachable
    reason        text,
    evidence      jsonb NOT NULL DEFAULT '{}',
    notices_read  integer NOT NULL DEFAULT 0, -- rows the rule set read on the board page
    notices_dated integer NOT NULL DEFAULT 0, -- of them, rows with a title and a posting date
    run_id        text,
    tried_at      timestamptz NOT NULL DEFAULT now(),
    confirmed_at  timestamptz
);
CREATE INDEX IF NOT EXISTS board_candidates_outcome_idx ON board_candidates (outcome);
