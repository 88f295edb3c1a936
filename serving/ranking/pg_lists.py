"""PostgreSQL opened for search (``serving.ranking.pg_search``): a small connection pool, the live passages as a
bundle's layer (``serving.ranking.pg_layer``) and the primitive lists over them, which
``serving.ranking.query_lists.QueryLists`` fuses exactly as for a bundle (bridge, graph share, routed and governing
acts, exact references leading):

- lexical: BM25 over the stored postings (``chunk_postings``: ``chunks.lexemes``, the BM25 analyser's tokens of the
  chunk in context, term by term), scored and ranked as the bundle's index does, bit for bit
  (``serving.ranking.pg_lexical``), with the live passages' lengths read once (``serving.ranking.pg_layer``);
- dense: pgvector HNSW over ``chunks.embedding`` (``pg_sql.NEAREST``, one statement; ``hnsw.ef_search`` and the
  iterative scan set once per connection), the live passages told by the layer's rows;
- graph: the query's entities, spread one hop along ``graph_edges``, scoring the passages that mention them
  (``mentions``, read once per searcher) with ``serving.ranking.graph_retrieval.EntityGraph.ranking``
  (``serving.ranking.pg_graph``).

Per searcher (the live passages change only when a bundle is published) it keeps the live rows and their BM25
lengths, the passages' graph links, the common terms' document frequencies and the latest terms' postings.

Where the lists can differ from the bundle's by construction: HNSW is approximate where the bundle's flat index is
exact below its HNSW threshold (``EF_SEARCH``); and BM25 where a passage's lexemes lose tokens the bundle counts (a
token over ``mendel.index.fulltext.MAX_LEXEME_CHARS`` characters, a term's occurrences past the 256th, positions
past 16,383: PostgreSQL's limits).
"""

from __future__ import annotations

import logging
import math
import queue
import re
import threading
from contextlib import contextmanager
from datetime import date
from typing import Iterator

import numpy as np
import psycopg

from mendel.czech.analyzer import analyze
from mendel.index.fulltext import query_terms
from mendel.passages.act_passages import CONSOLIDATED, ActChunkVersions
from serving.ranking import in_force
from serving.ranking.backend import BackendError
from serving.ranking.dense import DenseLists
from serving.ranking.filters import SearchFilters
from serving.ranking.layers import PASSAGE_LAYER, SCOPE_LAYERS
from serving.ranking.pg_graph import PostgresGraph
from serving.ranking.pg_layer import PostgresLayer
from serving.ranking.pg_lexical import BM25Postings, PostingsTable
from serving.ranking.pg_nearest import PostgresNearest
from serving.ranking.pg_sql import (
    BM25_B,
    BM25_K1,
    CITING_PASSAGES,
    COMMON_TERMS,
    DECISION_PASSAGES,
    DEFINITION_CANDIDATES,
    EVERY_NTH_TEXT,
    LIVE_COVERAGE,
    PASSAGES_BY_DOCUMENT,
    PROVISION_BY_HEADING,
    PROVISION_BY_TEXT,
    SESSION_SEARCH,
    UPPER_COMMON_TERMS,
    UPPER_COVERAGE,
)
from serving.ranking.query_lists import CANDIDATES, EXPANSION_WEIGHT, QueryLists
from serving.ranking.references import provision_key

MAX_CONNECTIONS = 8  # idle connections kept per searcher; more are opened under load and closed after
# hnsw.ef_search over the passages' graph (migration 0036): on the whole sample corpus (84,672 passages, the dev
# sets' questions, benchmarks/pg_hnsw_recall.py) 0.860 of the exact top 10 at 200, 0.926 at 400 (the bundle's
# FAISS graph: 0.93 at its 512), ~2 ms more a search.
EF_SEARCH = 400
COMMON_PASSAGES = 500  # terms in at least this many live passages have their frequency read at load
log = logging.getLogger(__name__)


class PostgresLists(PostgresNearest, QueryLists):
    """The database side of a PostgreSQL searcher. :meth:`load` reads what the lists need (the documents are the
    searcher's: ``documents``); a database without searchable passages raises :class:`BackendError`."""

    def __init__(self, database_url: str, embedder=None, ef_search: int = EF_SEARCH):
        self.database_url = database_url
        self._embedder = embedder
        self.ef_search = ef_search
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._embedder_lock = threading.Lock()
        self.documents: dict[str, dict] = {}
        self._upper_lock = threading.Lock()
        self._layers_lock = threading.Lock()
        self._upper: dict[int, PostgresLayer | None] = {}
        self.layer_problems: dict[int, str] = {}  # an upper layer not searched, and why
        self._dense = DenseLists(lambda: self.embedder)

    # --- connections ----------------------------------------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection of this searcher's small pool (autocommit: a search never holds a transaction open)."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = psycopg.connect(self.database_url, autocommit=True)
            conn.execute(SESSION_SEARCH, (str(self.ef_search), "strict_order"))  # NEAREST's, for its lifetime
        try:
            yield conn
        except BaseException:
            conn.close()  # it may be mid-statement or broken; never hand it out again
            raise
        if conn.closed or self._idle.qsize() >= MAX_CONNECTIONS:
            conn.close()
        else:
            self._idle.put(conn)

    def close(self) -> None:
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    # --- loading ----------------------------------------------------------------------------------------

    def load(self, conn: psycopg.Connection, documents: dict[str, dict]) -> None:
        """The live documents (``documents``), and what the lists read of the live passages."""
        self.documents = documents
        self.identifier_docs = self._identifier_docs()
        self.passages = PostgresLayer(self, conn, documents)
        self.passage_total = len(self.passages.chunk_ids)
        common = dict(conn.execute(COMMON_TERMS, (COMMON_PASSAGES,)).fetchall())
        self.bm25 = BM25Postings(self.passages, common, BM25_K1, BM25_B)
        self.graph = PostgresGraph(self, self.passages, conn)
        self._load_versions(conn)
        self.passage_counts = {doc_id: count for doc_id, count in conn.execute(PASSAGES_BY_DOCUMENT)}
        self.passage_docs = sorted(self.passage_counts)  # citation records, for one, have none

    @property
    def chunks(self):
        return self.passages.chunks

    def chunk_row(self, chunk_id, doc_id, page_start, page_end, section, text, seq, layer=PASSAGE_LAYER) -> dict:
        """A chunk of ``layer`` as the bundle's chunk rows hold it (its document's title, source, url and citation,
        its act version's fields)."""
        doc = self.documents.get(doc_id) or {}
        return {
            "chunk_id": chunk_id,
            "doc_id": doc_id,
            "title": doc.get("title") or "",
            "source": doc.get("source") or "",
            "url": doc.get("url") or "",
            "citation": doc.get("citation"),
            "page_start": page_start,
            "page_end": page_end,
            "section": section or "",
            "text": text,
            "seq": seq,
            "layer": layer,
            **self.act_versions.fields(doc_id, chunk_id),
        }

    def layer(self, number: int):
        """Layer ``number`` of the live chunks (3: passages; 2: sections; 1: documents), read on first use as the
        bundle loads its layers; None when the database holds none of it, or when some of its live chunks have no
        terms or no vector yet (``layer_problems`` says which: a nightly's index stage fills them)."""
        if number == PASSAGE_LAYER:
            return self.passages
        if number not in self._upper:
            with self._layers_lock:
                if number not in self._upper:
                    with self.connection() as conn:
                        self._upper[number] = self._load_upper(conn, number)
        return self._upper[number]

    def _load_upper(self, conn, number: int) -> PostgresLayer | None:
        live, with_terms, with_vectors = conn.execute(UPPER_COVERAGE, {"layer": number}).fetchone()
        missing = [
            f"{live - found} of {live} live layer-{number} chunks have no {what}"
            for found, what in ((with_terms, "terms (mendel.index.layer_terms)"), (with_vectors, "embedding"))
            if found < live
        ]
        if missing:
            self.layer_problems[number] = "; ".join(missing)
            log.warning("layer %s is not searched: %s", number, self.layer_problems[number])
            return None
        if live == 0:
            return None
        found = PostgresLayer(self, conn, self.documents, number)
        keys = np.flatnonzero(found.row_of_key >= 0).tolist()
        values = {"layer": number, "keys": keys, "least": COMMON_PASSAGES}
        common = dict(conn.execute(UPPER_COMMON_TERMS, values).fetchall())
        found.postings = BM25Postings(found, common, BM25_K1, BM25_B, table=PostingsTable.of_layer(number))
        return found

    def layer_for(self, scope: str | None):
        """The layer a query's scope asks for (L1 documents for a whole act, L2 sections for a whole section,
        L3 passages otherwise), as the bundle chooses it; L3 when the database cannot search it."""
        for number in SCOPE_LAYERS.get(scope or "", ()):
            found = self.layer(number)
            if found is not None and len(found.chunks):
                return found
        return self.passages

    def section_headings(self, sections, citations: list[str]):
        """``QueryLists.section_headings``, the acts' section rows read in one statement first."""
        key = tuple(sorted(citations))
        if key not in self.__dict__.get("_section_headings", {}):
            docs = {d for d, doc in self.documents.items() if doc.get("citation") in set(citations)}
            sections.chunks.prefetch(np.flatnonzero(sections.mask(docs)).tolist())
        return super().section_headings(sections, citations)

    def definition_chunks(self) -> Iterator[dict]:
        """The passages of acts that may hold a statutory definition (what ``harvest_definitions`` reads)."""
        with self.connection() as conn:
            rows = conn.execute(DEFINITION_CANDIDATES).fetchall()
        return ({"chunk_id": cid, "text": text, "citation": citation} for cid, text, citation in rows)

    def lexicon_texts(self, most: int) -> Iterator[str]:
        step = max(1, self.passage_total // most)
        with self.connection() as conn:
            rows = conn.execute(
                EVERY_NTH_TEXT,
                (step,),
            ).fetchall()
        return (text for (text,) in rows)

    @staticmethod
    def _check(conn: psycopg.Connection) -> None:
        has_column, has_postings = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'chunks'"
            " AND column_name = 'lexemes' AND table_schema = current_schema()),"
            " to_regclass('chunk_postings') IS NOT NULL"
        ).fetchone()
        for present, what in ((has_column, "chunks.lexemes column"), (has_postings, "chunk_postings table")):
            if not present:
                raise BackendError(f"the database has no {what}: migrate it (mendel.core.db.migrate)")
        live, with_lexemes, with_vectors = conn.execute(LIVE_COVERAGE).fetchone()
        if live == 0:
            raise BackendError("the database holds no live passages to search: run the nightly first")
        missing = [
            f"{live - found} of {live} live passages have no {what}"
            for found, what in (
                (with_lexemes, "lexemes (mendel.index.fulltext.fill_lexemes, the bm25_index asset)"),
                (with_vectors, "embedding (the chunk_embeddings asset)"),
            )
            if found < live
        ]
        if missing:
            raise BackendError("the database cannot serve searches: " + "; ".join(missing))

    def _load_versions(self, conn: psycopg.Connection) -> None:
        """Every act's version fields, and the live passages' as ``serving.ranking.in_force`` columns."""
        self.act_versions = ActChunkVersions(conn)
        self._version_columns = in_force.VersionColumns.of(
            [
                self.act_versions.fields(doc_id, cid)
                for cid, doc_id in zip(self.passages.chunk_ids, self.passages.doc_ids())
            ]
        )
        self._consolidated_docs = frozenset(d for d, kind in self.act_versions.kinds.items() if kind == CONSOLIDATED)

    def in_force_mask(self, layer, at: date, version: str | None = None) -> np.ndarray | None:
        if layer is None or layer is self.passages:
            return self._version_columns.mask(at, version)
        columns = self.__dict__.setdefault("_upper_versions", {})
        if layer.layer not in columns:
            fields = [self.act_versions.fields(d, cid) for cid, d in zip(layer.chunk_ids, layer.doc_ids())]
            columns[layer.layer] = in_force.VersionColumns.of(fields)
        return columns[layer.layer].mask(at, version)

    def left_out(self, at: date, version: str | None = None) -> tuple[frozenset[str], frozenset[str]]:
        """What a search on ``at`` (or of the promulgated text) may not return, by ``serving.ranking.in_force``'s rule:
        (documents, passages). Documents: consolidated acts, for a promulgated search only."""
        mask = self._version_columns.mask(at, version)
        passages = frozenset(self.passages.chunk_ids[~mask].tolist()) if mask is not None else frozenset()
        return (self._consolidated_docs if version == in_force.PROMULGATED else frozenset()), passages

    def _identifier_docs(self) -> dict[str, list[str]]:
        """A decision's keys (citation, file number, upper-cased ECLI) -> its documents (serving.ranking.layers)."""
        from serving.ranking.layers import identifier_keys

        found: dict[str, list[str]] = {}
        for doc_id, doc in self.documents.items():
            for key in identifier_keys(doc.get("citation"), doc_id):
                found.setdefault(key, []).append(doc_id)
        return found

    @property
    def embedder(self):
        if self._embedder is None:
            with self._embedder_lock:
                if self._embedder is None:
                    from mendel.index.embed import get_embedder

                    self._embedder = get_embedder()
        return self._embedder

    # --- filters -----------------------------------------------------------------------------------------

    def allowed_documents(self, filters) -> list[str] | None:
        """The documents a search may draw passages from; None when every live passage may be returned."""
        filters = SearchFilters.of(filters)
        if filters.is_empty():
            return None  # every list keeps live passages only, citation records' none among them
        matching = filters.matching_documents(self.documents)
        return [d for d in self.passage_docs if d in matching]

    def allowed_chunks(self, filters, layer=None) -> np.ndarray | None:
        """Mask over a layer's chunks (the passages by default) that pass ``filters``; None when nothing is
        filtered."""
        filters = SearchFilters.of(filters)
        if filters.is_empty():
            return None
        return (layer or self.passages).mask(filters.matching_documents(self.documents))

    def _allowed(self, filters, layer, at: date, version: str | None) -> np.ndarray | None:
        return in_force.combine(self.allowed_chunks(filters, layer), self.in_force_mask(layer, at, version))

    @property
    def passage_doc_ids(self) -> frozenset[str]:
        """The documents with live passages: the only ones a search can return."""
        return frozenset(self.passage_counts)

    def filter_counts(self, filters) -> dict | None:
        """How much of the collection ``filters`` leave to search: documents and passages (``empty`` when none);
        None when nothing is filtered."""
        docs = self.allowed_documents(filters)
        if docs is None:
            return None
        passages = sum(self.passage_counts[d] for d in docs)
        return {"documents": len(docs), "passages": passages, "empty": passages == 0}

    # --- ranked lists (chunk ids, best first) --------------------------------------------------------------

    def lexical_scored(
        self, conn, tokens: list[str], n: int, allowed: np.ndarray | None = None, extra: list[str] = (), layer=None
    ) -> list[tuple[str, float]]:
        """Passages by BM25 of analysed ``tokens`` (each as often as it occurs) and ``EXPANSION_WEIGHT`` times BM25
        of the ``extra`` terms, among ``allowed`` (a mask over the rows; None: all), as the bundle scores and ranks
        them (``serving.ranking.pg_lexical``): (chunk id, score), best first. Terms no live passage holds count
        nothing. ``layer``: another layer's chunks instead of the passages."""
        index = layer or self.passages
        postings = self.postings_of(index)
        frequency = postings.frequencies(conn, [*tokens, *extra])
        tokens = [t for t in tokens if frequency[t]]
        extra = [t for t in dict.fromkeys(extra) if frequency[t] and t not in tokens]
        found = postings.top(conn, tokens, n, allowed, extra, EXPANSION_WEIGHT, frequency)
        return [(index.chunk_ids[row], score) for row, score in found]

    def postings_of(self, layer) -> BM25Postings:
        """A layer's BM25 postings (the passages': ``bm25``)."""
        return self.bm25 if layer is self.passages else layer.postings

    def lexical_ranking(
        self, conn, text: str, n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        """Passages by BM25 of the query's terms (each once), in ``docs`` (None: all), none of ``skip``."""
        allowed = None
        if docs is not None or skip:
            allowed = self.passages.mask(docs) if docs is not None else np.ones(self.passage_total, dtype=bool)
            allowed[self.passages.positions(skip)] = False
        return [cid for cid, _ in self.lexical_scored(conn, query_terms(text), n, allowed)]

    def bm25_scored(
        self, query: str, n: int = CANDIDATES, allowed=None, layer=None, expansion: str = ""
    ) -> tuple[list[int], list[float]]:
        """``BundleLists.bm25_scored`` over the database: rows by BM25 of ``query`` (a term as often as it is
        typed), ``expansion``'s own terms at ``EXPANSION_WEIGHT``, among ``allowed``."""
        index = layer or self.passages
        typed, expanding = analyze(query), (analyze(expansion) if expansion else [])
        with self.connection() as conn:
            found = self.lexical_scored(conn, typed, n, allowed, expanding, layer=index)
        ranked = [(index.position(cid), score) for cid, score in found]
        return [p for p, _ in ranked], [s for _, s in ranked]

    def lexical_best(self, text: str, allowed=None, layer=None) -> tuple[float, float]:
        """The floor's lexical signal parts (``serving.ranking.coverage.lexical_signal``) over ``layer`` (the
        passages by default): the best BM25 score of the query's known terms among ``allowed``, and the sum of idf
        of all its terms (a term no chunk of the layer holds counts the idf it would have in one), each computed as
        the bundle computes it."""
        index = layer or self.passages
        total = len(index.chunk_ids)
        terms = analyze(text)
        with self.connection() as conn:
            frequency = self.postings_of(index).frequencies(conn, terms)
            known = [t for t in terms if frequency[t]]
            df = np.asarray([frequency[t] for t in known], dtype=np.float64)  # coverage._idf_table's arithmetic
            idf = dict(zip(known, np.log1p((float(total) - df + 0.5) / (df + 0.5)).tolist()))
            unseen = math.log1p((total + 0.5) / 0.5)
            weight = sum(idf[t] if frequency[t] else unseen for t in terms)
            if not known or weight <= 0:
                return 0.0, weight
            found = self.lexical_scored(conn, known, 1, allowed, layer=index)
        return (found[0][1] if found else 0.0), weight

    def passage_count(self) -> int:
        return self.passage_total

    def passage_frequencies(self, terms, least: int = 0) -> dict[str, int]:
        """``QueryLists.passage_frequencies`` from the database's postings of the passages; from ``COMMON_PASSAGES``
        up only the counts made at load (every term that common was counted then): no postings read."""
        terms = list(terms)
        if least >= COMMON_PASSAGES:
            return self.bm25.counted_at_load(terms)
        with self.connection() as conn:
            return self._frequencies_of(conn, terms) if terms else {}

    def _frequency(self, conn, term: str) -> int:
        """How many live passages hold an analysed term (BM25's document frequency)."""
        return self._frequencies_of(conn, [term])[term]

    def _frequencies_of(self, conn, terms) -> dict[str, int]:
        """Analysed terms -> how many live passages hold each (``BM25Postings.frequencies``)."""
        return self.bm25.frequencies(conn, terms)

    def dense_pending(self, query: str, n: int = CANDIDATES, allowed=None, layer=None):
        """The dense list started on a worker thread (``serving.ranking.dense``, as the bundle's): its future."""
        return self._dense.pending((layer or self.passages).faiss, query, n, allowed)

    def reference_tiers(self, query: str, allowed=None, understanding=None, layer=None) -> tuple[list[int], list[int]]:
        """``BundleLists.reference_tiers`` over the database: (the reference's own rows, rows citing it) in
        ``layer`` (the passages by default; only passages link entities, so only they are citing)."""
        from serving.query.analyze import understand

        index = layer or self.passages
        docs, skip = index.restriction(allowed)
        with self.connection() as conn:
            own, citing = self.reference_ids(
                conn, understanding or understand(query), docs, CANDIDATES, skip, layer=index.layer
            )
        return index.positions(own), index.positions(citing)

    def reference_ids(
        self,
        conn,
        understanding,
        docs: list[str] | None,
        n: int,
        skip: frozenset[str] = frozenset(),
        layer: int = PASSAGE_LAYER,
    ) -> tuple[list[str], list[str]]:
        """Exact references (act + provision, file number, ECLI), as ``Searcher.reference_tiers``: the provision's
        own section (or the chunk its heading line stands in) or the decision itself, then passages citing
        exactly that reference (at most ``n``, in document order; none in an upper ``layer``)."""
        own: list[str] = []
        wanted: list[str] = []
        for entity in understanding.entities:
            if entity.label == "LAW_REF":
                act, _, key = provision_key(entity.norm)
                if key is None:
                    continue
                head_text = key[1]
                values = {
                    "layer": layer,
                    "act": act,
                    "head": head_text,
                    "docs": docs,
                    "re": "(?in)^[ \t]*" + "[ \t]*".join(re.escape(p) for p in head_text.split()) + "[ \t]*$",
                }
                found = (
                    conn.execute(PROVISION_BY_HEADING, values).fetchall()
                    or conn.execute(PROVISION_BY_TEXT, values).fetchall()
                )
                own += [cid for (cid,) in found]
            elif entity.label == "DECISION_REF":
                decisions = self.identifier_docs.get(entity.norm, [])
                if decisions:
                    found = conn.execute(DECISION_PASSAGES, {"these": decisions, "docs": docs, "layer": layer})
                    own += [cid for (cid,) in found]
            else:
                continue
            wanted.append(entity.id)
        if wanted:  # a form two codes go by: passages citing the older code's provision cite it too
            wanted += getattr(understanding, "older_codes", [])
        own = [cid for cid in dict.fromkeys(own) if cid not in skip]
        citing: list[str] = []
        if wanted and layer == PASSAGE_LAYER:
            citing = [
                row[0]
                for row in conn.execute(
                    CITING_PASSAGES, {"wanted": wanted, "own": own, "docs": docs, "k": n + len(skip)}
                )
                if row[0] not in skip
            ][:n]
        return own, citing
