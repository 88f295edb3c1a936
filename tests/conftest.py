"""Shared fixtures: one embedded PostgreSQL per session, a fresh database per test that asks for one, the local
mirror, one real nightly run on a small slice of the sample corpus, and the other set-ups several packages' tests
read (the small bundle's documents, a Bolt server, the act 573/2025 Sb. on both serving backends)."""

from __future__ import annotations

import copy
import os
import shutil
import signal
import tempfile
import uuid
from pathlib import Path

import psycopg
import pytest

from mendel.core import db
from mendel.core.config import SAMPLE_CORPUS
from tests.support.databases import Dropper, copy_database
from tests.support.nightly import run_nightly

# OpenMP threads (FAISS's) that wait for work sleep instead of spinning: the test processes (2 xdist workers, and what
# they start) share two cores, where a spinning thread holds the core another process needs (the IVF-PQ layer of
# test_segments trained in ~1 s alone, ~15 s beside a busy process). Set here, before collection imports FAISS.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Session fixtures that run the nightly or crawl (or drive Chromium): a test that reads one carries the marker, so that
# `make test-fast` (-m "not e2e and not browser and not slow") never sets them up.
FIXTURE_MARKERS = {"nightly": "e2e", "searchers": "e2e", "indexed": "e2e", "browser": "browser"}


# The files that take longest (a minute's wait for the daemon's tick, a Celery broker and workers, whole crawls), run
# first: each worker takes whole files in collection order, and one of these started last ran alone for a minute or
# more while the other worker had nothing left (`pytest --durations=40`, 2026-12-05).
LONGEST_FIRST = (
    "tests/orchestration/test_daemon_schedule_after_kill.py",
    "tests/orchestration/test_ops_celery.py",
    "tests/crawlers/test_spiders_esbirka_register.py",
    "tests/crawlers/test_faults_crawl.py",
    "tests/mendel/law/test_citator.py",
    "tests/mirror/test_mirror_openapi.py",
)


# Session set-ups too dear to make twice (the nightly run alone 40-50 s on two busy cores) and the files that read them:
# each group's files go to one test process, which makes the set-up once (by file, xdist spreads them over both
# processes and each makes its own). A file reading one of these fixtures must be listed in its group (checked at
# collection).
SHARED_SETUPS = {
    "nightly": (
        {"nightly"},
        (
            "tests/orchestration/test_ops_celery.py",
            "tests/cli/test_cli.py",
            "tests/retrieval_eval/test_eval_report.py",
            "tests/e2e/test_nightly_e2e.py",
            "tests/mendel/checks/test_doctor.py",
            "tests/orchestration/test_ops_crawl_runs.py",
        ),
    ),
    "in force": (
        {"indexed", "searchers"},
        (
            "tests/serving/web/test_search_page.py",
            "tests/serving/ranking/test_search_in_force.py",
            "tests/serving/ranking/test_pg_in_force.py",
            "tests/mendel/law/test_document_in_force.py",
        ),
    ),
    "bolt": (
        {"bolt_server"},
        (
            "tests/e2e/test_hostile_input.py",
            "tests/mendel/index/test_neo4j_export_law.py",
            "tests/mendel/index/test_neo4j_export.py",
            "tests/orchestration/test_secrets.py",
        ),
    ),
}
SETUP_GROUP_OF_FILE = {path: group for group, (_, paths) in SHARED_SETUPS.items() for path in paths}


def pytest_xdist_make_scheduler(config, log):
    """By file, as ``--dist loadfile`` schedules, except that each group of :data:`SHARED_SETUPS` is one unit."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedSetupScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return SETUP_GROUP_OF_FILE.get(path, path)

    return SharedSetupScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    # the longest files, then the shared set-ups' groups (a unit of several files each): a big unit started last
    # runs alone at the end
    rank = {path: i for i, path in enumerate(dict.fromkeys([*LONGEST_FIRST, *SETUP_GROUP_OF_FILE]))}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: files stay whole
    ungrouped = sorted(
        {
            f"{item.nodeid.split('::', 1)[0]} reads {name}: list it in SHARED_SETUPS[{group!r}]"
            for item in items
            for group, (fixtures, _) in SHARED_SETUPS.items()
            for name in fixtures
            if name in item.fixturenames
            and _from_conftest(item, name)
            and SETUP_GROUP_OF_FILE.get(item.nodeid.split("::", 1)[0]) != group
        }
    )
    if ungrouped:
        raise pytest.UsageError("files outside the group of the session set-up they read:\n" + "\n".join(ungrouped))
    unmarked = [
        f"{item.nodeid}: reads {name}, so mark it {marker}"
        for item in items
        for name, marker in FIXTURE_MARKERS.items()
        if name in item.fixturenames and _from_conftest(item, name) and item.get_closest_marker(marker) is None
    ]
    if unmarked:
        raise pytest.UsageError("tests without the marker their fixtures call for:\n" + "\n".join(unmarked))


def _from_conftest(item, name: str) -> bool:
    """Whether ``name`` resolves to a conftest fixture for this test (a module may define its own of that name)."""
    definitions = item._fixtureinfo.name2fixturedefs.get(name) or ()
    return bool(definitions) and Path(definitions[-1].func.__code__.co_filename).name == "conftest.py"


@pytest.fixture(autouse=True)
def sigterm_as_before_the_test():
    """Put SIGTERM's disposition back after each test. A Dagster run in this process (materialize,
    execute_in_process: dagster._utils.interrupts.capture_interrupts) maps SIGTERM to SIGINT's handler and never
    maps it back; when pytest runs with SIGINT ignored (a background job of a non-interactive shell, nohup) that
    leaves SIGTERM ignored, and every process a later test starts inherits the ignored SIGTERM across exec."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    if signal.getsignal(signal.SIGTERM) != before:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before == signal.SIG_IGN else before)


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    # As root, pgserver runs PostgreSQL as its own user, which can't enter pytest's 0700 temp tree.
    base = Path(tempfile.mkdtemp(prefix="mendel-test-pg-"))
    base.chmod(0o755)
    url = db.embedded_url(base / "pgdata")
    # A server thrown away with the session needs no durability: without fsync, the hundreds of databases the tests
    # make cost no flush at each commit, and stopping the server and removing its files take seconds, not minutes.
    with psycopg.connect(url, autocommit=True) as conn:
        for setting in ("fsync = off", "full_page_writes = off", "synchronous_commit = off"):
            conn.execute(f"ALTER SYSTEM SET {setting}")
        conn.execute("SELECT pg_reload_conf()")
    yield url
    db.stop_embedded(base / "pgdata")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def migrated_template(pg_server_url) -> str:
    """The name of a database with every migration applied, never connected to after: what fresh_db copies."""
    name = f"migrated_{uuid.uuid4().hex[:8]}"
    db.migrate(db.create_database(pg_server_url, name))
    return name


@pytest.fixture(scope="session")
def dropper(pg_server_url):
    """Drops the databases tests are done with, in the background (tests/support/databases.py)."""
    dropper = Dropper(pg_server_url)
    yield dropper
    assert dropper.close() == []


@pytest.fixture
def fresh_db(pg_server_url, migrated_template, dropper) -> str:
    """A new, migrated database of the test's own (a copy of the template: cheaper than migrating), dropped after."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    yield copy_database(pg_server_url, migrated_template, name)
    dropper.drop(name)


@pytest.fixture(scope="session")
def mirror():
    from mirror.server import MirrorThread

    with MirrorThread(SAMPLE_CORPUS) as running:
        yield running


@pytest.fixture(scope="session")
def nightly(tmp_path_factory, pg_server_url, mirror):
    """The nightly job, run once for real: mirror → Scrapy subprocess → PostgreSQL → indexes → bundle."""
    from dagster import DagsterInstance

    home = tmp_path_factory.mktemp("home")
    database_url = db.create_database(pg_server_url, f"nightly_{uuid.uuid4().hex[:8]}")
    # disposed at the session's end: an ephemeral instance holds a connection to its in-memory SQLite, which the
    # interpreter's exit otherwise closes first ("Cannot operate on a closed database" from SQLAlchemy's pool)
    with DagsterInstance.ephemeral() as instance:
        result = run_nightly(home, database_url, mirror.base_url, instance)
        yield {
            "home": home,
            "database_url": database_url,
            "mirror_url": mirror.base_url,
            "result": result,
            "instance": instance,
        }


@pytest.fixture
def cli_env(nightly) -> dict[str, str]:
    from mendel.encoder.runtime import CACHE_ENV, cache_dir

    env = dict(os.environ)
    env.update({"MENDEL_HOME": str(nightly["home"]), "MENDEL_DATABASE_URL": nightly["database_url"]})
    # the converted encoder the nightly ran (`make setup` prepares it), not a conversion into the nightly's home at
    # the first query (test_encoder_e5 tests the conversion)
    env[CACHE_ENV] = str(cache_dir())
    return env


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    """The real documents of the small test bundle (tests/support/bundle.py), a module's own copy to change."""
    from tests.support.bundle import load_corpus

    return copy.deepcopy(load_corpus())


@pytest.fixture(scope="session")
def bolt_server():
    """One real Bolt server (ArcadeDB) for the session: ``{"url", "password", "startup_s", "root"}``."""
    pytest.importorskip("arcadedb_embedded", reason="the Bolt test server comes with the test extra")
    pytest.importorskip("neo4j")
    from tests.support.bolt_server import running_bolt_server

    with running_bolt_server() as server:
        yield server


@pytest.fixture(scope="session")
def searchers(pg_server_url, tmp_path_factory):
    """vyhláška 573/2025 Sb. in time on both serving backends, ``{"postgres", "bundle"}`` (tests/support/law.py);
    the tests only read them."""
    from tests.support.law import both_backends

    found = both_backends(pg_server_url, tmp_path_factory.mktemp("pg-in-force-home"))
    yield found
    found["postgres"].close()
