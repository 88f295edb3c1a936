"""Query-log feedback: entities named together in served queries become weighted entity pairs that the entity
graph build adds to its co-occurrence edges, so the graph grows from real traffic.

``fold_query_log`` recomputes ``query_entity_edges`` (migration 0007) from ``query_log`` (migration 0003) in one
transaction; running it twice gives the same table. Per pair, every distinct query text (case and spacing
ignored) that named both entities counts ``(1 + ln(times it was asked)) * 0.5 ** (age / half-life)``, its age
taken from its latest use: repeats strengthen a pair sub-linearly (one client repeating a query cannot
dominate), and pairs nobody asks about any more fade and, outside the window, go. Only entity-graph labels count
(laws, decisions, institutions; dates and amounts are not nodes).
"""

from __future__ import annotations

from datetime import datetime

import psycopg

from mendel.index.graph import GRAPH_LABELS

HALF_LIFE_DAYS = 90.0
WINDOW_DAYS = 365

_FOLD = """
CREATE TEMPORARY TABLE folded_query_edges ON COMMIT DROP AS
WITH asked AS (
    SELECT lower(regexp_replace(btrim(query), '\\s+', ' ', 'g')) AS text, entities, count(*) AS times,
           max(at) AS last_at
    FROM query_log
    WHERE at > %(now)s - make_interval(days => %(window)s) AND at <= %(now)s
    GROUP BY 1, 2
), named AS (
    SELECT DISTINCT a.text, a.entities, a.times, a.last_at, e.entity COLLATE "C" AS entity
    FROM asked a, jsonb_array_elements_text(a.entities) AS e(entity)
    WHERE split_part(e.entity, ':', 1) = ANY(%(labels)s) AND length(e.entity) > length(split_part(e.entity, ':', 1)) + 1
)
SELECT x.entity AS a, y.entity AS b, count(*) AS queries,
       sum((1 + ln(x.times)) * power(0.5, extract(epoch FROM (%(now)s - x.last_at)) / (86400.0 * %(half_life)s)))
           AS weight
FROM named x JOIN named y ON x.text = y.text AND x.entities = y.entities AND x.entity < y.entity
GROUP BY 1, 2
"""


def fold_query_log(conn: psycopg.Connection, now: datetime | None = None, half_life_days: float = HALF_LIFE_DAYS,
                   window_days: int = WINDOW_DAYS) -> dict:
    """Recompute ``query_entity_edges`` from the query log as of ``now`` (default: the database's now());
    returns counts for the run's metadata."""
    if half_life_days <= 0 or window_days <= 0:
        raise ValueError("half_life_days and window_days must be positive")
    with conn.transaction():
        at = now if now is not None else conn.execute("SELECT now()").fetchone()[0]
        params = {"now": at, "window": int(window_days), "half_life": float(half_life_days),
                  "labels": list(GRAPH_LABELS)}
        conn.execute(_FOLD, params)
        pairs, queries = conn.execute(
            "SELECT count(*), coalesce(sum(queries), 0) FROM folded_query_edges").fetchone()
        removed = conn.execute(
            "DELETE FROM query_entity_edges q WHERE NOT EXISTS"
            " (SELECT 1 FROM folded_query_edges f WHERE f.a = q.a AND f.b = q.b)").rowcount
        written = conn.execute(
            "INSERT INTO query_entity_edges (a, b, weight, updated_at)"
            " SELECT a, b, round(weight::numeric, 6)::double precision, %(now)s FROM folded_query_edges"
            " WHERE round(weight::numeric, 6) > 0"
            " ON CONFLICT (a, b) DO UPDATE SET weight = EXCLUDED.weight, updated_at = EXCLUDED.updated_at"
            " WHERE query_entity_edges.weight IS DISTINCT FROM EXCLUDED.weight", {"now": at}).rowcount
        logged = conn.execute(
            "SELECT count(*) FROM query_log WHERE at > %(now)s - make_interval(days => %(window)s)"
            " AND at <= %(now)s", params).fetchone()[0]
    return {"logged_queries": int(logged), "pairs": int(pairs), "pair_queries": int(queries),
            "written": int(written), "removed": int(removed)}


def query_edges(conn: psycopg.Connection) -> dict[tuple[str, str], float]:
    """The folded pairs, ``(a, b) -> weight`` with ``a < b``."""
    return {(a, b): float(w) for a, b, w in conn.execute("SELECT a, b, weight FROM query_entity_edges")}
