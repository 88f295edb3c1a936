"""The lay list: a lay question's nearest provisions by their own lay wordings' vectors (the bundle's ``wordings``
part: ``mendel.index.wording_vectors``), each standing for its provision's first passage the search may show. A
provision's few everyday phrases meet a question in plain words where its whole passage, its legal text weighing
most in its vector, does not. A bundle without the part, or whose part another model made, has no such list."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from mendel.index.layout import BUILD_INFO, WORDING_KEYS, WORDING_VECTORS, WORDINGS_PART
from mendel.law.provision_wordings import provision_of

log = logging.getLogger("mendel.serving")


class WordingsList:
    """Provision vectors (unit length) and, per provision, its passages' rows in the layer's order."""

    def __init__(self, vectors: np.ndarray, rows: list[list[int]]):
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def load(cls, bundle_path: Path, chunks, act_rows: np.ndarray | None, model: str | None) -> WordingsList | None:
        """The part of the bundle at ``bundle_path`` over the passages ``chunks`` (rows where ``act_rows``: the
        acts' passages), or None: no part, another model's vectors, or no provision of it in the layer."""
        part = Path(bundle_path) / WORDINGS_PART
        if act_rows is None or not (part / BUILD_INFO).is_file():
            return None
        stored = json.loads((part / WORDING_KEYS).read_text(encoding="utf-8"))
        if model and stored.get("model") != model:
            log.warning(
                "%s: wordings embedded by %s, not the bundle's %s: no lay list", part, stored.get("model"), model
            )
            return None
        index = {(citation, key): j for j, (citation, key) in enumerate(stored["keys"])}  # as provision_of spells it
        rows: list[list[int]] = [[] for _ in index]
        candidates = np.flatnonzero(act_rows).tolist()
        if hasattr(chunks, "prefetch"):
            chunks.prefetch(candidates)  # a database's rows: read in one statement
        for row in candidates:
            chunk = chunks[row]
            j = index.get(provision_of(chunk.get("citation"), chunk.get("section") or ""))
            if j is not None:
                rows[j].append(row)
        kept = [j for j, found in enumerate(rows) if found]
        if not kept:
            return None
        return cls(np.load(part / WORDING_VECTORS, allow_pickle=False)[kept], [rows[j] for j in kept])

    def ranking(self, vector: np.ndarray, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """The first ``n`` provisions nearest ``vector``, each as its first passage ``allowed`` holds (all when
        None); a provision with no such passage is passed over."""
        order = np.argsort(-(self.vectors @ np.asarray(vector, dtype=np.float32)), kind="stable")
        ranked: list[int] = []
        for j in order:
            row = next((r for r in self.rows[j] if allowed is None or allowed[r]), None)
            if row is not None:
                ranked.append(row)
                if len(ranked) >= n:
                    break
        return ranked
