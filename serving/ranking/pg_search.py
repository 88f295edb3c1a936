"""The postgres serving backend (``MENDEL_SERVING_BACKEND=postgres``): searches answered from PostgreSQL, so many
replicas serve one database instead of each loading a bundle.

The same three lists as the bundle backend (``serving.ranking.search``), over the live passages (layer 3 of the current
version of active documents), fused by the same weighted RRF with exact references leading:

- lexical: full text over ``chunks.lexemes`` (migration 0016, ``mendel.index.fulltext``: the BM25 analyser's tokens
  of the chunk in context), terms ORed, ranked by BM25 computed in SQL from the lexemes' positions (``ts_rank_cd``
  has no IDF: "zákon" would count as much as "výživné");
- dense: pgvector HNSW (``mendel.index.pgvector.search_pgvector``) over ``chunks.embedding``;
- graph: the query's entities, spread one hop along ``graph_edges``, scoring the passages that mention them
  (``mentions``) as ``serving.ranking.graph_retrieval.EntityGraph`` does (entity specificity, chunk focus).

Search in force as the bundle backend (``serving.ranking.in_force``, one rule for both): an act's passages are those of its
version served on ``at`` (default today), or its promulgated text with ``version="promulgated"``; each act hit
carries its version fields (``mendel.passages.act_passages.ActChunkVersions``, what the bundle's chunk rows carry).
The passages left out are few (other versions of acts with versions), so each list fetches that many more and drops
them; a promulgated search leaves consolidated acts out by document.

What it does not do (yet): the L1/L2 layers (a whole-act or whole-section query is answered with passages), the
lay-to-legal bridge and the learned second stage of the bundle backend, the coverage block and relevance floor
(``details`` gets no ``coverage``). The bundle directory is still what names
the version: the API reloads when ``bundles/CURRENT`` changes, and the version is that bundle's name.
"""

from __future__ import annotations

import functools
import json
import math
import os
import queue
import re
import threading
from collections import OrderedDict
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import psycopg

from mendel.index import bundle
from mendel.index.fulltext import query_terms, term_literal, tsquery_literal
from mendel.index.pgvector import search_pgvector
from mendel.passages.act_passages import CONSOLIDATED, ActChunkVersions
from serving.ranking import in_force
from serving.ranking.filters import SearchFilters
from serving.ranking.fusion import (
    GRAPH_MIN_SHARE,
    RRF_WEIGHTS,
    SUBQUERY_WEIGHTS,
    entity_coverage,
    interleave_fuse,
    lead_with,
    ordered_lists,
    rrf_fuse,
)
from serving.ranking.graph_retrieval import (
    ACT_SHARE,
    MAX_NEIGHBOURS,
    NEIGHBOUR_SHARE,
    SAME_PROVISION_SHARE,
    provision_head,
)
from serving.ranking.layers import PASSAGE_LAYER
from serving.ranking.search import CANDIDATES, PROVISION_HEAD_RE, RERANK_MAX, Hit

BACKEND_ENV = "MENDEL_SERVING_BACKEND"
BACKENDS = ("bundle", "postgres")
GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")  # mendel.index.entity_graph.GRAPH_LABELS
MAX_CONNECTIONS = 8  # idle connections kept per searcher; more are opened under load and closed after
# hnsw.ef_search. On the dev set over a 3,419-passage home (hashed-bag-of-words vectors) 100 missed exact nearest
# passages: default search R@1 0.619 / R@10 0.897 at 100, 0.683 / 0.913 at 200 and at 400.
EF_SEARCH = 200
LEXICAL_CANDIDATES = 1000  # passages ranked by the lexical list, at most about (see lexical_ranking)
DENSE_MARGIN = 10  # nearest passages fetched beyond those wanted, for the few that may not be live
GRAPH_MARGIN = 20  # graph candidates fetched beyond those wanted, for passages that are not live
GRAPH_BATCHES = 5  # then as many further batches at most
RECENT_CHUNKS = 4096  # chunk rows kept addressable by position (see PostgresSearcher.chunks)
FREQUENCIES_KEPT = 100_000  # terms' document frequencies cached per searcher (one searcher per bundle version)

# A passage is live when it is layer 3 of the current version of an active document that is not a citation
# record: what mendel.index.corpus.load_layer gives the bundle.
_LIVE = (
    "JOIN documents d ON d.doc_id = c.doc_id AND d.current_version_id = c.version_id"
    " WHERE c.layer = 3 AND d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)
_DOCS = " AND (%(docs)s::text[] IS NULL OR c.doc_id = ANY(%(docs)s::text[]))"

# The GIN scan first, fenced off (MATERIALIZED): joined to documents straight away, the planner walks every live
# passage and tests each (300 ms at 10,000 passages, against a few ms).
_MATCHING = (
    "WITH m AS MATERIALIZED (SELECT c.chunk_id, c.doc_id, c.version_id, c.lexemes FROM chunks c"
    " WHERE c.layer = 3 AND c.lexemes @@ %(any)s::tsquery" + _DOCS + ")"
)
_LIVE_MATCHES = (
    " FROM m JOIN documents d ON d.doc_id = m.doc_id AND d.current_version_id = m.version_id"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record'"
)
# A term's document frequency among the live passages (cached per searcher).
_DOCUMENT_FREQUENCY = _MATCHING + " SELECT count(*)" + _LIVE_MATCHES
# BM25 of the live candidates (bm25s' defaults: k1 1.5, b 0.75, Lucene's IDF, given per term): a term's frequency
# is the number of its positions in the passage's lexemes; a passage's length is its number of distinct lexemes
# (against their mean), which orders passages as their token count does without unnesting every one.
_LEXICAL = _MATCHING + (
    ", live AS (SELECT m.chunk_id, m.lexemes" + _LIVE_MATCHES + "),"
    " terms(term, idf) AS (SELECT * FROM unnest(%(terms)s::text[], %(idfs)s::float8[]))"
    " SELECT l.chunk_id, sum(t.idf * cardinality(u.positions) * (%(k1)s + 1) / (cardinality(u.positions)"
    "  + %(k1)s * (1 - %(b)s + %(b)s * length(l.lexemes) / %(mean_length)s))) AS score"
    " FROM live l CROSS JOIN LATERAL unnest(l.lexemes) u JOIN terms t ON t.term = u.lexeme"
    " GROUP BY l.chunk_id ORDER BY score DESC, l.chunk_id LIMIT %(k)s"
)
BM25_K1, BM25_B = 1.5, 0.75
_MEAN_LENGTH = "SELECT avg(length(c.lexemes)) FROM chunks c " + _LIVE + " AND c.lexemes IS NOT NULL"
# The statements below are composed once here from the constant fragments above; values travel as parameters.
_LIVE_COUNT = "SELECT count(*) FROM chunks c " + _LIVE
_LIVE_COVERAGE = "SELECT count(*), count(c.lexemes), count(c.embedding) FROM chunks c " + _LIVE
_LIVE_AMONG = "SELECT c.chunk_id FROM chunks c " + _LIVE + " AND c.chunk_id = ANY(%s)"
# A provision's own passages: by the last part of their section heading, else by a heading line in their text.
_PROVISION_BY_HEADING = (
    "SELECT c.chunk_id FROM chunks c " + _LIVE + _DOCS + " AND d.citation = %(act)s"
    " AND lower(btrim(regexp_replace(c.section_path, '^.* > ', ''))) = %(head)s"
    " ORDER BY c.doc_id, c.seq"
)
_PROVISION_BY_TEXT = (
    "SELECT c.chunk_id FROM chunks c " + _LIVE + _DOCS + " AND d.citation = %(act)s"
    " AND c.text ~ %(re)s ORDER BY c.doc_id, c.seq"
)
_DECISION_PASSAGES = (
    "SELECT c.chunk_id FROM chunks c " + _LIVE + _DOCS + " AND c.doc_id = ANY(%(these)s) ORDER BY c.doc_id, c.seq"
)
_CITING_PASSAGES = (
    "SELECT DISTINCT c.chunk_id, c.doc_id, c.seq FROM mentions m JOIN chunks c"
    " ON c.chunk_id = m.chunk_id "
    + _LIVE
    + _DOCS
    + " AND m.entity_id = ANY(%(wanted)s) AND NOT (c.chunk_id = ANY(%(own)s))"
    " ORDER BY c.doc_id, c.seq LIMIT %(k)s"
)
_ACT_PASSAGES = "SELECT c.chunk_id, c.doc_id FROM chunks c " + _LIVE + " AND c.doc_id = ANY(%s) ORDER BY c.chunk_id"
_DOCUMENT_PASSAGES = (
    "SELECT c.chunk_id, c.page_start, c.page_end, c.section_path, c.text FROM chunks c "
    + _LIVE
    + " AND c.doc_id = %s ORDER BY c.seq"
)

# Passages linking the activated entities, scored as EntityGraph.ranking: the sum of activation x specificity
# (given per entity) over the entities a passage links, divided by the square root of how many graph entities it
# links. Liveness is checked on the best of them afterwards (a join per linked passage costs seconds when a
# common entity is active).
_GRAPH = (
    "WITH active(entity_id, weight) AS (SELECT * FROM unnest(%(ids)s::text[], %(weights)s::float8[])),"
    " linked AS (SELECT m.chunk_id, sum(a.weight) AS score FROM (SELECT DISTINCT chunk_id, entity_id FROM mentions"
    "  WHERE entity_id = ANY(%(ids)s::text[])) m JOIN active a ON a.entity_id = m.entity_id GROUP BY m.chunk_id),"
    " focus AS (SELECT m.chunk_id, count(DISTINCT m.entity_id) AS entities FROM mentions m"
    "  JOIN linked l ON l.chunk_id = m.chunk_id WHERE split_part(m.entity_id, ':', 1) = ANY(%(labels)s::text[])"
    "  GROUP BY m.chunk_id)"
    " SELECT l.chunk_id, l.score / sqrt(greatest(f.entities, 1)) AS score FROM linked l"
    " JOIN focus f ON f.chunk_id = l.chunk_id ORDER BY score DESC, l.chunk_id LIMIT %(k)s OFFSET %(skip)s"
)
_GRAPH_FILTERED = _GRAPH.replace(
    " JOIN focus f ON f.chunk_id = l.chunk_id",
    " JOIN focus f ON f.chunk_id = l.chunk_id JOIN chunks c ON c.chunk_id = l.chunk_id"
    " WHERE c.doc_id = ANY(%(docs)s::text[])",
)
_CHUNK_ROWS = (
    "SELECT c.chunk_id, c.doc_id, c.page_start, c.page_end, c.section_path, c.text, c.seq"
    " FROM chunks c WHERE c.chunk_id = ANY(%s)"
)


class BackendError(RuntimeError):
    """The database cannot serve searches (no lexemes or embeddings, or an unknown backend name)."""


# --- choosing the backend ---------------------------------------------------------------------------------


def backend_name(environ=None) -> str:
    """``MENDEL_SERVING_BACKEND``: ``bundle`` (the default) or ``postgres``."""
    value = ((environ if environ is not None else os.environ).get(BACKEND_ENV) or "bundle").strip().lower()
    if value not in BACKENDS:
        raise BackendError(f"{BACKEND_ENV}={value!r}: expected one of {', '.join(BACKENDS)}")
    return value


def searcher_factory(settings=None, environ=None) -> Callable[..., object]:
    """What builds the searcher of a bundle path (``SearcherHolder(searcher_factory=...)``) for the configured
    backend: ``serving.ranking.search.Searcher`` for ``bundle``; for ``postgres`` a :class:`PostgresSearcher` over the
    configured database (the bundle path names the version only)."""
    if backend_name(environ) == "bundle":
        from serving.ranking.search import Searcher

        return Searcher
    from mendel.core import db

    return functools.partial(PostgresSearcher, database_url=db.ready_url(settings))


def open_searcher(settings=None, environ=None):
    """The searcher of the latest published bundle for the configured backend (the CLI's)."""
    from mendel.core.config import get_settings

    settings = settings or get_settings()
    return searcher_factory(settings, environ)(bundle.current_bundle(settings.bundles_dir))


# --- the searcher -------------------------------------------------------------------------------------------


class RecentChunks:
    """``searcher.chunks`` for callers written for the bundle (``chunks[i]`` after ``bm25_ranking``): the
    rows this searcher returned lately, addressable by the positions it handed out; ``len`` is the number of
    live passages."""

    def __init__(self, count: int):
        self._count = count
        self._rows: OrderedDict[int, dict] = OrderedDict()
        self._next = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._count

    def add(self, row: dict) -> int:
        with self._lock:
            position, self._next = self._next, self._next + 1
            self._rows[position] = row
            while len(self._rows) > RECENT_CHUNKS:
                self._rows.popitem(last=False)
            return position

    def __getitem__(self, position: int) -> dict:
        with self._lock:
            return self._rows[position]


class PostgresSearcher:
    """Hybrid search over PostgreSQL with the interface of ``serving.ranking.search.Searcher`` that the API and CLI use:
    ``search``, ``documents``, ``document``, ``path``, ``manifest``. Raises :class:`BackendError` when the
    database has no searchable passages (no lexemes or no embeddings: run the nightly's index stage)."""

    def __init__(
        self,
        path: Path | str | None = None,
        embedder=None,
        reranker=None,
        *,
        database_url: str,
        ef_search: int = EF_SEARCH,
    ):
        self.path = Path(path) if path is not None else Path("postgres")
        self.database_url = database_url
        self._embedder = embedder
        self.reranker = reranker
        self.ef_search = ef_search
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._embedder_lock = threading.Lock()
        self._frequencies: OrderedDict[str, int] = OrderedDict()
        with self.connection() as conn:
            self._check(conn)
            self.documents = self._load_documents(conn)
            self.identifier_docs = self._identifier_docs()
            self.passages = conn.execute(_LIVE_COUNT).fetchone()[0]
            self.mean_length = float(conn.execute(_MEAN_LENGTH).fetchone()[0] or 1.0)
            self._load_versions(conn)
        # citation records are documents without passages
        self.passage_docs = sorted(d for d, doc in self.documents.items() if doc.get("doc_type") != "citation_record")
        manifest_file = self.path / bundle.MANIFEST
        self.manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
        self.manifest = {**self.manifest, "backend": "postgres"}
        self.chunks = RecentChunks(self.passages)
        self.doc_chunks: dict[str, list[int]] = {}  # no chunk table in memory: the page view shows no passage

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

    @staticmethod
    def _check(conn: psycopg.Connection) -> None:
        has_column = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'chunks'"
            " AND column_name = 'lexemes' AND table_schema = current_schema())"
        ).fetchone()[0]
        if not has_column:
            raise BackendError("the database has no chunks.lexemes column: migrate it (mendel.core.db.migrate)")
        live, with_lexemes, with_vectors = conn.execute(_LIVE_COVERAGE).fetchone()
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

    @staticmethod
    def _load_documents(conn: psycopg.Connection) -> dict[str, dict]:
        """The live documents, as the bundle's documents.json records them (mendel.nightly.publish_stage)."""
        rows = conn.execute(
            "SELECT d.doc_id, d.title, d.source, d.url, d.citation, d.doc_type, d.published, v.sha256,"
            " v.content_type, coalesce(top.summary, '') FROM documents d"
            " LEFT JOIN document_versions v ON v.version_id = d.current_version_id"
            " LEFT JOIN LATERAL (SELECT summary FROM chunks t WHERE t.version_id = d.current_version_id"
            "  AND t.layer = 1 LIMIT 1) top ON true"
            " WHERE d.status = 'active' ORDER BY d.doc_id"
        ).fetchall()
        from mendel.records.grounding import notice_links, record_grounding

        grounding = {**record_grounding(conn), **notice_links(conn)}  # a record's sources, an attachment's notice
        return {
            d: {
                "doc_id": d,
                "title": t,
                "source": s,
                "url": u,
                "citation": c,
                "doc_type": k,
                "published": p.isoformat() if p else None,
                "summary": summary,
                "sha256": h,
                "content_type": m,
                **grounding.get(d, {}),
            }
            for d, t, s, u, c, k, p, h, m, summary in rows
        }

    def _load_versions(self, conn: psycopg.Connection) -> None:
        """Every act's version fields, and the live passages of acts with versions as ``serving.ranking.in_force``
        columns (what a date leaves out is among them)."""
        self.act_versions = ActChunkVersions(conn)
        rows = conn.execute(_ACT_PASSAGES, (sorted(self.act_versions.timelines),)).fetchall()
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
        return [chunk_id for chunk_id, _ in conn.execute(_LEXICAL, values) if chunk_id not in skip][:n]

    def _frequency(self, conn, term: str) -> int:
        """How many live passages hold an analysed term (BM25's document frequency)."""
        found = self._frequencies.get(term)
        if found is None:
            found = conn.execute(_DOCUMENT_FREQUENCY, {"any": term_literal(term), "docs": None}).fetchone()[0]
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
        live = {row[0] for row in conn.execute(_LIVE_AMONG, (found,))}
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
            found = [
                cid for cid, score in conn.execute(_GRAPH if docs is None else _GRAPH_FILTERED, values) if score > 0
            ]
            live = {row[0] for row in conn.execute(_LIVE_AMONG, (found,))}
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
        from mendel.ner.rules import split_law_ref_norm

        own: list[str] = []
        wanted: list[str] = []
        for entity in understanding.entities:
            if entity.label == "LAW_REF":
                act, provision = split_law_ref_norm(entity.norm)
                head = PROVISION_HEAD_RE.match(provision) if provision else None
                if not (act and head):
                    continue
                head_text = " ".join(head.group(0).split()).lower()
                values = {
                    "act": act,
                    "head": head_text,
                    "docs": docs,
                    "re": "(?in)^[ \t]*" + "[ \t]*".join(re.escape(p) for p in head_text.split()) + "[ \t]*$",
                }
                found = (
                    conn.execute(_PROVISION_BY_HEADING, values).fetchall()
                    or conn.execute(_PROVISION_BY_TEXT, values).fetchall()
                )
                own += [cid for (cid,) in found]
            elif entity.label == "DECISION_REF":
                decisions = self.identifier_docs.get(entity.norm, [])
                if decisions:
                    own += [cid for (cid,) in conn.execute(_DECISION_PASSAGES, {"these": decisions, "docs": docs})]
            else:
                continue
            wanted.append(entity.id)
        own = [cid for cid in dict.fromkeys(own) if cid not in skip]
        citing: list[str] = []
        if wanted:
            citing = [
                row[0]
                for row in conn.execute(
                    _CITING_PASSAGES, {"wanted": wanted, "own": own, "docs": docs, "k": n + len(skip)}
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
        if own or citing:
            position = {item: rank for rank, (item, _, _) in enumerate(fused)}
            citing_set = set(citing)
            lead_items = sorted(own, key=lambda i: position.get(i, len(position)))
            lead_items += [item for item, _, _ in fused if item in citing_set and item not in lead_items]
            lead_items += [item for item in citing if item not in position]
            fused = lead_with(fused, list(dict.fromkeys(lead_items))[:n])
        return fused, activation

    # --- the search ---------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        dense: bool = True,
        filters=None,
        graph: bool = True,
        decompose: bool = True,
        rerank: bool = False,
        details: dict | None = None,
        bridge: bool = True,
        learned: bool = True,
        trace: list | None = None,
        at=None,
        version: str | None = None,
    ) -> list[Hit]:
        """Hybrid search over the live passages, with ``Searcher.search``'s arguments and hits. The bundle
        backend's lay-to-legal bridge and learned second stage (``bridge``, ``learned``, ``trace``) are not done
        here: accepted so callers need not know the backend, and listed in ``details["not_applied"]``. ``at``
        (default today) and ``version`` as the bundle backend (``serving.ranking.in_force``)."""
        from serving.query.analyze import understand
        from serving.query.decompose import decompose as split_query

        if rerank and self.reranker is None:
            raise ValueError("rerank requested but no cross-encoder is configured")
        at = at or date.today()
        in_force.check_version(version)
        found = understand(query)
        subqueries = split_query(query, found) if decompose else []
        if details is not None:
            details.update(
                {
                    "scope": found.scope,
                    "layer": PASSAGE_LAYER,
                    "subqueries": subqueries,
                    "entities": [e.id for e in found.entities],
                    "backend": "postgres",
                    "not_applied": [name for name, asked in (("bridge", bridge), ("learned", learned)) if asked],
                }
            )
        docs = self.allowed_documents(filters)
        left_docs, skip = self.left_out(at, version)
        if left_docs:
            docs = [d for d in (self.passage_docs if docs is None else docs) if d not in left_docs]
        if docs is not None and not docs:
            return []
        depth = max(k, CANDIDATES)
        with self.connection() as conn:
            fused, activation = self.rank(conn, query, found, docs, depth, dense=dense, graph=graph, skip=skip)
            found_by: dict[str, list[int]] = {}
            if subqueries:
                lists_of = {item: list(lists) for item, _, lists in fused}
                rankings = {"query": [item for item, _, _ in fused]}
                for number, sub in enumerate(subqueries, start=1):
                    ranked, sub_activation = self.rank(
                        conn, sub, understand(sub), docs, depth, dense=dense, graph=graph, skip=skip
                    )
                    rankings[f"subquery:{number}"] = [item for item, _, _ in ranked]
                    for rank, (item, _, lists) in enumerate(ranked):
                        if rank < k:
                            found_by.setdefault(item, []).append(number)
                        merged = lists_of.setdefault(item, [])
                        merged += [name for name in lists if name not in merged]
                    for entity, score in sub_activation.items():
                        activation[entity] = max(activation.get(entity, 0.0), score)
                weights = {name: SUBQUERY_WEIGHTS["query" if name == "query" else "subquery"] for name in rankings}
                fused = [
                    (item, score, ordered_lists(lists_of[item]))
                    for item, score, _ in interleave_fuse(rankings, weights=weights)
                ]
            top = fused[:RERANK_MAX] if rerank else fused[:k]
            rows = self._chunk_rows(conn, [item for item, _, _ in top])
            linked = self._linked_entities(conn, [item for item, _, _ in top], activation)
        rerank_scores: dict[str, float] = {}
        if rerank:
            scores = self.reranker.score(query, [self._passage_text(rows[item]) for item, _, _ in top])
            order = sorted(range(len(top)), key=lambda j: (-scores[j], j))
            fused = [top[j] for j in order] + fused[RERANK_MAX:]
            rerank_scores = {top[j][0]: float(scores[j]) for j in range(len(top))}
        hits = []
        for item, score, lists in fused[:k]:
            row = rows[item]
            doc = self.documents.get(row["doc_id"], {})
            hit = Hit(
                doc_id=row["doc_id"],
                title=doc.get("title") or "",
                source=doc.get("source") or "",
                url=doc.get("url") or "",
                page=row["page_start"],
                page_end=row["page_end"],
                section=row["section"],
                text=row["text"],
                score=round(score, 6),
                chunk_id=item,
                citation=doc.get("citation"),
                lists=lists + (["rerank"] if item in rerank_scores else []),
                entities=linked.get(item, []),
                subqueries=found_by.get(item, []),
                layer=PASSAGE_LAYER,
                rerank_score=rerank_scores.get(item),
            )
            for name, value in in_force.version_of(self.act_versions.fields(row["doc_id"], item), at).items():
                setattr(hit, name, value)
            hits.append(hit)
        return hits

    def _chunk_rows(self, conn, chunk_ids: list[str]) -> dict[str, dict]:
        if not chunk_ids:
            return {}
        return {
            cid: {
                "chunk_id": cid,
                "doc_id": doc_id,
                "page_start": start,
                "page_end": end,
                "section": section,
                "text": text,
                "seq": seq,
            }
            for cid, doc_id, start, end, section, text, seq in conn.execute(_CHUNK_ROWS, (chunk_ids,))
        }

    @staticmethod
    def _linked_entities(conn, chunk_ids: list[str], activation: dict[str, float]) -> dict[str, list[str]]:
        """Chunk id -> the activated entities it mentions, most activated first (a hit's ``entities``)."""
        if not chunk_ids or not activation:
            return {}
        found: dict[str, list[str]] = {}
        for chunk_id, entity in conn.execute(
            "SELECT DISTINCT chunk_id, entity_id FROM mentions WHERE chunk_id = ANY(%s) AND entity_id = ANY(%s)",
            (chunk_ids, list(activation)),
        ):
            found.setdefault(chunk_id, []).append(entity)
        return {cid: sorted(es, key=lambda e: (-activation[e], e)) for cid, es in found.items()}

    def _passage_text(self, row: dict) -> str:
        doc = self.documents.get(row["doc_id"], {})
        head = " — ".join(x for x in (doc.get("citation"), doc.get("title"), row["section"]) if x)
        return f"{head}\n{row['text']}" if head else row["text"]

    # --- what callers written for the bundle ask --------------------------------------------------------

    def bm25_ranking(self, query: str, n: int = CANDIDATES, allowed=None, layer=None) -> list[int]:
        """The lexical list as positions into :attr:`chunks` (``serving.query.analyze`` scores acts by it)."""
        with self.connection() as conn:
            ids = self.lexical_ranking(conn, query, n, self.allowed_documents(None))
            rows = self._chunk_rows(conn, ids)
        positions = []
        for cid in ids:
            row = rows[cid]
            doc = self.documents.get(row["doc_id"], {})
            positions.append(
                self.chunks.add(
                    {
                        **row,
                        "title": doc.get("title") or "",
                        "source": doc.get("source"),
                        "url": doc.get("url"),
                        "citation": doc.get("citation"),
                    }
                )
            )
        return positions

    def layer(self, number: int):
        return None  # passages only (see the module's docstring)

    def document(self, doc_id: str, at: date | None = None, version: str | None = None) -> dict | None:
        """A document's metadata with its passages in order; None when unknown. An act with versions lists one
        version's passages, as search serves them (``serving.ranking.in_force``): the version served on ``at`` (default
        today), or its promulgated text with ``version="promulgated"`` — never every version's passages at once."""
        doc = self.documents.get(doc_id)
        if doc is None:
            return None
        in_force.check_version(version)
        _, skip = self.left_out(at or date.today(), version)
        with self.connection() as conn:
            rows = conn.execute(_DOCUMENT_PASSAGES, (doc_id,)).fetchall()
        return {
            **doc,
            "chunks": [
                {"chunk_id": cid, "page": start, "page_end": end, "section": section, "text": text}
                for cid, start, end, section, text in rows
                if cid not in skip
            ],
        }
