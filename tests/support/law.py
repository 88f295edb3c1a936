"""Databases the law tests share: the real e-Sbírka crawl of the local mirror (and, where asked, court crawls and
the processing stages), crawled once per session and copied for each test module that asks; and vyhláška 573/2025 Sb.
in time — its three real versions crawled and indexed as the nightly indexes them, for search on a date."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
import uuid
from datetime import date
from pathlib import Path

import psycopg
import pytest

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner
from tests.support.databases import copy_database
from tests.support.index import RecordingEmbedder, run_index

# (server, crawls, process) -> (template database, the home its crawl wrote): a crawl costs seconds, a copy doesn't.
_crawled: dict[tuple[str, str, bool], tuple[str, Path]] = {}


def crawled_database(pg_server_url: str, home: Path, crawls: list[tuple[str, dict]], process: bool = False) -> str:
    """A fresh database after each (spider, env) crawl against the mirror, and ``home`` as the crawl left it (its raw
    store); with ``process`` also extraction, chunking and recognition (the nightly stages before indexing). The same
    crawls are run once per session: later calls get a copy (``CREATE DATABASE … TEMPLATE`` and the home's files)."""
    key = (pg_server_url, json.dumps(crawls, sort_keys=True), process)
    if key not in _crawled:
        template_home = Path(tempfile.mkdtemp(prefix="mendel-crawled-"))
        atexit.register(shutil.rmtree, template_home, ignore_errors=True)
        _crawled[key] = (_crawl(pg_server_url, template_home, crawls, process), template_home)
    template, template_home = _crawled[key]
    url = copy_database(pg_server_url, template, f"law_{uuid.uuid4().hex[:10]}")
    shutil.copytree(template_home, home, symlinks=True, dirs_exist_ok=True)
    return url


def _crawl(pg_server_url: str, home: Path, crawls: list[tuple[str, dict]], process: bool) -> str:
    """The crawls run into a new database (its name returned; no connection is left open on it)."""
    from mendel.core.rawstore import RawStore
    from mendel.nightly import chunk_stage, extract_stage, recognise_stage

    name = f"crawled_{uuid.uuid4().hex[:10]}"
    url = db.create_database(pg_server_url, name)
    db.migrate(url)
    with MirrorThread(SAMPLE_CORPUS) as mirror, pytest.MonkeyPatch.context() as patch:
        crawl = crawl_runner(patch, home, url, mirror.base_url)
        for number, (spider, env) in enumerate(crawls):
            crawl(spider, f"law-{number}", **env)
    with psycopg.connect(url, autocommit=True) as conn:
        extract_stage.extract_pending(conn, RawStore(home / "raw"))
        if process:
            chunk_stage.chunk_pending(conn)
            recognise_stage.recognise_pending(conn)
    return name


def cited_database(pg_server_url: str, home: Path, crawls: list[tuple[str, dict]]) -> str:
    """A processed crawled database (:func:`crawled_database`) with the citator's tables built."""
    from mendel.citator import build as citator

    url = crawled_database(pg_server_url, home, crawls, process=True)
    with psycopg.connect(url, autocommit=True) as conn:
        citator.build(conn)
    return url


# --- vyhláška 573/2025 Sb. in time: the promulgated PDF, the consolidated versions of 1. 6. and 1. 10. 2026 ---------

ACT = "/eli/cz/sb/2025/573"
LATEST = "2026-10-01"
QUERY = "průměrná cena benzinu automobilového 95 oktanů za 1 litr"
AFTER_ALL = date(2026, 11, 15)  # a fixed "today" after the last version took effect
BEFORE_AMENDMENTS = date(2026, 3, 1)


IN_FORCE_CRAWL = ("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/573"})


def provision_of(section: str) -> str:
    """The provision a section path ends in (the path carries the headings above it: ``Výše stravného > § 4``)."""
    return section.rsplit(" > ", 1)[-1]


def section_4(hits) -> list:
    return [h for h in hits if h.doc_id == ACT and provision_of(h.section) == "§ 4"]


def changed_sections(conn, older: str, newer: str) -> int:
    """§§ whose whole wording differs between two stored versions (from the provisions the crawl stored)."""
    return conn.execute(
        "SELECT count(*) FROM provisions a JOIN provisions b ON b.doc_id = a.doc_id AND b.provision_id = a.provision_id"
        " WHERE a.doc_id = %s AND a.version = %s AND b.version = %s AND a.kind = 'Paragraf'"
        " AND a.wording_sha <> b.wording_sha",
        (ACT, older, newer),
    ).fetchone()[0]


def index_in_two_steps(pg_server_url: str, home: Path) -> dict:
    """The act crawled with its three versions; indexed first as if the 1. 10. 2026 version were not yet
    published, then again after it is (its rows put back as the crawl stored them)."""
    from mendel.index import bundle

    url = crawled_database(pg_server_url, home, [IN_FORCE_CRAWL])
    embedder = RecordingEmbedder()
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM act_versions WHERE doc_id = %s", (ACT,)).fetchone()[0] == 3
        changed = changed_sections(conn, "2026-06-01", LATEST)
        with conn.transaction():
            for table in ("act_versions", "provisions", "act_references"):
                conn.execute(
                    f"CREATE TEMP TABLE saved_{table} AS SELECT * FROM {table} WHERE doc_id = %s AND version = %s",
                    (ACT, LATEST),
                )
            ended = conn.execute(
                "SELECT effective_to FROM act_versions WHERE doc_id = %s AND version = '2026-06-01'", (ACT,)
            ).fetchone()[0]
            conn.execute("DELETE FROM act_versions WHERE doc_id = %s AND version = %s", (ACT, LATEST))
            conn.execute(
                "UPDATE act_versions SET effective_to = NULL WHERE doc_id = %s AND version = '2026-06-01'", (ACT,)
            )
        first = run_index(conn, home, embedder)
        embedded_first = list(embedder.embedded)
        with conn.transaction():
            for table in ("act_versions", "provisions", "act_references"):
                conn.execute(f"INSERT INTO {table} SELECT * FROM saved_{table}")
            conn.execute(
                "UPDATE act_versions SET effective_to = %s WHERE doc_id = %s AND version = '2026-06-01'", (ended, ACT)
            )
        second = run_index(conn, home, embedder)
    path = bundle.current_bundle(home / "bundles")
    return {
        "home": home,
        "first": first,
        "second": second,
        "changed": changed,
        "embedder": embedder,
        "embedded_second": embedder.embedded[len(embedded_first) :],
        "path": path,
        "chunks": [c for c in bundle.layer_rows(path, 3) if c["doc_id"] == ACT],
    }


def both_backends(pg_server_url: str, home: Path) -> dict:
    """The act crawled with its three versions, indexed as the nightly does, lexemes filled: the postgres
    searcher over the database and the bundle searcher over the bundle published from it (close ``postgres``)."""
    from mendel.index import bundle
    from mendel.index.fulltext import fill_lexemes
    from serving.ranking.pg_search import PostgresSearcher
    from serving.ranking.search import Searcher

    url = crawled_database(pg_server_url, home, [IN_FORCE_CRAWL])
    embedder = RecordingEmbedder()
    with psycopg.connect(url, autocommit=True) as conn:
        run_index(conn, home, embedder)
        fill_lexemes(conn)
    path = bundle.current_bundle(home / "bundles")
    return {
        "postgres": PostgresSearcher(path, embedder=embedder, database_url=url),
        "bundle": Searcher(path, embedder=embedder),
    }
