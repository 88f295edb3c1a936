"""The database's dense lists: the passages (or a layer's chunks) nearest a query's vector through pgvector's HNSW
index, only the live ones kept — a part of :class:`serving.ranking.pg_lists.PostgresLists` (its ``embedder``,
``layer`` and ``ef_search``)."""

from __future__ import annotations

import numpy as np

from mendel.index.pgvector import search_pgvector, vector_literal
from serving.ranking.layers import PASSAGE_LAYER
from serving.ranking.pg_sql import NEAREST, NEAREST_IN_LAYER, SEARCH_WIDER

DENSE_MARGIN = 10  # nearest passages fetched beyond those wanted, for the few that may not be live


class PostgresNearest:
    def dense_ranking(
        self, conn, text: str, n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        """The passages nearest the query's vector, none of ``skip``."""
        vector = np.asarray(self.embedder.query(text), dtype=np.float32).ravel()
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            return []
        return [cid for cid, _ in self.nearest_passages(conn, (vector / norm).tolist(), n, docs, skip)]

    def nearest_passages(
        self,
        conn,
        vector: list[float],
        n: int,
        docs: list[str] | None,
        skip: frozenset[str] = frozenset(),
        layer: int = PASSAGE_LAYER,
    ) -> list[tuple[str, float]]:
        """HNSW over the chunks of ``layer`` (the passages by default) of the table alone (joined to documents,
        the planner sorts every live passage exactly instead: 250 ms against 3 ms at 10,000), then only the live
        ones kept; should superseded or withdrawn chunks crowd the candidates out, the joined query answers
        instead. (chunk id, cosine)."""
        index = self.layer(layer)
        statement = NEAREST if layer == PASSAGE_LAYER else NEAREST_IN_LAYER[layer]
        wanted = n + DENSE_MARGIN + len(skip)
        values = {"q": vector_literal(vector), "k": wanted, "docs": docs}
        if wanted <= self.ef_search:
            found = conn.execute(statement, values).fetchall()
        else:  # more than the connection's hnsw.ef_search finds: a larger one for this statement only
            with conn.transaction():
                conn.execute(SEARCH_WIDER, (str(wanted),))
                found = conn.execute(statement, values).fetchall()
        kept = [(cid, score) for cid, score in found if index.position(cid) is not None and cid not in skip]
        if len(kept) >= n or len(found) < wanted:
            return kept[:n]
        wanted = n + len(skip)
        return [
            (cid, score)
            for cid, score in search_pgvector(
                conn,
                vector,
                wanted,
                ef_search=max(self.ef_search, wanted),
                current_only=True,
                layer=layer,
                doc_ids=docs,
            )
            if cid not in skip
        ][:n]
