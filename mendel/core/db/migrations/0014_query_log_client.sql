-- Who asked, without who: a keyed hash of the client's address (serving.querylog.client_id; never the raw IP),
-- so the nightly fold (mendel.index.query_feedback) counts distinct clients per entity pair: one client flooding
-- a query counts once. NULL: rows logged before this column (they count as one client together).
ALTER TABLE query_log ADD COLUMN IF NOT EXISTS client text;
