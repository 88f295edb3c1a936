"""Query-log feedback: entities named together in served queries become weighted entity pairs (``query_entity_edges``)
that the entity graph build adds to its co-occurrence edges. A pair weighs the distinct clients that named both,
decaying with age; log rows older than ``MENDEL_QUERY_LOG_RETENTION_DAYS`` (default 90) are deleted first, and
folding twice gives the same table.
"""

from __future__ import annotations

import os
from datetime import datetime

import psycopg

from mendel.index.entity_graph import GRAPH_LABELS

HALF_LIFE_DAYS = 30.0
DEFAULT_RETENTION_DAYS = 90
RETENTION_ENV = "MENDEL_QUERY_LOG_RETENTION_DAYS"

_FOLD = """
CREATE TEMPORARY TABLE folded_query_edges ON COMMIT DROP AS
WITH named AS (
    SELECT DISTINCT l.id, coalesce(l.client, '') AS client, l.at, e.entity COLLATE "C" AS entity
    FROM query_log l, jsonb_array_elements_text(l.entities) AS e(entity)
    WHERE l.at > %(now)s - make_interval(days => %(retention)s) AND l.at <= %(now)s
      AND split_part(e.entity, ':', 1) = ANY(%(labels)s) AND length(e.entity) > length(split_part(e.entity, ':', 1)) + 1
), by_client AS (
    SELECT x.entity AS a, y.entity AS b, x.client, max(x.at) AS last_at, count(*) AS queries
    FROM named x JOIN named y ON x.id = y.id AND x.entity < y.entity
    GROUP BY 1, 2, 3
)
SELECT a, b, count(*) AS clients, sum(queries) AS queries,
       sum(power(0.5, extract(epoch FROM (%(now)s - last_at)) / (86400.0 * %(half_life)s))) AS weight
FROM by_client
GROUP BY 1, 2
"""


def retention_days(environ: dict | None = None) -> int:
    value = (environ if environ is not None else os.environ).get(RETENTION_ENV, "").strip()
    days = int(value) if value else DEFAULT_RETENTION_DAYS
    if days <= 0:
        raise ValueError(f"{RETENTION_ENV} must be a positive number of days, not {value!r}")
    return days


def fold_query_log(
    conn: psycopg.Connection,
    now: datetime | None = None,
    half_life_days: float = HALF_LIFE_DAYS,
    retention: int | None = None,
) -> dict:
    """Delete query-log rows past the retention and recompute ``query_entity_edges`` as of ``now`` (default: the
    database's now()); returns counts for the run's metadata."""
    retention = retention if retention is not None else retention_days()
    if half_life_days <= 0 or retention <= 0:
        raise ValueError("half_life_days and retention must be positive")
    with conn.transaction():
        at = now if now is not None else conn.execute("SELECT now()").fetchone()[0]
        params = {
            "now": at,
            "retention": int(retention),
            "half_life": float(half_life_days),
            "labels": list(GRAPH_LABELS),
        }
        expired = conn.execute(
            "DELETE FROM query_log WHERE at <= %(now)s - make_interval(days => %(retention)s)", params
        ).rowcount
        conn.execute(_FOLD, params)
        pairs, queries, clients = conn.execute(
            "SELECT count(*), coalesce(sum(queries), 0), coalesce(max(clients), 0) FROM folded_query_edges"
        ).fetchone()
        removed = conn.execute(
            "DELETE FROM query_entity_edges q WHERE NOT EXISTS"
            " (SELECT 1 FROM folded_query_edges f WHERE f.a = q.a AND f.b = q.b)"
        ).rowcount
        written = conn.execute(
            "INSERT INTO query_entity_edges (a, b, weight, updated_at)"
            " SELECT a, b, round(weight::numeric, 6)::double precision, %(now)s FROM folded_query_edges"
            " WHERE round(weight::numeric, 6) > 0"
            " ON CONFLICT (a, b) DO UPDATE SET weight = EXCLUDED.weight, updated_at = EXCLUDED.updated_at"
            " WHERE query_entity_edges.weight IS DISTINCT FROM EXCLUDED.weight",
            {"now": at},
        ).rowcount
        logged = conn.execute("SELECT count(*) FROM query_log WHERE at <= %(now)s", params).fetchone()[0]
    return {
        "logged_queries": int(logged),
        "expired_queries": int(expired),
        "pairs": int(pairs),
        "pair_queries": int(queries),
        "max_pair_clients": int(clients),
        "written": int(written),
        "removed": int(removed),
        "retention_days": int(retention),
    }


def query_edges(conn: psycopg.Connection) -> dict[tuple[str, str], float]:
    """The folded pairs, ``(a, b) -> weight`` with ``a < b``."""
    return {(a, b): float(w) for a, b, w in conn.execute("SELECT a, b, weight FROM query_entity_edges")}
