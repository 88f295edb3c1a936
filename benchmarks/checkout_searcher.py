"""The PostgreSQL searcher of another checkout of the project (say main's, for a before/after comparison) in a
child process of its own, over the same bundle and database: ``benchmarks/bench_pg_backend.py --before`` times it
query by query alongside this checkout's searcher, so both run under the same load.

The child imports the other checkout's code only (its path first on ``sys.path``), opens its ``PostgresSearcher``
with the scale bundle's random query vectors, and answers one JSON line a query on a pipe of its own: the hits'
chunk ids and the search's own wall time, measured in the child as the parent measures its searchers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


class CheckoutSearcher:
    """``search(query, k)`` -> (chunk ids, milliseconds) by the PostgreSQL searcher of ``checkout``."""

    def __init__(self, checkout: Path, bundle_path: Path, database_url: str):
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        self._child = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), str(checkout), str(bundle_path), database_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        ready = json.loads(self._child.stdout.readline() or "null")
        if not ready:
            raise RuntimeError(f"the searcher of {checkout} did not start")
        self.open_seconds = ready["open_seconds"]

    def search(self, query: str, k: int) -> tuple[list[str], float]:
        self._child.stdin.write(json.dumps({"query": query, "k": k}) + "\n")
        self._child.stdin.flush()
        answer = json.loads(self._child.stdout.readline())
        return answer["chunk_ids"], answer["ms"]

    def close(self) -> None:
        if self._child.poll() is None:
            self._child.stdin.close()
            self._child.wait(timeout=60)


def checkout_commit(checkout: Path) -> str | None:
    """The commit of a checkout: its git HEAD, or the COMMIT file an exported tree (git archive) was given."""
    exported = Path(checkout) / "COMMIT"
    if exported.exists():
        return exported.read_text().strip()
    found = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() or None


def _serve(checkout: str, bundle_path: str, database_url: str) -> None:
    """The child: the other checkout's searcher, answering on the original stdout (anything the code prints goes to
    stderr)."""
    import time

    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.path.insert(0, checkout)
    from benchmarks.scale_corpus import RandomQueryEmbedder
    from serving.ranking.pg_search import PostgresSearcher

    clock = time.perf_counter()
    searcher = PostgresSearcher(bundle_path, embedder=RandomQueryEmbedder(), database_url=database_url)
    answers.write(json.dumps({"open_seconds": round(time.perf_counter() - clock, 2)}) + "\n")
    answers.flush()
    for line in sys.stdin:
        asked = json.loads(line)
        clock = time.perf_counter()
        hits = searcher.search(asked["query"], k=asked["k"])
        elapsed = (time.perf_counter() - clock) * 1000
        answers.write(json.dumps({"chunk_ids": [h.chunk_id for h in hits], "ms": elapsed}) + "\n")
        answers.flush()
    searcher.close()


if __name__ == "__main__":
    sys.path.pop(0)  # this file's folder: the other checkout's benchmarks package must be the one imported
    _serve(*sys.argv[1:4])
