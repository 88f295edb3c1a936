"""Query log: one row per search served by the HTTP API, in PostgreSQL table ``query_log`` (migrations 0003,
0013), and what the access log may show of a query (nothing).

A query log is any callable taking one record ``{"query", "entities", "hits", "bundle", "client"}``; the API calls
it after the response is sent and never lets a logging failure fail a search. ``client`` is
:func:`client_id` of the requester's address: a keyed hash, so the log can tell clients apart (the nightly fold
counts each client once per entity pair) without holding anyone's IP. The key is ``MENDEL_QUERY_LOG_KEY`` when
set (stable ids across restarts), otherwise random per process. Rows older than the retention
(``MENDEL_QUERY_LOG_RETENTION_DAYS``, default 90) are deleted by the nightly fold.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import threading

import psycopg
from psycopg.types.json import Jsonb

log = logging.getLogger(__name__)

INSERT = "INSERT INTO query_log (query, entities, hits, bundle, client) VALUES (%s, %s, %s, %s, %s)"
_PROCESS_KEY = secrets.token_bytes(32)


def client_id(address: str | None, key: bytes | None = None) -> str | None:
    """A 16-hex-digit keyed hash (HMAC-SHA256) of a client address; None without one."""
    if not address:
        return None
    if key is None:
        configured = os.environ.get("MENDEL_QUERY_LOG_KEY", "")
        key = configured.encode() if configured else _PROCESS_KEY
    return hmac.new(key, address.encode(), hashlib.sha256).hexdigest()[:16]


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
        params = (
            record["query"],
            Jsonb(list(record.get("entities") or [])),
            Jsonb(list(record.get("hits") or [])),
            record.get("bundle"),
            record.get("client"),
        )
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


# --- access log ----------------------------------------------------------------------------------

ACCESS_LOGGER = "uvicorn.access"
MAX_LOGGED_PATH = 200  # characters of a request's path an access line keeps


class WithoutQueryString(logging.Filter):
    """Drops the query string from uvicorn's access lines: ``GET /search?q=…`` is logged as ``GET /search``, so
    what people searched for is kept only where its retention applies (the query log); a path longer than
    ``MAX_LOGGED_PATH`` characters is cut there, so a request line never floods the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        # uvicorn logs '%s - "%s %s HTTP/%s" %d' with (client, method, path with query, http version, status)
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            path = args[2].split("?", 1)[0]
            if len(path) > MAX_LOGGED_PATH:
                path = path[:MAX_LOGGED_PATH] + "…"
            record.args = (*args[:2], path, *args[3:])
        return True


def drop_query_strings_from_access_log() -> None:
    """Install :class:`WithoutQueryString` on uvicorn's access logger (once)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, WithoutQueryString) for f in logger.filters):
        logger.addFilter(WithoutQueryString())
