"""The lay list: a lay question's nearest provisions by their own lay wordings' vectors (the bundle's ``wordings``
part: ``mendel.index.wording_vectors``), each standing for its provision's first passage the search may show. A
provision's few everyday phrases meet a question in plain words where its whole passage, its legal text weighing
most in its vector, does not. A bundle without the part, or whose part another model made, has no such list. The
same wordings with their headings' (``mendel.law.provision_wordings.lay_wordings``, the wordings tables as this code
holds them) searched by their words (BM25) make a second list: a word the encoder reads past ("sex s 14letou") finds
the phrase that says it ("sex s dítětem pod 15 let")."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from mendel.czech.analyzer import analyze
from mendel.index.layout import BUILD_INFO, WORDING_KEYS, WORDING_VECTORS, WORDINGS_PART
from mendel.law.provision_wordings import lay_wordings, provision_of

log = logging.getLogger("mendel.serving")


class WordingsList:
    """Provision vectors (unit length) and, per provision, its passages' rows in the layer's order."""

    def __init__(self, vectors: np.ndarray, rows: list[list[int]], texts: list[str] | None = None):
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.rows = rows
        self.lexical = lexical_index(texts) if texts else None  # None: no lexical list

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
        texts: dict[int, str] = {}  # what the lexical list reads: the provision's wordings and its headings'
        candidates = np.flatnonzero(act_rows).tolist()
        if hasattr(chunks, "prefetch"):
            chunks.prefetch(candidates)  # a database's rows: read in one statement
        for row in candidates:
            chunk = chunks[row]
            citation, section = chunk.get("citation"), chunk.get("section") or ""
            j = index.get(provision_of(citation, section))
            if j is not None:
                rows[j].append(row)
                if j not in texts:  # as the encoder reads them beside the provision's first passage
                    texts[j] = "; ".join(lay_wordings(citation, section))
        kept = [j for j, found in enumerate(rows) if found]
        if not kept:
            return None
        vectors = np.load(part / WORDING_VECTORS, allow_pickle=False)[kept]
        return cls(vectors, [rows[j] for j in kept], [texts[j] for j in kept])

    def ranking(self, vector: np.ndarray, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """The first ``n`` provisions nearest ``vector``, each as its first passage ``allowed`` holds (all when
        None); a provision with no such passage is passed over."""
        order = np.argsort(-(self.vectors @ np.asarray(vector, dtype=np.float32)), kind="stable")
        return self._passages(order, n, allowed)

    def lexical_ranking(self, text: str, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """The first ``n`` provisions whose wordings BM25 scores above nothing for ``text``'s words, as
        :meth:`ranking` gives them; empty without the wordings' texts."""
        index = self.lexical
        if index is None:
            return []
        terms = [term for term in analyze(text) if term in index.vocab_dict]
        if not terms:
            return []
        scores = np.asarray(index.get_scores(terms))
        matched = np.flatnonzero(scores > 0)
        order = matched[np.argsort(-scores[matched], kind="stable")]
        return self._passages(order, n, allowed)

    def _passages(self, order, n: int, allowed: np.ndarray | None) -> list[int]:
        ranked: list[int] = []
        for j in order:
            row = next((r for r in self.rows[j] if allowed is None or allowed[r]), None)
            if row is not None:
                ranked.append(row)
                if len(ranked) >= n:
                    break
        return ranked


def lexical_index(texts: list[str]):
    """BM25 (``bm25s``) over ``texts``, their words as the collection's analyser reads them (a few thousand short
    texts: ~0.2 s); None when they hold no word."""
    import bm25s

    terms = [analyze(text) for text in texts]
    if not any(terms):
        return None
    index = bm25s.BM25()
    index.index(terms, show_progress=False)
    return index
