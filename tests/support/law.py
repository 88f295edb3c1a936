"""A database the law tests share: the real e-Sbírka crawl of the local mirror (and, where asked, court crawls and
the processing stages), built once per test module."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner


def crawled_database(pg_server_url: str, home: Path, crawls: list[tuple[str, dict]], process: bool = False) -> str:
    """A fresh database after each (spider, env) crawl against the mirror; with ``process`` also extraction,
    chunking and recognition (the nightly stages before indexing)."""
    url = db.create_database(pg_server_url, f"law_{uuid.uuid4().hex[:10]}")
    db.migrate(url)
    with MirrorThread(SAMPLE_CORPUS) as mirror, pytest.MonkeyPatch.context() as patch:
        crawl = crawl_runner(patch, home, url, mirror.base_url)
        for number, (spider, env) in enumerate(crawls):
            crawl(spider, f"law-{number}", **env)
    import psycopg

    from mendel.core.rawstore import RawStore
    from mendel.nightly import chunk_stage, extract_stage, recognise_stage

    with psycopg.connect(url, autocommit=True) as conn:
        extract_stage.extract_pending(conn, RawStore(home / "raw"))
        if process:
            chunk_stage.chunk_pending(conn)
            recognise_stage.recognise_pending(conn)
    return url


def cited_database(pg_server_url: str, home: Path, crawls: list[tuple[str, dict]]) -> str:
    """A processed crawled database (:func:`crawled_database`) with the citator's tables built."""
    url = crawled_database(pg_server_url, home, crawls, process=True)
    import psycopg

    from mendel.citator import build as citator

    with psycopg.connect(url, autocommit=True) as conn:
        citator.build(conn)
    return url
