"""Writes done off the reactor thread (where a write holds up every download meanwhile): one worker thread with a
connection of its own, in the order they were handed over, all waited for when the crawl closes."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import psycopg

logger = logging.getLogger(__name__)


class BackgroundWriter:
    def __init__(self, database_url: str, name: str, stats=None, failed_stat: str | None = None):
        self.database_url = database_url
        self.name = name
        self.stats = stats
        self.failed_stat = failed_stat
        self._executor: ThreadPoolExecutor | None = None
        self._conn: psycopg.Connection | None = None

    def submit(self, write: Callable[[psycopg.Connection], object], what: str) -> None:
        """``write(conn)`` on the worker thread; a failure is logged with ``what`` and counted."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"mendel-{self.name}")
        future = self._executor.submit(self._run, write)
        future.add_done_callback(lambda done: self._failed(what, done))

    def _run(self, write) -> None:
        if self._conn is None:
            self._conn = psycopg.connect(self.database_url, autocommit=True)
        write(self._conn)

    def _failed(self, what: str, done) -> None:
        if done.exception() is not None:
            logger.error("%s not recorded: %s", what, done.exception())
            if self.stats is not None and self.failed_stat:
                self.stats.inc_value(self.failed_stat)

    def close(self) -> None:
        """Wait for every write handed over, then close the connection."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        if self._conn is not None:
            self._conn.close()
