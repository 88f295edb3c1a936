"""Query log: one row per search served by the HTTP API, in PostgreSQL table ``query_log`` (migration 0003).

A query log is any callable taking one record ``{"query", "entities", "hits", "bundle"}``; the API calls it
after the response is sent and never lets a logging failure fail a search.
"""

from __future__ import annotations

import logging
import threading

import psycopg
from psycopg.types.json import Jsonb

log = logging.getLogger(__name__)

INSERT = "INSERT INTO query_log (query, entities, hits, bundle) VALUES (%s, %s, %s, %s)"


class PostgresQueryLog:
    """Writes records to ``query_log`` over one lazily opened autocommit connection (reopened after an error).

    Thread-safe: the API calls it from its worker threads; writes are serialised on the connection.
    """

    def __init__(self, url: str, connect_timeout: int = 5):
        self.url = url
        self.connect_timeout = connect_timeout
        self._conn: psycopg.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=self.connect_timeout)
        return self._conn

    def __call__(self, record: dict) -> None:
        params = (record["query"], Jsonb(list(record.get("entities") or [])), Jsonb(list(record.get("hits") or [])),
                  record.get("bundle"))
        with self._lock:
            for attempt in (1, 2):
                try:
                    self._connection().execute(INSERT, params)
                    return
                except psycopg.OperationalError:
                    # A dropped connection (server restart, idle timeout): reopen once, then give up.
                    self._close_locked()
                    if attempt == 2:
                        raise

    def _close_locked(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # pragma: no cover - closing a broken connection
                pass
            self._conn = None

    def close(self) -> None:
        with self._lock:
            self._close_locked()
