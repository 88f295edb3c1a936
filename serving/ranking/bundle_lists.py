"""One query's ranked lists over a published bundle: BM25 (with the legal wording of the query's lay words), dense
(FAISS), the entity graph (query entities -> weighted neighbourhood -> linked chunks) and the acts a plain question
is routed to, fused by weighted reciprocal rank (k=60) with exact references first, in the layer a query's scope
asks for and among the chunks its filters and date allow."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from datetime import date
from pathlib import Path
from typing import Iterable

import numpy as np

from mendel.czech.analyzer import analyze
from mendel.index import bundle
from serving.ranking import in_force
from serving.ranking.dense import DenseLists
from serving.ranking.dense import approximate as dense_approximate
from serving.ranking.filters import SearchFilters
from serving.ranking.graph_retrieval import top_positions
from serving.ranking.layers import PASSAGE_LAYER, SCOPE_LAYERS, ChunkEntities, LayerIndex
from serving.ranking.query_lists import (  # noqa: F401  (re-exported: what callers import from here)
    CANDIDATES,
    EXPANSION_WEIGHT,
    QueryLists,
    Ranked,
    content_terms,
    names_something,
)
from serving.ranking.references import bundle_tiers

__all__ = ["CANDIDATES", "BundleLists", "Ranked", "content_terms", "names_something"]


class BundleLists(QueryLists):
    """A published bundle opened for search: its layers, what a search may return (filters, acts in force) and one
    query's ranked lists (BM25, dense, the entity graph, routed acts) fused with its exact references first."""

    def __init__(self, path: Path, embedder=None, reranker=None):
        from serving.ranking.graph_retrieval import EntityGraph

        self.path = Path(path)
        self.manifest = bundle.read_manifest(self.path)
        self.documents = bundle.documents_by_id(self.path)
        self.passages = LayerIndex(self.path, PASSAGE_LAYER)
        self.graph = EntityGraph.from_file(
            bundle.graph_path(self.path), [cid.decode() for cid in self.passages.chunk_ids]
        )
        self.chunk_entities = ChunkEntities(self.graph, self.passages)
        self._embedder = embedder
        self.reranker = reranker
        self._upper: dict[int, LayerIndex | None] = {}
        self._upper_lock = threading.Lock()
        self._dense = DenseLists(lambda: self.embedder)
        self._vocabulary = None
        self._lexicon = None
        self._version_columns: dict[int, in_force.VersionColumns] = {}
        self._act_router = None

    def passage_count(self) -> int:
        return int(self.passages.bm25.scores["num_docs"])

    def passage_frequencies(self, terms: Iterable[str], least: int = 0) -> dict[str, int]:
        """``QueryLists.passage_frequencies`` from the passages' BM25 index (its postings per term), exact for all."""
        index = self.passages.bm25
        indptr = index.scores["indptr"]
        found = {t: index.vocab_dict.get(t) for t in terms}
        return {t: int(indptr[i + 1] - indptr[i]) if i is not None else 0 for t, i in found.items()}

    # L3, the default layer, as before layers existed
    @property
    def chunks(self) -> list[dict]:
        return self.passages.chunks

    @property
    def bm25(self):
        return self.passages.bm25

    @property
    def faiss(self):
        return self.passages.faiss

    @property
    def doc_chunks(self) -> dict[str, list[int]]:
        return self.passages.doc_chunks

    @property
    def embedder(self):
        if self._embedder is None:
            with self._upper_lock:  # dense searches on worker threads may ask at once
                if self._embedder is None:
                    from mendel.index.embed import get_embedder

                    self._embedder = get_embedder()
        return self._embedder

    def close(self) -> None:
        """Stop the dense worker threads (a replaced bundle's searcher; searches still running finish)."""
        self._dense.close()

    def layer(self, number: int) -> LayerIndex | None:
        """Layer ``number`` of this bundle (3: passages; 2: sections; 1: documents), loaded on first use; None
        when the bundle has no such layer (bundles built before layers existed)."""
        if number == PASSAGE_LAYER:
            return self.passages
        if number not in self._upper:
            with self._upper_lock:
                if number not in self._upper:
                    path = bundle.layer_path(self.path, number)
                    self._upper[number] = LayerIndex(path, number) if bundle.layer_exists(self.path, number) else None
        return self._upper[number]

    def layer_for(self, scope: str | None) -> LayerIndex:
        """The layer a query's scope asks for (L1 documents for a whole act, L2 sections for a whole section,
        L3 passages otherwise); L3 when the bundle lacks it."""
        for number in SCOPE_LAYERS.get(scope or "", ()):
            found = self.layer(number)
            if found is not None and found.chunks:
                return found
        return self.passages

    # --- what may be returned ----------------------------------------------------------------------

    def allowed_chunks(
        self, filters: "SearchFilters | dict | None", layer: LayerIndex | None = None
    ) -> np.ndarray | None:
        """Boolean mask over a layer's chunks (L3 by default) that pass ``filters``; None when nothing is
        filtered."""
        filters = SearchFilters.of(filters)
        if filters.is_empty():
            return None
        return (layer or self.passages).mask(filters.matching_documents(self.documents))

    @property
    def passage_doc_ids(self) -> frozenset[str]:
        """The documents with passages: the only ones a search can return."""
        return frozenset(self.doc_chunks)

    def filter_counts(self, filters: "SearchFilters | dict | None") -> dict | None:
        """How much of the collection ``filters`` leave to search: documents and passages (``empty`` when none);
        None when nothing is filtered."""
        filters = SearchFilters.of(filters)
        if filters.is_empty():
            return None
        docs = [d for d in filters.matching_documents(self.documents) if d in self.doc_chunks]
        passages = sum(len(self.doc_chunks[d]) for d in docs)
        return {"documents": len(docs), "passages": passages, "empty": passages == 0}

    def in_force_mask(self, layer: LayerIndex, at: date, version: str | None = None) -> np.ndarray | None:
        """Mask over a layer's chunks of an act's text served on ``at`` (or its promulgated text); None when the
        layer holds no act with versions (``serving.ranking.in_force``)."""
        columns = self._version_columns.get(layer.layer)
        if columns is None:
            with self._upper_lock:
                columns = self._version_columns.setdefault(layer.layer, in_force.VersionColumns.of(layer.chunks))
        return columns.mask(at, version)

    def _allowed(self, filters, layer: LayerIndex, at: date, version: str | None) -> np.ndarray | None:
        return in_force.combine(self.allowed_chunks(filters, layer), self.in_force_mask(layer, at, version))

    # --- ranked lists --------------------------------------------------------------------------------

    def bm25_scored(
        self,
        query: str,
        n: int = CANDIDATES,
        allowed: np.ndarray | None = None,
        layer: LayerIndex | None = None,
        expansion: str = "",
    ) -> tuple[list[int], list[float]]:
        """:meth:`bm25_ranking` with each chunk's score."""
        index = layer or self.passages
        vocab = index.bm25.vocab_dict
        tokens = [t for t in analyze(query) if t in vocab]
        extra = [t for t in dict.fromkeys(analyze(expansion)) if t in vocab and t not in tokens] if expansion else []
        if not (tokens or extra) or not index.chunks:
            return [], []
        scores = index.bm25.get_scores(tokens) if tokens else 0.0
        if extra:
            scores = scores + EXPANSION_WEIGHT * index.bm25.get_scores(extra)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        matching = np.flatnonzero(scores > 0)  # the ranking keeps only these: select among them alone
        best = matching[top_positions(scores[matching], n)]
        return best.tolist(), scores[best].tolist()

    def graph_searched(self, layer: LayerIndex) -> bool:
        return dense_approximate(layer.faiss)

    def dense_pending(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> Future:
        """:meth:`dense_scored` started on a worker thread (run here when there is one core): its future."""
        return self._dense.pending((layer or self.passages).faiss, query, n, allowed)

    def dense_ranking(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> list[int]:
        return self.dense_scored(query, n, allowed, layer)[0]

    def dense_scored(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> tuple[list[int], list[float]]:
        """:meth:`dense_ranking` with each chunk's cosine similarity to the query."""
        return self._dense.scored((layer or self.passages).faiss, query, n, allowed)

    def reference_tiers(
        self, query: str, allowed: np.ndarray | None = None, understanding=None, layer: LayerIndex | None = None
    ) -> tuple[list[int], list[int]]:
        """Fast path for exact references (``serving.ranking.references``): first the provision's own section or
        the decision itself, then chunks citing exactly that reference (L3 only: entities link passages)."""
        from serving.query.analyze import understand

        index = layer or self.passages
        found = understanding or understand(query)
        return bundle_tiers(index, self.graph, found, allowed, passages=index is self.passages)
