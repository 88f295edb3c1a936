"""The postgres serving backend (``MENDEL_SERVING_BACKEND=postgres``): searches answered from PostgreSQL, so many
replicas serve one database instead of each loading a bundle.

The same three lists as the bundle backend (``serving.ranking.search``), over the live passages, fused by the same
weighted RRF with exact references leading (``serving.ranking.pg_lists``).

Search in force as the bundle backend (``serving.ranking.in_force``, one rule for both): an act's passages are those
of its version served on ``at`` (default today), or its promulgated text with ``version="promulgated"``; each act
hit carries its version fields (``mendel.passages.act_passages.ActChunkVersions``, what the bundle's chunk rows
carry). The passages left out are few (other versions of acts with versions), so each list fetches that many more
and drops them; a promulgated search leaves consolidated acts out by document.

What it does not do (yet): the L1/L2 layers (a whole-act or whole-section query is answered with passages), the
lay-to-legal bridge and the learned second stage of the bundle backend, the coverage block and relevance floor
(``details`` gets no ``coverage``). The bundle directory is still what names the version: the API reloads when
``bundles/CURRENT`` changes, and the version is that bundle's name.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from datetime import date
from pathlib import Path

import psycopg

from mendel.crawl import last_good
from mendel.index import bundle
from serving.ranking import in_force
from serving.ranking.bundle_lists import CANDIDATES
from serving.ranking.fusion import SubqueryFusion, first_of_each, rerank_order
from serving.ranking.hits import Hit
from serving.ranking.layers import PASSAGE_LAYER
from serving.ranking.pg_lists import EF_SEARCH, PostgresLists
from serving.ranking.pg_sql import CHUNK_ROWS, DOCUMENT_PASSAGES
from serving.ranking.search import RERANK_MAX, WARM_QUERY

RECENT_CHUNKS = 4096  # chunk rows kept addressable by position (see PostgresSearcher.chunks)


def document_grounding(conn: psycopg.Connection) -> dict[str, dict]:
    """Where a document comes from beyond its own row, by document: a record's sources, an attachment's notice, a
    notice's attachments."""
    from mendel.crawl.boards.notice_links import attachment_notices, notice_attachment_lists
    from mendel.records.grounding import record_grounding

    return {**record_grounding(conn), **attachment_notices(conn), **notice_attachment_lists(conn)}


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


class PostgresSearcher(PostgresLists):
    """Hybrid search over PostgreSQL with the interface of ``serving.ranking.search.Searcher`` that the API and CLI
    use: ``search``, ``documents``, ``document``, ``path``, ``manifest``. Raises
    ``serving.ranking.backend.BackendError`` when the database has no searchable passages (no lexemes or no
    embeddings: run the nightly's index stage)."""

    def __init__(
        self,
        path: Path | str | None = None,
        embedder=None,
        reranker=None,
        *,
        database_url: str,
        ef_search: int = EF_SEARCH,
    ):
        super().__init__(database_url, embedder=embedder, ef_search=ef_search)
        self.path = Path(path) if path is not None else Path("postgres")
        self.reranker = reranker
        with self.connection() as conn:
            self._check(conn)
            self.load(conn, self._load_documents(conn))
        manifest_file = self.path / bundle.MANIFEST
        self.manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
        self.manifest = {**self.manifest, "backend": "postgres"}
        self.chunks = RecentChunks(self.passages)
        self.doc_chunks: dict[str, list[int]] = {}  # no chunk table in memory: the page view shows no passage

    # --- loading ----------------------------------------------------------------------------------------

    @staticmethod
    def _load_documents(conn: psycopg.Connection) -> dict[str, dict]:
        """The live documents, as the bundle's documents.json records them (mendel.nightly.publish_stage)."""
        rows = conn.execute(
            "SELECT d.doc_id, d.title, d.source, d.url, d.citation, d.doc_type, d.published, v.sha256,"
            " v.content_type, coalesce(top.summary, '') FROM documents d"
            " LEFT JOIN document_versions v ON v.version_id = coalesce(d.served_version_id, d.current_version_id)"
            " LEFT JOIN LATERAL (SELECT summary FROM chunks t WHERE t.version_id ="
            " coalesce(d.served_version_id, d.current_version_id)"
            "  AND t.layer = 1 LIMIT 1) top ON true"
            " WHERE d.status = 'active' ORDER BY d.doc_id"
        ).fetchall()
        grounding = document_grounding(conn)
        held = last_good.last_good_marks(conn)
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
                **held.get(d, {}),
            }
            for d, t, s, u, c, k, p, h, m, summary in rows
        }

    # --- the search ---------------------------------------------------------------------------------------

    def warm(self) -> None:
        """Load now what a first search would load on its way (the query encoder, term frequencies, pooled
        connections): one search."""
        self.search(WARM_QUERY, k=1)

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
        filtered = self.filter_counts(filters)
        if details is not None and filtered is not None:
            details["filters"] = filtered
        left_docs, skip = self.left_out(at, version)
        if left_docs:
            docs = [d for d in (self.passage_docs if docs is None else docs) if d not in left_docs]
        if docs is not None and not docs:
            return []
        depth = max(k, CANDIDATES)
        with self.connection() as conn:
            fused, activation = self.rank(conn, query, found, docs, depth, dense=dense, graph=graph, skip=skip)
            merged = SubqueryFusion(fused, activation, k)
            for number, sub in enumerate(subqueries, start=1):
                ranked, sub_activation = self.rank(
                    conn, sub, understand(sub), docs, depth, dense=dense, graph=graph, skip=skip
                )
                merged.add(number, ranked, sub_activation)
            if subqueries:
                fused = merged.fused()
            fused = first_of_each(fused)
            top = fused[:RERANK_MAX] if rerank else fused[:k]
            rows = self._chunk_rows(conn, [item for item, _, _ in top])
            linked = self._linked_entities(conn, [item for item, _, _ in top], merged.activation)
        rerank_scores: dict[str, float] = {}
        if rerank:
            scores = self.reranker.score(query, [self._passage_text(rows[item]) for item, _, _ in top])
            fused, rerank_scores = rerank_order(fused, scores)
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
                subqueries=merged.found_by.get(item, []),
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
            for cid, doc_id, start, end, section, text, seq in conn.execute(CHUNK_ROWS, (chunk_ids,))
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
            rows = conn.execute(DOCUMENT_PASSAGES, (doc_id,)).fetchall()
        return {
            **doc,
            "chunks": [
                {"chunk_id": cid, "page": start, "page_end": end, "section": section, "text": text}
                for cid, start, end, section, text in rows
                if cid not in skip
            ],
        }
