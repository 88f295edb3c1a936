"""The entity graph in PostgreSQL (``graph_nodes``, ``graph_edges``, ``mentions``) with ``EntityGraph``'s interface
for one query's lists (``serving.ranking.query_lists``): ``activate`` and ``ranking`` over a ``PostgresLayer``'s
rows. Activation reads ``graph_nodes`` and ``graph_edges`` per query; the passages' links to the graph's entities
are read once per searcher (they change only when a bundle is published) and ranked in memory by the bundle's
own ``EntityGraph.ranking`` (entity specificity, passage focus; ties in row order)."""

from __future__ import annotations

import math

import numpy as np

from serving.ranking.graph_retrieval import (
    ACT_SHARE,
    MAX_NEIGHBOURS,
    NEIGHBOUR_SHARE,
    SAME_PROVISION_SHARE,
    Activation,
    EntityGraph,
    provision_head,
)
from serving.ranking.pg_sql import GRAPH_LINKS, GRAPH_NODE_IDS

GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")  # mendel.index.entity_graph.GRAPH_LABELS


class PostgresGraph:
    """The entity graph in the database with ``EntityGraph``'s interface for one query's lists: ``activate``
    (seeds -> one hop along ``graph_edges``) and ``ranking`` (passages linking the activated entities)."""

    def __init__(self, lists, layer, conn):
        self._lists, self._layer = lists, layer
        nodes = [{"id": entity} for (entity,) in conn.execute(GRAPH_NODE_IDS)]
        self._nodes = len(nodes)
        live = {cid: None for cid in layer.chunk_ids.tolist()}
        links = {cid: found for cid, found in conn.execute(GRAPH_LINKS, (list(GRAPH_LABELS),)) if cid in live}
        self._links = EntityGraph({"nodes": nodes, "edges": [], "chunk_entities": links}, list(live))

    def entities_of(self, position: int) -> list[str]:
        """The graph entities a row's passage links, sorted."""
        return self._links.entities_of(position)

    def __len__(self) -> int:
        return self._nodes

    def activate(self, entities: list[tuple[str, float]]) -> Activation:
        with self._lists.connection() as conn:
            scores = self.activation_of(conn, entities)
        return Activation(scores, {})

    def ranking(self, activation: Activation, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """Rows linked to the activated entities, best first, at most ``n`` (``EntityGraph.ranking``)."""
        known = {e: w for e, w in activation.scores.items() if e in self._links.index}
        return self._links.ranking(Activation(known, activation.seeds), n, allowed)

    def activation_of(self, conn, wanted: list[tuple[str, float]]) -> dict[str, float]:
        """Entity id -> activation: the query's entities (``wanted``, with weights) found in ``graph_nodes`` (a
        provision the graph does not hold enters through the same provision cited more precisely and, more weakly,
        its act), then one hop along ``graph_edges`` (the ``MAX_NEIGHBOURS`` strongest), as ``EntityGraph.activate``."""
        from mendel.ner.rules import split_law_ref_norm

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
