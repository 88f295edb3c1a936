"""Query a published bundle: BM25, dense and graph-entered lists fused by reciprocal rank (k=60), exact
references first; optional decomposition into sub-queries, layer choice and cross-encoder rerank.

One search, in order:

1. understand the query (``serving.query.analyze``): references, entities, routed acts, scope (passage, section, act);
2. choose the layer: L3 passages by default, L2 sections or L1 documents when the query asks about a whole
   section or act and the bundle has those layers (otherwise L3: a bundle without layers still answers);
3. rank candidates with BM25, dense (FAISS) and the entity graph (query entities -> weighted neighbourhood ->
   linked chunks), fuse them by weighted RRF, and lead with exact references (the provision's own section, the
   decision itself, then chunks citing exactly that reference);
4. when the query touches several entities or areas (``serving.query.decompose``), do 1-3 for each sub-query as well and
   fuse the whole query's list with the sub-queries' lists;
5. the learned second stage, optionally a cross-encoder rerank of the best ``RERANK_MAX`` candidates
   (``serving.ranking.rerank``), the coverage block and the relevance floor: ``serving.ranking.answer``, the code the
   PostgreSQL backend runs too.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from mendel.index import bundle
from serving.ranking import in_force
from serving.ranking.answer import RERANK_MAX, WARM_QUERY, SearchFlow
from serving.ranking.bundle_lists import CANDIDATES, BundleLists
from serving.ranking.layers import LayerIndex

__all__ = ["CANDIDATES", "RERANK_MAX", "WARM_QUERY", "Searcher"]


class Searcher(SearchFlow, BundleLists):
    """Hybrid search over a published bundle (``serving.ranking.bundle_lists`` ranks each query's lists)."""

    def __init__(self, path: Path, embedder=None, reranker=None):
        from serving.ranking.coverage import Assessor

        super().__init__(path, embedder=embedder, reranker=reranker)
        self._assessor = Assessor(self.documents, self.graph, self.passages, self.manifest.get("model"))

    @classmethod
    def latest(cls, bundles_dir: Path, embedder=None, reranker=None) -> "Searcher":
        return cls(bundle.current_bundle(bundles_dir), embedder=embedder, reranker=reranker)

    def warm(self) -> None:
        """Load now what a first search would load on its way: the upper layers, the coverage block's tables and
        floor, the learned stage, the bridge's vocabulary, the act router, the collection's word forms, the query
        encoder and the dense workers (one search runs them all), the lay list."""
        for number in (1, 2):
            self.layer(number)
        _ = (self.collection(), self.floor, self.learned_fusion, self.vocabulary, self.act_router, self.lexicon)
        _ = self.title_series  # the boards' title openings, counted
        self.wordings_list(self.passages)  # the lay lists' provisions, their words indexed (~0.6 s, sample corpus)
        self.search_with_coverage(WARM_QUERY, k=1)

    def linked_entities(self, items: list[int], layer: LayerIndex) -> dict[int, list[str]]:
        """Row -> the graph entities its chunk links (a hit's ``entities`` are the activated ones among them)."""
        if layer is self.passages:
            return {item: self.graph.entities_of(item) for item in items}
        return {item: self.chunk_entities.get(layer.chunks[item]["chunk_id"], []) for item in items}

    def document(self, doc_id: str, at: date | None = None, version: str | None = None) -> dict | None:
        """A document's metadata from the bundle's documents with its chunks in order; None when unknown. An act with
        versions lists one version's chunks: those served on ``at`` (default today) or its promulgated text."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return None
        in_force.check_version(version)
        served = self.in_force_mask(self.passages, at or date.today(), version)
        chunks = [self.chunks[i] for i in self.doc_chunks.get(doc_id, []) if served is None or served[i]]
        return {
            **doc,
            "chunks": [
                {
                    "chunk_id": c["chunk_id"],
                    "page": c["page_start"],
                    "page_end": c["page_end"],
                    "section": c["section"],
                    "text": c["text"],
                }
                for c in chunks
            ],
        }
