"""Dense retrieval inside PostgreSQL: cosine k-NN over ``chunks.embedding`` through its HNSW index; ``hnsw.ef_search``
and the iterative scan are set for the transaction of the search only.
"""

from __future__ import annotations

import math
from typing import Sequence

import psycopg

DIMENSION = 384  # chunks.embedding vector(384)

_SEARCH_ALL = (
    "SELECT chunk_id, 1 - (embedding <=> %(q)s::vector) AS score FROM chunks"
    " WHERE embedding IS NOT NULL AND (%(layer)s::smallint IS NULL OR layer = %(layer)s::smallint)"
    " ORDER BY embedding <=> %(q)s::vector LIMIT %(k)s"
)
# Only chunks of the current version of an active document, like the FAISS index. The filter is applied
# after the index scan; pgvector's iterative scan keeps fetching until k rows pass it.
_SEARCH_CURRENT = (
    "SELECT c.chunk_id, 1 - (c.embedding <=> %(q)s::vector) AS score FROM chunks c"
    " JOIN documents d ON d.doc_id = c.doc_id AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE c.embedding IS NOT NULL AND d.status = 'active'"
    " AND (%(layer)s::smallint IS NULL OR c.layer = %(layer)s::smallint)"
    " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(k)s"
)


def vector_literal(query_vector: Sequence[float]) -> str:
    if isinstance(query_vector, (str, bytes)):
        raise ValueError("query_vector must be a sequence of numbers, not text")
    try:
        values = [float(x) for x in query_vector]
    except (TypeError, ValueError) as exc:
        raise ValueError("query_vector must be a sequence of numbers") from exc
    if len(values) != DIMENSION:
        raise ValueError(f"query_vector has {len(values)} dimensions, chunks.embedding has {DIMENSION}")
    if not all(math.isfinite(x) for x in values):
        raise ValueError("query_vector contains NaN or infinity")
    if not any(values):
        raise ValueError("query_vector is all zeros: cosine similarity is undefined")
    return "[" + ",".join(repr(x) for x in values) + "]"


def search_pgvector(
    conn: psycopg.Connection,
    query_vector: Sequence[float],
    k: int,
    *,
    ef_search: int | None = None,
    current_only: bool = False,
    layer: int | None = 3,
    doc_ids: Sequence[str] | None = None,
) -> list[tuple[str, float]]:
    """The ``k`` chunks nearest to ``query_vector`` by cosine similarity, best first, as ``(chunk_id, score)``
    with ``score = 1 - cosine distance`` (the inner product for unit vectors, as FAISS ``IndexFlatIP``).

    ``ef_search`` sets ``hnsw.ef_search`` for this search only (it must be at least ``k`` for ``k`` results
    from the index; pgvector's default is 40); ``None`` leaves the session's value. ``current_only`` keeps
    chunks of the current version of active documents only. ``layer`` keeps chunks of that layer (3: passages,
    the default; 2: sections; 1: documents); ``None`` searches every layer. ``doc_ids`` keeps chunks of those
    documents only (``None``: any). Filters are applied after the index
    scan, with pgvector's iterative scan fetching until ``k`` rows pass them.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}")
    if ef_search is not None and (
        isinstance(ef_search, bool) or not isinstance(ef_search, int) or not 1 <= ef_search <= 1000
    ):
        raise ValueError(f"ef_search must be an integer in 1..1000, not {ef_search!r}")
    if layer is not None and layer not in (1, 2, 3):
        raise ValueError(f"layer must be 1, 2, 3 or None, not {layer!r}")
    literal = vector_literal(query_vector)
    with conn.transaction():
        if ef_search is not None:
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef_search),))
        if current_only or layer is not None or doc_ids is not None:
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true)")
        query = _SEARCH_CURRENT if current_only else _SEARCH_ALL
        if doc_ids is not None:
            column = "c.doc_id" if current_only else "doc_id"
            query = query.replace(" ORDER BY", f" AND {column} = ANY(%(docs)s::text[]) ORDER BY", 1)
        rows = conn.execute(
            query, {"q": literal, "k": k, "layer": layer, "docs": list(doc_ids) if doc_ids is not None else None}
        ).fetchall()
    return [(chunk_id, float(score)) for chunk_id, score in rows]
