"""Databases made by copying one already built (``CREATE DATABASE … TEMPLATE``): cheaper than migrating a fresh one
or crawling again. PostgreSQL copies only a template nobody is connected to, so templates are never handed out."""

from __future__ import annotations

import psycopg
from psycopg import sql

from mendel.core import db


def copy_database(server_url: str, template: str, name: str) -> str:
    """A new database ``name``, a copy of ``template`` on the same server; returns its URL."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
    return db.with_database(server_url, name)
