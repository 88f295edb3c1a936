"""Embedding work survives a kill (mendel.index.embed.embed_with_cache commits each batch of vectors): the embed
stage SIGKILLed inside its third batch keeps the two batches before it, and the next run embeds only the rest."""

import os
import signal
import subprocess
import sys
import time

import psycopg

from mendel.core.config import PROJECT_ROOT
from mendel.index.corpus import dense_texts, load_layer
from mendel.index.embed import text_hash
from mendel.nightly import chunk_stage, embed_stage
from tests.support.crash_resume import EMBED_BATCH, STAND_IN_EMBEDDER
from tests.support.index import RecordingEmbedder, add_document, ns_decisions


def _kill_inside_third_batch(database_url: str, tmp_path) -> None:
    marker = tmp_path / "arrived"
    env = {
        **os.environ,
        "PYTHONPATH": str(PROJECT_ROOT),
        "CRASH_HOME": str(tmp_path),
        "CRASH_DATABASE_URL": database_url,
        "CRASH_AT": "embedding",
        "CRASH_MARKER": str(marker),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_resume", "embed"],
        env=env,
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the embed stage never reached its third batch"
            time.sleep(0.1)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL


def test_vectors_of_committed_batches_survive_a_kill(fresh_db, tmp_path):
    with psycopg.connect(fresh_db) as conn:
        for decision in ns_decisions()[:3]:
            add_document(conn, decision["ecli"], [decision["full_text"]], title=decision["title"])
        conn.commit()
        chunk_stage.chunk_pending(conn)
        texts = dense_texts(conn, load_layer(conn, 3))
        assert len(set(texts)) > 3 * EMBED_BATCH

    _kill_inside_third_batch(fresh_db, tmp_path)

    with psycopg.connect(fresh_db) as conn:
        kept = {
            h
            for (h,) in conn.execute("SELECT content_hash FROM embedding_cache WHERE model = %s", (STAND_IN_EMBEDDER,))
        }
        assert len(kept) == 2 * EMBED_BATCH  # the two committed batches, nothing of the third
        assert conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone()[0] == 0
        rerun = RecordingEmbedder()  # the same name, so the same cache key, as the killed run's stand-in
        stats = embed_stage.embed_pending(conn, rerun)
        assert sorted(rerun.embedded) == sorted(t for t in set(texts) if text_hash(t) not in kept)
        assert stats["embedded"] == len(set(texts)) - len(kept) and stats["cache_hits"] >= len(kept)
        assert conn.execute("SELECT count(*) FROM chunks WHERE layer = 3 AND embedding IS NULL").fetchone()[0] == 0
