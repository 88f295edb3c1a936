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
5. optionally rerank the best ``RERANK_MAX`` candidates with a local cross-encoder (``serving.ranking.rerank``).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from mendel.czech.analyzer import analyze
from mendel.index import bundle
from serving.ranking import in_force
from serving.ranking.filters import SearchFilters
from serving.ranking.fusion import (
    GRAPH_MIN_SHARE,
    LEARNED_CANDIDATES,
    RRF_WEIGHTS,
    SUBQUERY_WEIGHTS,
    LearnedFusion,
    Signals,
    entity_coverage,
    interleave_fuse,
    lead_with,
    learned_candidates,
    ordered_lists,
    rrf_fuse,
)
from serving.ranking.graph_retrieval import top_positions
from serving.ranking.layers import PASSAGE_LAYER, SCOPE_LAYERS, ChunkEntities, LayerIndex, layer_of

PROVISION_HEAD_RE = re.compile(r"(?:§\s*\d+[a-z]?|čl\.\s*[IVXLC\d]+[a-z]?)", re.IGNORECASE)
CANDIDATES = 50
# Dense searches (query encoding + FAISS, both outside the GIL) run on worker threads while the calling thread
# does BM25, the graph list and fusion; one core has nothing to overlap with. One worker per usable CPU (started as
# needed), so concurrent API requests search in parallel as they did on their own threads.
DENSE_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
RERANK_MAX = 30
QUERY_VECTORS_KEPT = 256  # recent query vectors, for the floor's dense signal without encoding twice
# What a term of the lay-to-legal expansion counts in BM25 next to a term the user typed.
EXPANSION_WEIGHT = 0.5


@dataclass
class Hit:
    doc_id: str
    title: str
    source: str
    url: str
    page: int
    page_end: int
    section: str
    text: str
    score: float
    chunk_id: str
    citation: str | None = None
    lists: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    subqueries: list[int] = field(default_factory=list)
    layer: int = PASSAGE_LAYER
    rerank_score: float | None = None
    # an act's passage: its version on the search's date (serving.ranking.in_force.version_of)
    version_eli: str | None = None
    version_kind: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    status: str | None = None
    provision: str | None = None
    page_of: str | None = None

    def to_dict(self) -> dict:
        record = asdict(self)
        if self.version_kind is None:  # not an act's passage: no version fields
            for name in VERSION_FIELDS:
                record.pop(name)
        return record


VERSION_FIELDS = ("version_eli", "version_kind", "valid_from", "valid_to", "status", "provision", "page_of")


@dataclass
class SearchResult:
    """An answer that says how good it is: the hits, the coverage block (what the query names and whether the
    collection holds it, ``serving.ranking.coverage``), ``weak`` (below the calibrated relevance floor, or about nothing
    the collection holds) and ``confidence`` (the floor's signals)."""

    hits: list[Hit]
    coverage: dict
    weak: bool
    confidence: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "hits": [h.to_dict() for h in self.hits],
            "coverage": self.coverage,
            "weak": self.weak,
            "confidence": self.confidence,
        }


@dataclass
class Ranked:
    """One query's candidates, best first: (chunk index, score, names of the lists it came from), and the
    activation of graph entities behind the graph list."""

    fused: list[tuple[int, float, list[str]]]
    activation: dict[str, float]
    signals: Signals = field(default_factory=Signals)
    own: list[int] = field(default_factory=list)  # the exact reference's own chunks (they lead, whatever else)


@contextmanager
def one_faiss_thread():
    """Search one query vector in the calling thread: a thread team gains nothing for one vector, and waking
    one cost 40 ms of a 45 ms search on a busy 2-core machine (flat index, 10,000 chunks). The OpenMP thread
    count is per calling thread, so concurrent searches do not race on it."""
    import faiss

    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


class Searcher:
    def __init__(self, path: Path, embedder=None, reranker=None):
        from serving.ranking.graph_retrieval import EntityGraph

        self.path = Path(path)
        self.manifest = bundle.read_manifest(self.path)
        self.documents = {d["doc_id"]: d for d in json.loads(bundle.documents_path(self.path).read_text())}
        self.passages = LayerIndex(self.path, PASSAGE_LAYER)
        self.graph = EntityGraph.from_file(
            bundle.graph_path(self.path), [cid.decode() for cid in self.passages.chunk_ids]
        )
        self.chunk_entities = ChunkEntities(self.graph, self.passages)
        self._embedder = embedder
        self.reranker = reranker
        self._upper: dict[int, LayerIndex | None] = {}
        self._upper_lock = threading.Lock()
        self._dense_pool: ThreadPoolExecutor | None = None
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._collection = None
        self._signals = None
        self._floor = None
        self._floor_loaded = False
        self._vocabulary = None
        self._learned: LearnedFusion | None = None
        self._learned_loaded = False
        self._version_columns: dict[int, in_force.VersionColumns] = {}
        self._act_router = None

    @classmethod
    def latest(cls, bundles_dir: Path, embedder=None, reranker=None) -> "Searcher":
        return cls(bundle.current_bundle(bundles_dir), embedder=embedder, reranker=reranker)

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
        pool, self._dense_pool = self._dense_pool, None
        if pool is not None:
            pool.shutdown(wait=False)

    def layer(self, number: int) -> LayerIndex | None:
        """Layer ``number`` of this bundle (3: passages; 2: sections; 1: documents), loaded on first use; None
        when the bundle has no such layer (bundles built before layers existed)."""
        if number == PASSAGE_LAYER:
            return self.passages
        if number not in self._upper:
            with self._upper_lock:
                if number not in self._upper:
                    path = bundle.layer_path(self.path, number)
                    self._upper[number] = LayerIndex(path, number) if (path / bundle.CHUNKS).exists() else None
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

    def bm25_ranking(
        self,
        query: str,
        n: int = CANDIDATES,
        allowed: np.ndarray | None = None,
        layer: LayerIndex | None = None,
        expansion: str = "",
    ) -> list[int]:
        """Chunks by BM25 score of ``query``; ``expansion`` (the legal wording of the query's lay words) adds its
        own terms' scores at ``EXPANSION_WEIGHT``."""
        return self.bm25_scored(query, n, allowed, layer, expansion)[0]

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

    def dense_pending(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> Future:
        """:meth:`dense_scored` started on a worker thread (run here when there is one core): its future."""
        if DENSE_WORKERS > 1:
            pool = self._dense_pool
            if pool is None:
                with self._upper_lock:
                    if self._dense_pool is None:
                        self._dense_pool = ThreadPoolExecutor(DENSE_WORKERS, thread_name_prefix="mendel-dense")
                    pool = self._dense_pool
            try:
                return pool.submit(self.dense_scored, query, n, allowed, layer)
            except RuntimeError:  # closed while this search ran: finish it here
                pass
        done: Future = Future()
        try:
            done.set_result(self.dense_scored(query, n, allowed, layer))
        except Exception as error:  # raised where the result is read, as from a worker
            done.set_exception(error)
        return done

    def dense_ranking(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> list[int]:
        return self.dense_scored(query, n, allowed, layer)[0]

    def dense_scored(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, layer: LayerIndex | None = None
    ) -> tuple[list[int], list[float]]:
        """:meth:`dense_ranking` with each chunk's cosine similarity to the query."""
        index = (layer or self.passages).faiss
        if index.ntotal == 0:
            return [], []
        vector = self.embedder.query(query).reshape(1, -1).astype(np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)
        with self._upper_lock:
            self._query_vectors[query] = vector
            while len(self._query_vectors) > QUERY_VECTORS_KEPT:
                self._query_vectors.popitem(last=False)
        with one_faiss_thread():
            return self._dense_search(index, vector, n, allowed)

    @staticmethod
    def _dense_search(index, vector: np.ndarray, n: int, allowed: np.ndarray | None) -> tuple[list[int], list[float]]:
        if allowed is None:
            sims, ids = index.search(vector, min(n, index.ntotal))
            return [int(i) for i in ids[0] if i >= 0], [float(d) for i, d in zip(ids[0], sims[0]) if i >= 0]
        import faiss

        excluded = int(index.ntotal - np.count_nonzero(allowed[: index.ntotal]))
        if excluded <= n:  # a few left out (superseded act versions): the best n + excluded, less those
            sims, ids = index.search(vector, min(n + excluded, index.ntotal))
            kept = [(int(i), float(d)) for i, d in zip(ids[0], sims[0]) if i >= 0 and allowed[i]][:n]
            return [i for i, _ in kept], [d for _, d in kept]
        wanted = np.flatnonzero(allowed[: index.ntotal]).astype(np.int64)
        if wanted.size == 0:
            return [], []
        selector = faiss.IDSelectorBatch(wanted)
        hnsw = getattr(index, "hnsw", None)
        if hnsw is not None:
            params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(int(hnsw.efSearch), n))
        else:
            params = faiss.SearchParameters(sel=selector)
        sims, ids = index.search(vector, min(n, int(wanted.size)), params=params)
        return [int(i) for i in ids[0] if i >= 0], [float(d) for i, d in zip(ids[0], sims[0]) if i >= 0]

    def graph_activation(self, query: str, understanding=None):
        """Entity-graph activation (:class:`serving.ranking.graph_retrieval.Activation`) for the query: its entities and routed
        acts, spread one hop."""
        from serving.query.analyze import analyze_query

        seeds = [(e["id"], e["weight"]) for e in analyze_query(query, understanding=understanding)["entities"]]
        return self.graph.activate(seeds)

    def graph_ranking(
        self, query: str, n: int = CANDIDATES, allowed: np.ndarray | None = None, understanding=None
    ) -> list[int]:
        """L3 chunks linked to the query's entity-graph neighbourhood, best first."""
        return self.graph.ranking(self.graph_activation(query, understanding), n, allowed)

    def reference_tiers(
        self, query: str, allowed: np.ndarray | None = None, understanding=None, layer: LayerIndex | None = None
    ) -> tuple[list[int], list[int]]:
        """Fast path for exact references (act + provision, file number, ECLI): first the provision's own section
        or the decision itself, then chunks citing exactly that reference (L3 only: entities link passages).
        Acts named without a provision, institutions, dates and amounts are not exact references and go through
        the ranked lists only."""
        from mendel.ner.rules import split_law_ref_norm
        from serving.query.analyze import understand

        index = layer or self.passages
        found = understanding or understand(query)
        own: list[int] = []
        wanted: list[str] = []
        for entity in found.entities:
            if entity.label == "LAW_REF":
                act, provision = split_law_ref_norm(entity.norm)
                if not provision:
                    continue
                head = PROVISION_HEAD_RE.match(provision)
                if act and head:
                    key = (act, " ".join(head.group(0).split()).lower())
                    # the section labelled so; else the chunk where its heading line stands (a section path
                    # can name the part a provision opens: "ČÁST DRUHÁ" for the chunk starting "§ 4")
                    own += index.section_chunks.get(key) or index.heading_chunks.get(key, [])
            elif entity.label == "DECISION_REF":
                own += index.identifier_chunks.get(entity.norm, [])
            else:
                continue
            wanted.append(entity.id)
        keep = (lambda i: True) if allowed is None else (lambda i: bool(allowed[i]))  # noqa: E731
        own = [i for i in dict.fromkeys(own) if keep(i)]
        if index is not self.passages:
            return own, []
        found_in = [self.graph.chunks_of(entity) for entity in wanted]
        found_in = [found for found in found_in if found.size]
        if not found_in:
            return own, []
        citing = np.unique(np.concatenate(found_in))
        if allowed is not None:
            citing = citing[allowed[citing]]
        if own:
            citing = citing[~np.isin(citing, np.asarray(own, dtype=np.int64))]
        return own, citing.tolist()

    def reference_ranking(self, query: str, allowed: np.ndarray | None = None) -> list[int]:
        own, citing = self.reference_tiers(query, allowed)
        return own + citing

    @property
    def act_router(self):
        """Routing plain questions to acts over L3 (``serving.ranking.graph_retrieval.ActRouter``), built on first use."""
        if self._act_router is None:
            from serving.ranking.graph_retrieval import ActRouter

            with self._upper_lock:
                if self._act_router is None:
                    self._act_router = ActRouter(self.documents, self.passages.doc_chunks, len(self.passages.chunks))
        return self._act_router

    # --- the lay-to-legal bridge ----------------------------------------------------------------------

    @property
    def vocabulary(self):
        """The legal vocabulary (``mendel.law.vocabulary``) plus the statutory definitions and aliases of this
        bundle's acts, harvested from its passages on first use."""
        if self._vocabulary is None:
            from mendel.law.vocabulary import default_vocabulary, harvest_definitions

            with self._upper_lock:
                if self._vocabulary is None:
                    self._vocabulary = default_vocabulary().with_definitions(harvest_definitions(self.chunks))
        return self._vocabulary

    def legal_expansion(self, understanding) -> str:
        """The legal wordings of the query's lay words, abbreviations and the bundle's defined terms,
        space-separated ("" when none): what BM25 adds at ``EXPANSION_WEIGHT``."""
        from serving.query.analyze import legal_wordings

        return " ".join(legal_wordings(understanding.normalized, self.vocabulary))

    @staticmethod
    def dense_text(understanding, bridge: bool = True) -> str:
        """What the dense list encodes: the normalised query, with the bridge its legal wordings appended
        (``serving.query.analyze.dense_query_text``)."""
        from serving.query.analyze import dense_query_text

        return dense_query_text(understanding) if bridge else understanding.normalized

    def rank(
        self,
        query: str,
        allowed: np.ndarray | None = None,
        dense: bool = True,
        graph: bool = True,
        understanding=None,
        n: int = CANDIDATES,
        layer: LayerIndex | None = None,
        dense_pending: Future | None = None,
        bridge: bool = True,
    ) -> Ranked:
        """One query's fused candidates in one layer (no decomposition, no rerank): weighted RRF of the BM25,
        dense and (on L3) graph lists, with exact references leading. ``dense_pending``: this query's dense
        list already started (:meth:`dense_pending`); otherwise it starts here, before the other lists."""
        from serving.query.analyze import understand

        index = layer or self.passages
        found = understanding or understand(query)
        text = found.normalized  # "paragraf 204" is indexed as "§ 204"
        if dense and dense_pending is None:
            dense_pending = self.dense_pending(self.dense_text(found, bridge), n=n, allowed=allowed, layer=index)
        expansion = self.legal_expansion(found) if bridge else ""
        signals = Signals()
        signals.bm25, signals.bm25_scores = self.bm25_scored(
            text, n=n, allowed=allowed, layer=index, expansion=expansion
        )
        rankings = {"bm25": signals.bm25}
        if dense:
            rankings["dense"] = []  # filled below: the lists keep this order in the fusion
        activation: dict[str, float] = {}
        weights = dict(RRF_WEIGHTS)
        if graph and len(self.graph):
            entered = self.graph_activation(query, found)
            activation = entered.scores
            share = max(entity_coverage(found), GRAPH_MIN_SHARE)
            if index is self.passages and share > 0:  # a list with no weight would claim hits it did not move
                rankings["graph"] = signals.graph = self.graph.ranking(entered, n, allowed)
                weights["graph"] = RRF_WEIGHTS["graph"] * share
                signals.graph_share = share
        plain = 1.0 - entity_coverage(found)  # routing carries what the recognised entities do not
        routed = self.act_router.route(found) if graph and plain > 0 and index is self.passages else {}
        if routed:
            within = self.act_router.mask(routed)
            rankings["routed"] = self.bm25_ranking(
                text, n=n, allowed=within if allowed is None else within & allowed, expansion=expansion
            )
            weights["routed"] = RRF_WEIGHTS["routed"] * plain
            signals.routed = {citation: share * plain for citation, share in routed.items()}
        if dense:
            signals.dense, signals.dense_sims = dense_pending.result()
            rankings["dense"] = signals.dense
        fused = rrf_fuse(rankings, weights=weights)
        own, citing = self.reference_tiers(query, allowed=allowed, understanding=found, layer=index)
        signals.citing = set(citing)
        if own or citing:
            # Exact references lead: the provision's own section or the decision, then chunks citing it;
            # within each tier in fused order.
            position = {item: rank for rank, (item, _, _) in enumerate(fused)}
            by_position = lambda i: position.get(i, len(position))  # noqa: E731
            exact_sorted = sorted(own, key=by_position)
            if len(exact_sorted) < n:
                # citing chunks in fused order, then the rest in chunk order (citing is ascending): what a stable
                # sort by fused position gives, without sorting 100,000 citing chunks of a common reference
                citing_set = set(citing)
                in_fused = [item for item, _, _ in fused if item in citing_set]
                wanted_rest = n - len(exact_sorted) - len(in_fused)
                rest = []
                if wanted_rest > 0:
                    fused_set = set(position)
                    for item in citing:
                        if item not in fused_set:
                            rest.append(item)
                            if len(rest) == wanted_rest:
                                break
                exact_sorted += in_fused + rest
            fused = lead_with(fused, exact_sorted[:n])
        return Ranked(fused, activation, signals, own)

    # --- the search -----------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        dense: bool = True,
        filters: "SearchFilters | dict | None" = None,
        graph: bool = True,
        decompose: bool = True,
        rerank: bool = False,
        details: dict | None = None,
        bridge: bool = True,
        learned: bool = True,
        trace: list | None = None,
        at: date | None = None,
        version: str | None = None,
    ) -> list[Hit]:
        """Hybrid search; ``filters`` (a :class:`SearchFilters` or a dict of its fields) restricts the
        documents every list draws from, so a filtered search still returns up to ``k`` hits. ``graph`` adds the
        graph-entered list, ``decompose`` searches sub-queries too, ``rerank`` reorders the best
        ``RERANK_MAX`` candidates with the configured cross-encoder (an error when none is configured), ``bridge``
        adds the legal wording of the query's lay words and abbreviations to BM25 and dense (``legal_expansion``),
        ``learned`` reorders the best candidates by the learned fusion (:meth:`learned_order`) when one is stored.
        ``details``, when given, receives the query's scope, the layer searched and the sub-queries; ``trace``,
        when given, receives (the whole query's fused list before the learned stage, its :class:`Ranked`, the
        layer): what ``retrieval_eval.learn_fusion`` trains on. ``at`` (default today): an act's passages are those
        of its version in force on that date (``serving.ranking.in_force``); ``version="promulgated"``: its promulgated
        text instead."""
        from serving.query.analyze import understand
        from serving.query.decompose import decompose as split_query

        if rerank and self.reranker is None:
            raise ValueError("rerank requested but no cross-encoder is configured")
        at = at or date.today()
        in_force.check_version(version)
        found = understand(query)
        index = self.layer_for(found.scope)
        if details is not None:
            details.update(
                {
                    "scope": found.scope,
                    "layer": index.layer,
                    "subqueries": [],
                    "entities": [e.id for e in found.entities],
                }
            )
        allowed = self._allowed(filters, index, at, version)
        if allowed is not None and not allowed.any() and index is not self.passages:
            index = self.passages  # the asked-for layer has nothing that passes the filters
            allowed = self._allowed(filters, index, at, version)
        if allowed is not None and not allowed.any():
            if details is not None:
                details["coverage"] = self.assess(query, found, [], index, dense=False, allowed=allowed)
            return []
        depth = max(k, CANDIDATES)
        subqueries = split_query(query, found) if decompose else []
        if details is not None:
            details.update({"layer": index.layer, "subqueries": subqueries})
        # every dense search of this query starts now, so the workers run them while this thread ranks the rest
        understood = [(sub, understand(sub)) for sub in subqueries]
        pending = [
            self.dense_pending(self.dense_text(f, bridge), n=depth, allowed=allowed, layer=index) if dense else None
            for f in [found] + [f for _, f in understood]
        ]
        main = self.rank(
            query,
            allowed,
            dense=dense,
            graph=graph,
            understanding=found,
            n=depth,
            layer=index,
            dense_pending=pending[0],
            bridge=bridge,
        )
        if trace is not None:
            trace.append((list(main.fused), main, index))
        # the learned stage orders each query's own list (the whole query's, each sub-query's) before they are
        # interleaved, so a question in two parts still gets the best of each part
        second_stage = learned and self.learned_fusion is not None
        fused = self.learned_order(main, index) if second_stage else main.fused
        activation = dict(main.activation)
        found_by: dict[int, list[int]] = {}
        if subqueries:
            lists_of: dict[int, list[str]] = {item: list(lists) for item, _, lists in fused}
            rankings = {"query": [item for item, _, _ in fused]}
            for number, (sub, sub_found) in enumerate(understood, start=1):
                ranked = self.rank(
                    sub,
                    allowed,
                    dense=dense,
                    graph=graph,
                    understanding=sub_found,
                    n=depth,
                    layer=index,
                    dense_pending=pending[number],
                    bridge=bridge,
                )
                sub_fused = self.learned_order(ranked, index) if second_stage else ranked.fused
                rankings[f"subquery:{number}"] = [item for item, _, _ in sub_fused]
                for rank, (item, _, lists) in enumerate(sub_fused):
                    if rank < k:  # "found by" a sub-query: among its own best k
                        found_by.setdefault(item, []).append(number)
                    merged = lists_of.setdefault(item, [])
                    merged += [name for name in lists if name not in merged]
                for entity, score in ranked.activation.items():
                    activation[entity] = max(activation.get(entity, 0.0), score)
            weights = {name: SUBQUERY_WEIGHTS["query" if name == "query" else "subquery"] for name in rankings}
            fused = [
                (item, score, ordered_lists(lists_of[item]))
                for item, score, _ in interleave_fuse(rankings, weights=weights)
            ]
        rerank_scores: dict[int, float] = {}
        if rerank:
            top = fused[:RERANK_MAX]
            scores = self.reranker.score(query, [self.passage_text(item, index) for item, _, _ in top])
            order = sorted(range(len(top)), key=lambda j: (-scores[j], j))
            fused = [top[j] for j in order] + fused[RERANK_MAX:]
            rerank_scores = {top[j][0]: float(scores[j]) for j in range(len(top))}
        hits = []
        for item, score, lists in fused[:k]:
            hit = self._hit(item, score, lists + (["rerank"] if item in rerank_scores else []), activation, index)
            hit.subqueries = found_by.get(item, [])
            hit.rerank_score = rerank_scores.get(item)
            for name, value in in_force.version_of(index.chunks[item], at).items():
                setattr(hit, name, value)
            hits.append(hit)
        if details is not None:
            details["coverage"] = self.assess(
                query,
                found,
                [item for item, _, _ in fused[:k]],
                index,
                dense=dense,
                references=any("reference" in h.lists for h in hits),
                allowed=allowed,
            )
        return hits

    @property
    def learned_fusion(self) -> LearnedFusion | None:
        """The learned second stage (``serving/ranking/learned_fusion.json``); None when none is stored."""
        if not self._learned_loaded:
            self._learned, self._learned_loaded = LearnedFusion.load(), True
        return self._learned

    @learned_fusion.setter
    def learned_fusion(self, value: LearnedFusion | None) -> None:
        self._learned, self._learned_loaded = value, True

    def learned_order(self, ranked: Ranked, layer: LayerIndex) -> list[tuple[int, float, list[str]]]:
        """The second stage: an exact reference's own chunks keep the lead (among themselves in the learned
        order: of a provision's passages, the one the question's words match best first); the best other
        candidates (the fused list's, BM25's and dense's own best, ``learned_candidates``) are reordered by the
        learned fusion over the lists' signals; the rest follow in fused order. Scores keep their values, in the
        new order."""
        fused, signals = ranked.fused, ranked.signals
        items = [item for item, _, _ in fused]
        own = set(ranked.own)
        lead = [item for item in items if item in own]
        rest = [item for item in items if item not in own]
        candidates = learned_candidates(rest, signals)
        ordered = self.learned_fusion.order(candidates, items, signals, layer.chunks)
        lead = (
            self.learned_fusion.order(lead[:LEARNED_CANDIDATES], items, signals, layer.chunks)
            + lead[LEARNED_CANDIDATES:]
        )
        chosen = set(candidates)
        new_order = lead + ordered + [item for item in rest if item not in chosen]
        lists_of = {item: lists for item, _, lists in fused}
        for item in signals.bm25:
            lists_of.setdefault(item, ["bm25"])
        for item in signals.dense:
            lists_of.setdefault(item, ["dense"] if item not in set(signals.bm25) else ["bm25", "dense"])
        scores = sorted((score for _, score, _ in fused), reverse=True)
        scores += [scores[-1] if scores else 0.0] * (len(new_order) - len(scores))
        return [(item, score, lists_of[item]) for item, score in zip(new_order, scores)]

    # --- honest answers ------------------------------------------------------------------------------

    @property
    def floor(self):
        """The relevance floor (``serving/ranking/floor.json``, calibrated on the dev questions); None when absent."""
        if not self._floor_loaded:
            from serving.ranking.coverage import FLOOR_FILE, Floor

            self._floor = Floor.load() if FLOOR_FILE.exists() else None
            self._floor_loaded = True
        return self._floor

    @floor.setter
    def floor(self, value) -> None:
        self._floor, self._floor_loaded = value, True

    def collection(self):
        """What this bundle holds, for the coverage block (built on first use)."""
        if self._collection is None:
            from serving.ranking.coverage import CollectionIndex

            with self._upper_lock:
                if self._collection is None:
                    self._collection = CollectionIndex(self.documents, self.graph, self.passages.bm25.vocab_dict)
        return self._collection

    def assess(
        self,
        query: str,
        understanding,
        items: list[int],
        layer: LayerIndex | None = None,
        dense: bool = True,
        references: bool = False,
        allowed: np.ndarray | None = None,
    ) -> dict:
        """The coverage block of one answer (``serving.ranking.coverage``): what the query names and whether the
        collection holds it, the floor's signals over the best hits, and whether the answer is ``weak`` or
        ``empty`` (nothing matches: no hits should be shown)."""
        from serving.ranking.coverage import (
            TOP_HITS,
            Confidence,
            SignalTables,
            coverage_report,
            dense_signal,
            judge,
            lexical_signal,
        )

        index = layer or self.passages
        if self._signals is None:
            self._signals = SignalTables()
        report = coverage_report(query, understanding, self.collection())
        top = items[:TOP_HITS]
        text = understanding.normalized
        searched = self.dense_text(understanding) if dense else text  # with its legal wordings, as searched
        with self._upper_lock:
            vector = self._query_vectors.get(searched, self._query_vectors.get(text)) if dense else None
        confidence = Confidence(
            lexical=lexical_signal(index, self._signals, text, allowed), dense=dense_signal(index, vector, top)
        )
        verdict = judge(confidence, self.floor, self.manifest.get("model"), report)
        if references and not report["all_missing"]:  # an exact reference was found: the answer is that text
            verdict.update(weak=False, empty=False)
        return {**report, "confidence": confidence.as_dict(), **verdict}

    def search_with_coverage(self, query: str, k: int = 10, **options) -> SearchResult:
        """:meth:`search` with an honest answer: the coverage block, ``weak`` below the relevance floor, and no
        hits at all when nothing in the collection matches the query."""
        details: dict = dict(options.pop("details", None) or {})
        hits = self.search(query, k=k, details=details, **options)
        coverage = details["coverage"]
        if coverage.get("empty"):
            hits = []
        return SearchResult(
            hits=hits, coverage=coverage, weak=bool(coverage.get("weak")), confidence=coverage.get("confidence", {})
        )

    def passage_text(self, item: int, layer: LayerIndex | None = None) -> str:
        """What a cross-encoder reads for a chunk: its citation, title and section, then the raw text."""
        c = (layer or self.passages).chunks[item]
        head = " — ".join(x for x in (c.get("citation"), c.get("title"), c.get("section")) if x)
        return f"{head}\n{c['text']}" if head else c["text"]

    def document(self, doc_id: str, at: date | None = None, version: str | None = None) -> dict | None:
        """A document's metadata from ``documents.json`` with its chunks in order; None when unknown. An act with
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

    def _hit(
        self,
        item: int,
        score: float,
        lists: list[str],
        activation: dict[str, float] | None = None,
        layer: LayerIndex | None = None,
    ) -> Hit:
        index = layer or self.passages
        c = index.chunks[item]
        activation = activation or {}
        linked = self.graph.entities_of(item) if index is self.passages else self.chunk_entities.get(c["chunk_id"], ())
        matched = sorted((e for e in linked if e in activation), key=lambda e: (-activation[e], e))
        return Hit(
            doc_id=c["doc_id"],
            title=c["title"],
            source=c["source"],
            url=c["url"],
            page=c["page_start"],
            page_end=c["page_end"],
            section=c.get("section") or "",
            text=c["text"],
            score=round(score, 6),
            chunk_id=c["chunk_id"],
            citation=c.get("citation"),
            lists=lists,
            entities=matched,
            layer=layer_of(c, index.layer),
        )
