"""Crash and resume: a run killed with SIGKILL while crawling, while indexing and while publishing a bundle leaves
nothing the next run duplicates, and serving never loads a partial bundle.

One database and one MENDEL_HOME go through the whole story, test by test (they build on each other, in file
order): two real acts crawled from the local mirror, a crawl killed with one document stored and the other's PDF
in flight, the next run killed while embedding and then completed, a graph build killed mid-write, publishes
killed after the first index part was staged and just before CURRENT was switched, and a last complete publish. Every kill happens at a
controlled point (the mirror holds a download; tests/support/crash_resume.py waits at a named call), never after a
guessed delay. The embedder is a deterministic stand-in (see crash_resume_helpers.StandInEmbedder).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
import warnings
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest
from dagster import DagsterInstance

from mendel.core import db
from mendel.core.config import PROJECT_ROOT, SAMPLE_CORPUS
from mendel.index import bundle
from mirror.server import MirrorThread
from serving.ranking.search import Searcher
from tests.support.crash_resume import STAND_IN_EMBEDDER, register_stand_in, resources, run_nightly

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.e2e  # one story, test by test: none of them runs alone

ACTS = "/sb/2024/87,/sb/2025/573"
WITHDRAWN = "/eli/cz/sb/2024/87"
WAIT_S = 240  # the slowest child (a Dagster run) on a busy machine; only a hang ever waits this long


class DownloadGate:
    """Lets the first PDF download of the mirror through and holds every later one until released."""

    def __init__(self, server):
        self.held = threading.Event()
        self.released = threading.Event()
        self._first: str | None = None
        self._lock = threading.Lock()
        route = server.route

        def gated(method, path, *args):
            if "/souborove-dokumenty/" in path and not self.released.is_set():
                with self._lock:
                    self._first = self._first or path
                    hold = path != self._first
                if hold:
                    self.held.set()
                    self.released.wait(WAIT_S)
            return route(method, path, *args)

        server.route = gated


@pytest.fixture(scope="module")
def world(tmp_path_factory, pg_server_url):
    home = tmp_path_factory.mktemp("crash-home")
    database_url = db.create_database(pg_server_url, f"crash_{uuid.uuid4().hex[:10]}")
    db.migrate(database_url)
    with MirrorThread(SAMPLE_CORPUS) as mirror:
        gate = DownloadGate(mirror.server)
        yield SimpleNamespace(
            home=home,
            bundles=home / "bundles",
            database_url=database_url,
            mirror=mirror,
            gate=gate,
            embedder=register_stand_in(),
            versions={},
        )
        gate.released.set()


def child_env(world, **extra) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "CRASH_HOME": str(world.home),
            "CRASH_DATABASE_URL": world.database_url,
            "CRASH_MIRROR_URL": world.mirror.base_url,
            "CRASH_ACTS": ACTS,
            "PYTHONPATH": str(PROJECT_ROOT),
        }
    )
    env.update(extra)
    return env


def kill_when(args: list[str], env: dict, ready, log: Path) -> None:
    """Start ``args`` in its own process group, wait until ``ready()``, then SIGKILL the whole group."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            args, env=env, cwd=PROJECT_ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + WAIT_S
    try:
        while not ready():
            if process.poll() is not None:
                pytest.fail(
                    f"the child ended (exit {process.returncode}) before its stopping point:\n"
                    f"{log.read_text(errors='replace')[-4000:]}"
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"the child did not reach its stopping point in {WAIT_S} s:\n"
                    f"{log.read_text(errors='replace')[-4000:]}"
                )
            time.sleep(0.05)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL


def kill_at(world, mode: str, point: str, tmp_path: Path) -> None:
    marker = tmp_path / f"{point}.reached"
    kill_when(
        [sys.executable, "-m", "tests.support.crash_resume", mode],
        child_env(world, CRASH_AT=point, CRASH_MARKER=str(marker)),
        marker.exists,
        tmp_path / f"{point}.log",
    )


def scalar(world, sql: str, *params):
    with psycopg.connect(world.database_url) as conn:
        return conn.execute(sql, params).fetchone()[0]


def assert_no_duplicates(world) -> None:
    """One row per document, per (document, content) version and per chunk position; nothing left over for a
    superseded version; raw blobs are exactly their hash."""
    with psycopg.connect(world.database_url) as conn:
        for sql in (
            "SELECT count(*) - count(DISTINCT doc_id) FROM documents",
            "SELECT count(*) - count(DISTINCT (doc_id, sha256)) FROM document_versions",
            # a passage of another act version has no offsets in the stored text: one per provision wording
            "SELECT count(*) - count(DISTINCT (version_id, layer, char_start, char_end)) FROM chunks"
            " WHERE chunk_id NOT IN (SELECT chunk_id FROM act_passages)",
            "SELECT count(*) - count(DISTINCT (doc_id, provision_id, wording_sha)) FROM act_passages",
            "SELECT count(*) - count(DISTINCT (chunk_id, start_char, end_char)) FROM mentions",
            "SELECT count(*) FROM chunks c JOIN documents d USING (doc_id) WHERE c.version_id <> d.current_version_id",
            "SELECT count(*) FROM documents WHERE current_version_id IS NULL",
        ):
            assert conn.execute(sql).fetchone()[0] == 0, sql
    for blob in (world.home / "raw").rglob("*"):
        if blob.is_file() and len(blob.name) == 64:
            assert hashlib.sha256(blob.read_bytes()).hexdigest() == blob.name


def live_corpus_ids(world) -> list[str]:
    from mendel.index.corpus import load_layer

    with psycopg.connect(world.database_url) as conn:
        return [r.chunk_id for r in load_layer(conn, 3)]


def assert_serving(world, version: str | None) -> None:
    """Serving loads exactly ``version`` (None: nothing published yet), complete and verified."""
    if version is None:
        with pytest.raises(bundle.BundleError, match="no published bundle"):
            Searcher.latest(world.bundles, embedder=world.embedder)
        return
    path = bundle.current_bundle(world.bundles, verify=True)
    searcher = Searcher.latest(world.bundles, embedder=world.embedder)
    assert path.name == searcher.path.name == version
    assert len(searcher.chunks) == searcher.manifest["counts"]["chunks"]
    ready = TestClient(_app(world)).get("/ready")
    assert ready.status_code == 200 and ready.json()["version"] == version


def _app(world):
    from serving.web.api import create_app

    return create_app(world.bundles, embedder=world.embedder, reload_interval=0)


class BundleReader(threading.Thread):
    """Loads the live bundle over and over, as a serving process would, while a publisher is killed."""

    def __init__(self, world):
        super().__init__(daemon=True)
        self.world, self.stop, self.seen, self.errors = world, threading.Event(), set(), []

    def run(self):
        while not self.stop.is_set():
            try:
                searcher = Searcher.latest(self.world.bundles, embedder=self.world.embedder)
                bundle.current_bundle(self.world.bundles, verify=True)
                if len(searcher.chunks) != searcher.manifest["counts"]["chunks"]:
                    self.errors.append(f"{searcher.path.name}: chunk count differs from its manifest")
                self.seen.add(searcher.path.name)
            except Exception as exc:  # noqa: BLE001 - any failed load fails the test
                self.errors.append(f"{type(exc).__name__}: {exc}")

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join(timeout=30)


def rebuild(conn, world, *builds) -> None:
    for build in builds:
        part = {"build_bm25": "bm25", "build_faiss": "dense", "build_graph": "graph"}[build.__name__]
        build(conn, world.home / "build" / part)


def leftovers(world, prefix: str) -> list[str]:
    return sorted(p.name for p in world.bundles.iterdir() if p.name.startswith(prefix))


# --- the story ---------------------------------------------------------------------------------------------------


def test_crawl_killed_with_a_download_in_flight(world, tmp_path):
    env = dict(os.environ)
    env.update(resources(world.home, world.database_url, world.mirror.base_url, ACTS).subprocess_env("crash-crawl"))
    count = "SELECT count(*) FROM documents WHERE source = 'esbirka'"
    kill_when(
        [sys.executable, "-m", "crawlers.run", "esbirka"],
        env,
        lambda: world.gate.held.is_set() and scalar(world, count) == 1,
        tmp_path / "crawl.log",
    )
    # One act stored; the other was being downloaded: no document, no version, no partial blob for it.
    assert scalar(world, count) == 1
    assert scalar(world, "SELECT count(*) FROM document_versions") == 1
    assert_no_duplicates(world)
    assert not (world.bundles / bundle.CURRENT).exists()
    world.gate.released.set()


def test_next_run_killed_while_embedding(world, tmp_path):
    kill_at(world, "nightly", "embedding", tmp_path)
    # The resumed crawl finished the second act without repeating the first; each act got its metadata record.
    crawled = "d.doc_type IS DISTINCT FROM 'act_metadata'"
    assert scalar(world, f"SELECT count(*) FROM documents d WHERE {crawled}") == 2
    assert scalar(world, f"SELECT count(*) FROM document_versions JOIN documents d USING (doc_id) WHERE {crawled}") == 2
    assert scalar(world, "SELECT count(*) FROM documents WHERE doc_type = 'act_metadata'") == 2
    assert scalar(world, "SELECT count(*) FROM chunks WHERE layer = 3") > 8
    # Two batches were committed to the cache before the kill; no chunk vector was written yet.
    assert scalar(world, "SELECT count(*) FROM embedding_cache WHERE model = %s", STAND_IN_EMBEDDER) == 8
    assert scalar(world, "SELECT count(*) FROM chunks WHERE layer = 3 AND embedding IS NOT NULL") == 0
    assert_no_duplicates(world)
    assert_serving(world, None)


def test_resumed_run_completes_and_keeps_the_paid_work(world):
    chunks_before = scalar(world, "SELECT count(*) FROM chunks")
    with DagsterInstance.ephemeral() as instance:
        result = run_nightly(world.home, world.database_url, world.mirror.base_url, ACTS, instance)
    assert result.success
    metadata = {
        e.event_specific_data.materialization.asset_key.to_user_string(): {
            k: v.value for k, v in e.event_specific_data.materialization.metadata.items()
        }
        for e in result.all_events
        if e.event_type_value == "ASSET_MATERIALIZATION"
    }
    assert metadata["esbirka_documents"]["stored"] == 0  # both acts were already in
    assert metadata["document_chunks"]["chunks"] == 0 and scalar(world, "SELECT count(*) FROM chunks") == chunks_before
    embedded = metadata["chunk_embeddings"]
    # The 8 vectors paid for before the kill are not paid again (passages with the same dense text share one).
    assert embedded["cache_hits"] >= 8 and embedded["embedded"] + embedded["cache_hits"] == embedded["chunks"]
    wordings = metadata["faiss_index"]["wordings_embedded"]  # the provisions' lay wordings, beside the FAISS index
    assert 0 < wordings <= metadata["faiss_index"]["wording_provisions"]  # one vector for texts alike
    assert (
        scalar(world, "SELECT count(*) FROM embedding_cache WHERE model = %s", STAND_IN_EMBEDDER)
        == 8 + embedded["embedded"] + wordings
    )
    assert scalar(world, "SELECT count(*) FROM chunks WHERE layer = 3 AND embedding IS NULL") == 0
    assert_no_duplicates(world)
    version = bundle.current_version(world.bundles)
    assert version and metadata["index_bundle"]["version"] == version
    assert [c["chunk_id"] for c in Searcher.latest(world.bundles, embedder=world.embedder).chunks] == live_corpus_ids(
        world
    )
    assert_serving(world, version)
    world.versions["first"] = version


def test_graph_build_killed_mid_write_is_never_published(world, tmp_path):
    from mendel.nightly import index_stage, publish_stage

    first = world.versions["first"]
    with psycopg.connect(world.database_url, autocommit=True) as conn:
        # A withdrawal changes every index; BM25 and FAISS are rebuilt completely, the graph build is killed.
        conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = %s", (WITHDRAWN,))
        rebuild(conn, world, index_stage.build_bm25, index_stage.build_faiss)
    kill_at(world, "graph", "graph-write", tmp_path)
    assert not (world.home / "build" / "graph" / "graph.json").exists()
    with psycopg.connect(world.database_url, autocommit=True) as conn:
        with pytest.raises(bundle.BundleError, match="graph"):
            publish_stage.publish_bundle(conn, world.home / "build", world.bundles, model=STAND_IN_EMBEDDER)
    assert bundle.current_version(world.bundles) == first
    assert leftovers(world, ".staging-") == []  # the refused staging directory was removed
    assert_serving(world, first)


def test_publish_killed_after_staging_the_first_part(world, tmp_path):
    first = world.versions["first"]
    with BundleReader(world) as reader:
        kill_at(world, "publish", "bundle-copy", tmp_path)
        time.sleep(0.2)  # a few more loads after the kill; correctness does not depend on it
    assert reader.errors == [] and reader.seen == {first}
    assert len(leftovers(world, ".staging-")) == 1  # what the killed publisher left
    assert bundle.list_versions(world.bundles) == [first]
    assert_serving(world, first)


def test_publish_killed_before_switching_current(world, tmp_path):
    from mendel.nightly import index_stage

    first = world.versions["first"]
    with psycopg.connect(world.database_url, autocommit=True) as conn:  # the graph of the withdrawal, complete
        rebuild(conn, world, index_stage.build_graph)
    with BundleReader(world) as reader:
        kill_at(world, "publish", "bundle-current", tmp_path)
        time.sleep(0.2)
    assert reader.errors == [] and reader.seen == {first}
    # The new version is complete in place, but not live; the killed run's CURRENT temp file is left over.
    assert len(bundle.list_versions(world.bundles)) == 2
    assert bundle.current_version(world.bundles) == first and len(leftovers(world, ".current-")) == 1
    assert_serving(world, first)


def test_next_publish_completes_cleans_up_and_serves_the_new_bundle(world):
    from mendel.nightly import publish_stage

    first = world.versions["first"]
    with psycopg.connect(world.database_url, autocommit=True) as conn:  # what the index_bundle asset runs
        result = publish_stage.publish_bundle(conn, world.home / "build", world.bundles, model=STAND_IN_EMBEDDER)
    version = bundle.current_version(world.bundles)
    assert result["published"] and result["version"] == version != first
    assert leftovers(world, ".staging-") == leftovers(world, ".current-") == leftovers(world, ".trash-") == []
    assert_no_duplicates(world)
    searcher = Searcher.latest(world.bundles, embedder=world.embedder)
    ids = [c["chunk_id"] for c in searcher.chunks]
    assert ids == live_corpus_ids(world) and len(ids) == len(set(ids))
    # (the acts' metadata records are rendered by the nightly's extraction step, which this publish does not run)
    acts = {doc_id for doc_id in searcher.documents if not doc_id.startswith("act-metadata:")}
    assert WITHDRAWN not in acts and len(acts) == 1 and result["documents"] == len(searcher.documents)
    manifest = json.loads((world.bundles / version / bundle.MANIFEST).read_text())
    assert manifest["model"] == STAND_IN_EMBEDDER
    assert_serving(world, version)
