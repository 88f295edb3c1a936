"""PostgreSQL opened for search (``serving.ranking.pg_search``): a small connection pool, the live passages' counts
and act versions, and one query's ranked lists over the live passages (layer 3 of the current version of active
documents), fused by weighted RRF with exact references leading:

- lexical: full text over ``chunks.lexemes`` (``mendel.index.fulltext``: the BM25 analyser's tokens of the chunk in
  context), terms ORed, ranked by BM25 computed in SQL from the lexemes' positions (``ts_rank_cd`` has no IDF:
  "zákon" would count as much as "výživné");
- dense: pgvector HNSW (``mendel.index.pgvector.search_pgvector``) over ``chunks.embedding``;
- graph: the query's entities, spread one hop along ``graph_edges``, scoring the passages that mention them
  (``mentions``) as ``serving.ranking.graph_retrieval.EntityGraph`` does (entity specificity, chunk focus).
"""

from __future__ import annotations

import math
import queue
import re
import threading
from collections import OrderedDict
from contextlib import contextmanager
from datetime import date
from typing import Iterator

import numpy as np
import psycopg

from mendel.index.fulltext import query_terms, term_literal, tsquery_literal
from mendel.index.pgvector import search_pgvector
from mendel.passages.act_passages import CONSOLIDATED, ActChunkVersions
from serving.ranking import in_force
from serving.ranking.backend import BackendError
from serving.ranking.filters import SearchFilters
from serving.ranking.fusion import GRAPH_MIN_SHARE, RRF_WEIGHTS, entity_coverage, rrf_fuse
from serving.ranking.graph_retrieval import (
    ACT_SHARE,
    MAX_NEIGHBOURS,
    NEIGHBOUR_SHARE,
    SAME_PROVISION_SHARE,
    provision_head,
)
from serving.ranking.layers import PASSAGE_LAYER
from serving.ranking.pg_sql import (
    ACT_PASSAGES,
    BM25_B,
    BM25_K1,
    CITING_PASSAGES,
    DECISION_PASSAGES,
    DOCUMENT_FREQUENCY,
    GRAPH,
    GRAPH_FILTERED,
    LEXICAL,
    LIVE_AMONG,
    LIVE_COUNT,
    LIVE_COVERAGE,
    MEAN_LENGTH,
    PASSAGES_BY_DOCUMENT,
    PROVISION_BY_HEADING,
    PROVISION_BY_TEXT,
)
from serving.ranking.references import lead_exact, provision_key

GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")  # mendel.index.entity_graph.GRAPH_LABELS
MAX_CONNECTIONS = 8  # idle connections kept per searcher; more are opened under load and closed after
# hnsw.ef_search. On the dev set over a 3,419-passage home (hashed-bag-of-words vectors) 100 missed exact nearest
# passages: default search R@1 0.619 / R@10 0.897 at 100, 0.683 / 0.913 at 200 and at 400.
EF_SEARCH = 200
LEXICAL_CANDIDATES = 1000  # passages ranked by the lexical list, at most about (see lexical_ranking)
DENSE_MARGIN = 10  # nearest passages fetched beyond those wanted, for the few that may not be live
GRAPH_MARGIN = 20  # graph candidates fetched beyond those wanted, for passages that are not live
GRAPH_BATCHES = 5  # then as many further batches at most
FREQUENCIES_KEPT = 100_000  # terms' document frequencies cached per searcher (one searcher per bundle version)


class PostgresLists:
    """The database side of a PostgreSQL searcher. :meth:`load` reads what the lists need (the documents are the
    searcher's: ``documents``); a database without searchable passages raises :class:`BackendError`."""

    def __init__(self, database_url: str, embedder=None, ef_search: int = EF_SEARCH):
        self.database_url = database_url
        self._embedder = embedder
        self.ef_search = ef_search
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._embedder_lock = threading.Lock()
        self._frequencies: OrderedDict[str, int] = OrderedDict()
        self.documents: dict[str, dict] = {}

    # --- connections ----------------------------------------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection of this searcher's small pool (autocommit: a search never holds a transaction open)."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = psycopg.connect(self.database_url, autocommit=True)
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
        self.passages = conn.execute(LIVE_COUNT).fetchone()[0]
        self.mean_length = float(conn.execute(MEAN_LENGTH).fetchone()[0] or 1.0)
        self._load_versions(conn)
        self.passage_counts = {doc_id: count for doc_id, count in conn.execute(PASSAGES_BY_DOCUMENT)}
        self.passage_docs = sorted(self.passage_counts)  # citation records, for one, have none

    @staticmethod
    def _check(conn: psycopg.Connection) -> None:
        has_column = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'chunks'"
            " AND column_name = 'lexemes' AND table_schema = current_schema())"
        ).fetchone()[0]
        if not has_column:
            raise BackendError("the database has no chunks.lexemes column: migrate it (mendel.core.db.migrate)")
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
        """Every act's version fields, and the live passages of acts with versions as ``serving.ranking.in_force``
        columns (what a date leaves out is among them)."""
        self.act_versions = ActChunkVersions(conn)
        rows = conn.execute(ACT_PASSAGES, (sorted(self.act_versions.timelines),)).fetchall()
        self._versioned_ids = np.array([cid for cid, _ in rows], dtype=object)
        self._version_columns = in_force.VersionColumns.of(
            [self.act_versions.fields(doc_id, cid) for cid, doc_id in rows]
        )
        self._consolidated_docs = frozenset(d for d, kind in self.act_versions.kinds.items() if kind == CONSOLIDATED)

    def left_out(self, at: date, version: str | None = None) -> tuple[frozenset[str], frozenset[str]]:
        """What a search on ``at`` (or of the promulgated text) may not return, by ``serving.ranking.in_force``'s rule:
        (documents, passages). Documents: consolidated acts, for a promulgated search only."""
        mask = self._version_columns.mask(at, version)
        passages = frozenset(self._versioned_ids[~mask].tolist()) if mask is not None else frozenset()
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

    def lexical_ranking(
        self, conn, text: str, n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        """Passages by BM25 of the query's terms, none of ``skip``. Candidates are the passages holding the
        rarest terms, taken until about ``LEXICAL_CANDIDATES`` passages (at least one term): a term in most
        passages ("1", "soud") adds little to any score and would make every one of them a candidate to rank."""
        frequency = {term: self._frequency(conn, term) for term in query_terms(text)}
        terms = [term for term, found in frequency.items() if found]
        if not terms:
            return []
        selective, total = [], 0
        for term in sorted(terms, key=lambda t: (frequency[t], t)):
            if selective and total + frequency[term] > LEXICAL_CANDIDATES:
                break
            selective.append(term)
            total += frequency[term]
        idfs = [math.log(1 + (self.passages - frequency[t] + 0.5) / (frequency[t] + 0.5)) for t in terms]
        values = {
            "any": tsquery_literal(selective),
            "docs": docs,
            "k": n + len(skip),
            "terms": terms,
            "idfs": idfs,
            "k1": BM25_K1,
            "b": BM25_B,
            "mean_length": self.mean_length,
        }
        return [chunk_id for chunk_id, _ in conn.execute(LEXICAL, values) if chunk_id not in skip][:n]

    def _frequency(self, conn, term: str) -> int:
        """How many live passages hold an analysed term (BM25's document frequency)."""
        found = self._frequencies.get(term)
        if found is None:
            found = conn.execute(DOCUMENT_FREQUENCY, {"any": term_literal(term), "docs": None}).fetchone()[0]
            with self._embedder_lock:
                self._frequencies[term] = found
                while len(self._frequencies) > FREQUENCIES_KEPT:
                    self._frequencies.popitem(last=False)
        return found

    def dense_ranking(
        self, conn, text: str, n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        """HNSW over the passages of the table alone (joined to documents, the planner sorts every live passage
        exactly instead: 250 ms against 3 ms at 10,000), then only the live ones kept; should superseded or
        withdrawn passages crowd the candidates out, the joined query answers instead."""
        vector = np.asarray(self.embedder.query(text), dtype=np.float32).ravel()
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            return []
        vector = (vector / norm).tolist()
        wanted = n + DENSE_MARGIN + len(skip)
        found = [
            cid
            for cid, _ in search_pgvector(
                conn, vector, wanted, ef_search=max(self.ef_search, wanted), layer=PASSAGE_LAYER, doc_ids=docs
            )
        ]
        live = {row[0] for row in conn.execute(LIVE_AMONG, (found,))}
        kept = [cid for cid in found if cid in live and cid not in skip]
        if len(kept) >= n or len(found) < wanted:
            return kept[:n]
        wanted = n + len(skip)
        return [
            cid
            for cid, _ in search_pgvector(
                conn,
                vector,
                wanted,
                ef_search=max(self.ef_search, wanted),
                current_only=True,
                layer=PASSAGE_LAYER,
                doc_ids=docs,
            )
            if cid not in skip
        ][:n]

    def graph_activation(self, conn, query: str, understanding) -> dict[str, float]:
        """Entity id -> activation: the query's entities found in ``graph_nodes`` (a provision the graph does
        not hold enters through the same provision cited more precisely and, more weakly, its act), then one
        hop along ``graph_edges`` (the ``MAX_NEIGHBOURS`` strongest), as ``EntityGraph.activate``."""
        from mendel.ner.rules import split_law_ref_norm
        from serving.query.analyze import analyze_query

        wanted = [(e["id"], e["weight"]) for e in analyze_query(query, understanding=understanding)["entities"]]
        if not wanted:
            return {}
        known = {
            row[0]
            for row in conn.execute(
                "SELECT entity_id FROM graph_nodes WHERE entity_id = ANY(%s)", ([e for e, _ in wanted],)
            )
        }
        seeds: dict[str, float] = {}

        def seed(entity: str, weight: float) -> None:
            seeds[entity] = max(seeds.get(entity, 0.0), weight)

        for entity, weight in wanted:
            if entity in known:
                seed(entity, weight)
                continue
            label, _, norm = entity.partition(":")
            act, provision = split_law_ref_norm(norm) if label == "LAW_REF" else (None, None)
            if not act:
                continue
            head = provision_head(provision)
            rows = conn.execute(
                "SELECT entity_id, norm FROM graph_nodes WHERE label = 'LAW_REF' AND (norm = %s OR norm LIKE %s)",
                (act, act.replace("%", r"\%") + " %"),
            ).fetchall()
            if head:
                same = [
                    e
                    for e, found_norm in rows
                    if split_law_ref_norm(found_norm)[0] == act
                    and provision_head(split_law_ref_norm(found_norm)[1]) == head
                ]
                for e in same:
                    seed(e, weight * SAME_PROVISION_SHARE / math.sqrt(len(same)))
                if any(found_norm == act for _, found_norm in rows):
                    seed(f"LAW_REF:{act}", weight * ACT_SHARE)
        if not seeds:
            return {}
        adjacency: dict[str, dict[str, float]] = {s: {} for s in seeds}
        for source, target, weight in conn.execute(
            "SELECT source, target, weight FROM graph_edges WHERE (source = ANY(%(s)s) OR target = ANY(%(s)s))"
            " AND weight > 0 AND source <> target",
            {"s": list(seeds)},
        ):
            for a, b in ((source, target), (target, source)):
                if a in adjacency:
                    adjacency[a][b] = adjacency[a].get(b, 0.0) + float(weight)
        spread: dict[str, float] = {}
        for entity, weight in seeds.items():
            row = adjacency[entity]
            strongest = max(row.values(), default=0.0)
            if strongest <= 0:
                continue
            share = weight * NEIGHBOUR_SHARE / strongest
            for other, w in row.items():
                if other not in seeds:
                    spread[other] = spread.get(other, 0.0) + share * w
        scores = dict(seeds)
        for other, value in sorted(spread.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_NEIGHBOURS]:
            scores[other] = value
        return scores

    def graph_ranking(
        self, conn, activation: dict[str, float], n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        if not activation:
            return []
        ids = sorted(activation)
        linking = dict(conn.execute("SELECT entity_id, chunks FROM graph_nodes WHERE entity_id = ANY(%s)", (ids,)))
        weights = [activation[e] * math.log1p(max(self.passages, 1) / max(linking.get(e) or 0, 1)) for e in ids]
        values = {"ids": ids, "weights": weights, "labels": list(GRAPH_LABELS), "docs": docs, "k": n + GRAPH_MARGIN}
        kept: list[str] = []
        for batch in range(GRAPH_BATCHES):
            values["skip"] = batch * values["k"]
            found = [cid for cid, score in conn.execute(GRAPH if docs is None else GRAPH_FILTERED, values) if score > 0]
            live = {row[0] for row in conn.execute(LIVE_AMONG, (found,))}
            kept += [cid for cid in found if cid in live and cid not in skip]
            if len(kept) >= n or len(found) < values["k"]:
                break
        return kept[:n]

    def reference_tiers(
        self, conn, understanding, docs: list[str] | None, n: int, skip: frozenset[str] = frozenset()
    ) -> tuple[list[str], list[str]]:
        """Exact references (act + provision, file number, ECLI), as ``Searcher.reference_tiers``: the provision's
        own section (or the passage its heading line stands in) or the decision itself, then passages citing
        exactly that reference (at most ``n``, in document order)."""
        own: list[str] = []
        wanted: list[str] = []
        for entity in understanding.entities:
            if entity.label == "LAW_REF":
                act, _, key = provision_key(entity.norm)
                if key is None:
                    continue
                head_text = key[1]
                values = {
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
                    own += [cid for (cid,) in conn.execute(DECISION_PASSAGES, {"these": decisions, "docs": docs})]
            else:
                continue
            wanted.append(entity.id)
        own = [cid for cid in dict.fromkeys(own) if cid not in skip]
        citing: list[str] = []
        if wanted:
            citing = [
                row[0]
                for row in conn.execute(
                    CITING_PASSAGES, {"wanted": wanted, "own": own, "docs": docs, "k": n + len(skip)}
                )
                if row[0] not in skip
            ][:n]
        return own, citing

    def rank(
        self,
        conn,
        query: str,
        understanding,
        docs: list[str] | None,
        n: int,
        dense: bool = True,
        graph: bool = True,
        skip: frozenset[str] = frozenset(),
    ) -> tuple[list[tuple[str, float, list[str]]], dict[str, float]]:
        """One query's fused candidates (chunk id, score, lists; none of ``skip``) and the graph activation
        behind them."""
        text = understanding.normalized
        rankings = {"bm25": self.lexical_ranking(conn, text, n, docs, skip)}
        if dense:
            rankings["dense"] = self.dense_ranking(conn, text, n, docs, skip)
        weights = dict(RRF_WEIGHTS)
        activation: dict[str, float] = {}
        if graph:
            activation = self.graph_activation(conn, query, understanding)
            share = max(entity_coverage(understanding), GRAPH_MIN_SHARE)
            if activation and share > 0:
                rankings["graph"] = self.graph_ranking(conn, activation, n, docs, skip)
                weights["graph"] = RRF_WEIGHTS["graph"] * share
        fused = rrf_fuse(rankings, weights=weights)
        own, citing = self.reference_tiers(conn, understanding, docs, n, skip)
        return lead_exact(fused, own, citing, n), activation
