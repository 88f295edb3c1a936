"""The coverage block and relevance floor of the PostgreSQL backend: ``serving.ranking.coverage``'s own
``Assessor`` and ``CollectionIndex``, with what they read of a bundle's indexes read from the database instead --
the terms the passages use (``chunks.lexemes``), how many passages cite a reference (``graph_nodes.chunks``) and
the floor's lexical signal (BM25 in SQL, ``PostgresLists.lexical_best``)."""

from __future__ import annotations

import numpy as np

from mendel.ner.rules import split_law_ref_norm
from serving.ranking.coverage import TEXTS_READ, Assessor, CollectionIndex
from serving.ranking.graph_retrieval import provision_head

CHUNKS_OF = "SELECT chunks FROM graph_nodes WHERE entity_id = %s"
ACT_NODES = "SELECT norm, chunks FROM graph_nodes WHERE label = 'LAW_REF' AND (norm = %s OR norm LIKE %s)"


class PassageTerms:
    """The analysed terms the live passages use, as a container ``in`` asks (``mendel.registers.places``)."""

    def __init__(self, lists):
        self._lists = lists

    def __contains__(self, term: object) -> bool:
        if not isinstance(term, str):
            return False
        with self._lists.connection() as conn:
            return self._lists._frequency(conn, term) > 0


class PostgresCollection(CollectionIndex):
    """What the database holds, for the coverage block: ``CollectionIndex`` with passages citing a reference
    counted by ``graph_nodes`` (the bundle's ``EntityGraph.chunks_of`` and ``by_head``)."""

    def __init__(self, documents: dict[str, dict], lists):
        super().__init__(documents, None, (), self._texts_with_term)
        self._lists = lists
        self._terms = PassageTerms(lists)

    def _texts_with_term(self, term: str):
        with self._lists.connection() as conn:
            found = self._lists.bm25.whole(conn, [term]).get(term)
        rows = found.rows[:TEXTS_READ] if found is not None else []
        return (self._lists.chunks[int(row)]["text"] for row in rows)

    def cited_chunks(self, entity_id: str) -> int:
        with self._lists.connection() as conn:
            if not self._lists.graph._nodes:
                return 0
            row = conn.execute(CHUNKS_OF, (entity_id,)).fetchone()
            found = int(row[0] or 0) if row else 0
            label, _, norm = entity_id.partition(":")
            if label != "LAW_REF":
                return found
            act, provision = split_law_ref_norm(norm)
            if not act:
                return found
            head = provision_head(provision) if provision else None
            if provision and not head:
                return found
            for other, chunks in conn.execute(ACT_NODES, (act, act.replace("%", r"\%") + " %")):
                other_act, other_provision = split_law_ref_norm(other)
                other_head = provision_head(other_provision)
                if other_act == act and other_head and (head is None or other_head == head):
                    found += int(chunks or 0)
        return found


class PostgresAssessor(Assessor):
    """``Assessor`` over the database (the floor's dense signal reads vectors through ``PostgresVectors``)."""

    def __init__(self, documents: dict[str, dict], lists, model: str | None):
        super().__init__(documents, None, None, model)
        self._lists = lists

    def collection(self) -> CollectionIndex:
        if self._collection is None:
            with self._lock:
                if self._collection is None:
                    self._collection = PostgresCollection(self._documents, self._lists)
        return self._collection

    def lexical_signal(self, layer, text: str, allowed: np.ndarray | None) -> float:
        best, weight = self._lists.lexical_best(text, allowed, layer)
        return max(0.0, best) / weight if weight > 0 else 0.0
