"""Databases made by copying one already built (``CREATE DATABASE … TEMPLATE``): cheaper than migrating a fresh one
or crawling again. PostgreSQL copies only a template nobody is connected to, so templates are never handed out.
And databases dropped in the background once a test is done with them, so that the server's files stay few."""

from __future__ import annotations

import queue
import threading

import psycopg
from psycopg import sql

from mendel.core import db


def copy_database(server_url: str, template: str, name: str) -> str:
    """A new database ``name``, a copy of ``template`` on the same server; returns its URL."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
    return db.with_database(server_url, name)


class Dropper:
    """Drops databases on a thread of its own: removing a database's few hundred files costs the server a moment
    that the tests need not wait for (on two cores it overlaps the next test), and removing thousands of them at
    the end of the session would cost minutes."""

    def __init__(self, server_url: str):
        self.server_url = server_url
        self.pending: queue.Queue[str | None] = queue.Queue()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, name="database-dropper", daemon=True)
        self.thread.start()

    def drop(self, name: str) -> None:
        self.pending.put(name)

    def close(self) -> list[str]:
        """Waits for every drop asked for; returns what failed."""
        self.pending.put(None)
        self.thread.join()
        return self.errors

    def _run(self) -> None:
        with psycopg.connect(self.server_url, autocommit=True) as conn:
            while (name := self.pending.get()) is not None:
                try:  # FORCE: a connection a test left open does not keep its database
                    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
                except psycopg.Error as exc:
                    self.errors.append(f"{name}: {exc}")
