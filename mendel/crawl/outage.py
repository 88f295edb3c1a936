"""A database outage during a crawl: recognised at once, reported once, and nothing of the run lost.

When PostgreSQL goes away mid-crawl, every further write would fail the same way; the crawl instead stops at the
first failure (:class:`DatabaseOutage`), and what it could not write — the outcomes of URLs already answered, the
documents already in the raw store, the URLs still waiting to be fetched (quarantined as ``database outage: not
fetched``, resolved when a later crawl fetches them) and the run's own record — goes to a spool file, one JSON line
each (:class:`OutageSpool`). The next crawl writes the spool into ``crawl_log`` / ``documents`` / ``crawl_runs``
before it starts (:func:`replay_spools`), so the stopped run reconciles like any other
(``discovered = stored + unchanged + quarantined + disallowed``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import psycopg

from mendel.crawl import crawlstate

# The crawl process's exit status when it stopped for a database outage (EX_TEMPFAIL).
OUTAGE_EXIT_CODE = 75
NOT_FETCHED = "database outage: not fetched (the crawl stopped)"


class DatabaseOutage(RuntimeError):
    """PostgreSQL cannot be reached: no retry can help until it is back."""


def is_outage(exc: BaseException) -> bool:
    """True for a lost or refused connection (not for a query's own error: a constraint, a deadlock, a cancel)."""
    if isinstance(exc, DatabaseOutage):
        return True
    if isinstance(exc, psycopg.InterfaceError):  # "the connection is closed"
        return True
    sqlstate = getattr(exc, "sqlstate", None) or ""
    if sqlstate.startswith("40") or sqlstate == "57014":  # a deadlock or serialization failure, a cancelled query
        return False
    return isinstance(exc, psycopg.OperationalError)


def describe(exc: BaseException) -> str:
    """The outage in one line (psycopg's messages run over several)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else 'connection lost'}"[:300]


def database_reachable(database_url: str, timeout_s: int = 5) -> bool:
    try:
        with psycopg.connect(database_url, connect_timeout=timeout_s) as conn:
            conn.execute("SELECT 1")
        return True
    except psycopg.Error as exc:
        if is_outage(exc):
            return False
        raise


class OutageSpool:
    """One run's writes that could not reach the database, appended as JSON lines (thread-safe)."""

    def __init__(self, directory: Path | str, source: str, run_id: str | None):
        self.path = Path(directory) / f"{source}--{run_id or 'norun'}.jsonl"
        self.source, self.run_id = source, run_id
        self._lock = threading.Lock()
        self.entries = 0

    def _write(self, entry: dict) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
            self.entries += 1

    def outcome(self, **fields) -> None:
        """What :func:`mendel.crawl.crawlstate.log_outcome` would have written."""
        self._write({"kind": "outcome", "fields": {"run_id": self.run_id, "source": self.source, **fields}})

    def document(self, **fields) -> None:
        """What :func:`mendel.crawl.crawlstate.record_document` would have written (the body is in the raw store)."""
        self._write({"kind": "document", "fields": {"run_id": self.run_id, "source": self.source, **fields}})

    def run(self, **fields) -> None:
        """What :func:`mendel.crawl.crawlstate.record_run` would have written."""
        self._write({"kind": "run", "fields": {"run_id": self.run_id, "source": self.source, **fields}})


def replay_spool(conn: psycopg.Connection, path: Path) -> int:
    """Write one spool into the database (one transaction) and delete it; returns the entries written."""
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    writers = {"outcome": crawlstate.log_outcome, "document": crawlstate.record_document, "run": crawlstate.record_run}
    with conn.transaction():
        for entry in entries:
            writers[entry["kind"]](conn, **entry["fields"])
    path.unlink()
    return len(entries)


def replay_spools(database_url: str, directory: Path | str) -> dict[str, int]:
    """Every spool left by a crawl that stopped for an outage, written now: {spool file name: entries}."""
    directory = Path(directory)
    written: dict[str, int] = {}
    if not directory.is_dir():
        return written
    with psycopg.connect(database_url, autocommit=True) as conn:
        for path in sorted(directory.glob("*.jsonl")):
            written[path.name] = replay_spool(conn, path)
    return written


__all__ = [
    "NOT_FETCHED",
    "OUTAGE_EXIT_CODE",
    "DatabaseOutage",
    "OutageSpool",
    "database_reachable",
    "describe",
    "is_outage",
    "replay_spool",
    "replay_spools",
]
