"""The postgres serving backend (``MENDEL_SERVING_BACKEND=postgres``): searches answered from PostgreSQL, so many
replicas serve one database instead of each loading a bundle.

The bundle backend's search itself: one query's lists are fused by ``serving.ranking.query_lists`` (the bridge,
graph share, routed and governing acts, exact references leading) over the primitive lists of
``serving.ranking.pg_lists``, and everything after them -- the learned second stage, sub-queries, rerank, dedupe,
hits, the coverage block and the relevance floor -- is ``serving.ranking.answer``, the code the bundle backend runs.
The live passages are addressed by the row positions the bundle published from the same database has
(``serving.ranking.pg_layer``), so ties break alike. Where the lists can still differ: ``serving.ranking.pg_lists``.

Search in force as the bundle backend (``serving.ranking.in_force``, one rule for both): an act's passages are those
of its version served on ``at`` (default today), or its promulgated text with ``version="promulgated"``; each act
hit carries its version fields (``mendel.passages.act_passages.ActChunkVersions``, what the bundle's chunk rows
carry).

A whole-act or whole-section query searches the database's document (L1) or section (L2) layer as the bundle
searches its ``layers/L1`` and ``layers/L2`` (BM25 over ``layer_postings``, dense over their partial HNSW indexes:
migration 0035), and the governing act's part is found by its sections' headings on both backends. The bundle
directory is still what names the version: the API reloads when ``bundles/CURRENT`` changes, and the version is
that bundle's name.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import psycopg

from mendel.crawl import last_good
from mendel.index import bundle
from serving.ranking import in_force
from serving.ranking.answer import WARM_QUERY, SearchFlow
from serving.ranking.fusion import LEARNED_CANDIDATES, LIST_HEADS
from serving.ranking.pg_coverage import PostgresAssessor
from serving.ranking.pg_lists import EF_SEARCH, PostgresLists
from serving.ranking.pg_sql import CHUNK_ROWS, DOCUMENT_PASSAGES
from serving.ranking.query_lists import Ranked


def document_grounding(conn: psycopg.Connection) -> dict[str, dict]:
    """Where a document comes from beyond its own row, by document: a record's sources, an attachment's notice, a
    notice's attachments."""
    from mendel.crawl.boards.notice_links import attachment_notices, notice_attachment_lists
    from mendel.records.grounding import record_grounding

    return {**record_grounding(conn), **attachment_notices(conn), **notice_attachment_lists(conn)}


class PostgresSearcher(SearchFlow, PostgresLists):
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
        self._assessor = PostgresAssessor(self.documents, self, self.manifest.get("model"))
        self.doc_chunks: dict[str, list[int]] = {}  # the page view reads passages by document() alone

    # --- loading ----------------------------------------------------------------------------------------

    @staticmethod
    def _load_documents(conn: psycopg.Connection) -> dict[str, dict]:
        """The live documents, as the bundle's documents record them (mendel.nightly.publish_stage)."""
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
        return {row[0]: bundle.document_record(row[:9], row[9], grounding, held) for row in rows}

    # --- the search (serving.ranking.answer, as the bundle's) ----------------------------------------------

    def warm(self) -> None:
        """Load now what a first search would load on its way (the query encoder, the bridge's vocabulary, the word
        forms, term frequencies, pooled connections, the lay list): one search with its coverage block."""
        _ = (self.layer(1), self.layer(2), self.floor, self.learned_fusion, self.vocabulary, self.act_router)
        self.wordings_list(self.passages)  # the lay lists' provisions, their words indexed (~0.6 s, sample corpus)
        _ = self.lexicon
        self.search_with_coverage(WARM_QUERY, k=1)

    def rank(self, query: str, allowed=None, **options) -> Ranked:
        """``QueryLists.rank``, then the rows the learned stage and the hits read, fetched in one statement."""
        ranked = super().rank(query, allowed, **options)
        wanted = [item for item, _, _ in ranked.fused[: LEARNED_CANDIDATES + 2 * LIST_HEADS]]
        (options.get("layer") or self.passages).chunks.prefetch(
            wanted + ranked.signals.bm25[:LIST_HEADS] + ranked.signals.dense[:LIST_HEADS]
        )
        return ranked

    def linked_entities(self, items: list[int], layer) -> dict[int, list[str]]:
        """Row -> the graph entities its passage links (the bundle's chunk -> entity links: ``mentions``, read
        with the graph); none for a section's or a document's row (entities link passages)."""
        if layer is not self.passages:
            return {item: [] for item in items}
        return {item: self.graph.entities_of(item) for item in items}

    def _chunk_rows(self, conn, chunk_ids: list[str]) -> dict[str, dict]:
        if not chunk_ids:
            return {}
        rows = {}
        for cid, doc_id, start, end, section, text, seq in conn.execute(CHUNK_ROWS, (chunk_ids,)):
            document = self.documents.get(doc_id) or {}
            rows[cid] = {
                "chunk_id": cid,
                "doc_id": doc_id,
                "page_start": start,
                "page_end": end,
                "section": section,
                "text": text,
                "seq": seq,
                # as a bundle row: the lay list maps an act's provisions, the lay stage tells acts, by these
                "citation": document.get("citation"),
                "title": document.get("title", ""),
            }
        return rows

    # --- what callers written for the bundle ask --------------------------------------------------------

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
