"""The entity graph in PostgreSQL (``graph_nodes``, ``graph_edges``, ``mentions``) with ``EntityGraph``'s interface
for one query's lists (``serving.ranking.query_lists``): ``activate`` and ``ranking`` over a ``PostgresLayer``'s
rows."""

from __future__ import annotations

import math

import numpy as np

from serving.ranking.graph_retrieval import (
    ACT_SHARE,
    MAX_NEIGHBOURS,
    NEIGHBOUR_SHARE,
    SAME_PROVISION_SHARE,
    Activation,
    provision_head,
)
from serving.ranking.pg_sql import GRAPH, GRAPH_FILTERED, LIVE_AMONG

GRAPH_LABELS = ("LAW_REF", "DECISION_REF", "INSTITUTION")  # mendel.index.entity_graph.GRAPH_LABELS
GRAPH_MARGIN = 20  # graph candidates fetched beyond those wanted, for passages that are not live
GRAPH_BATCHES = 5  # then as many further batches at most


class PostgresGraph:
    """The entity graph in the database with ``EntityGraph``'s interface for one query's lists: ``activate``
    (seeds -> one hop along ``graph_edges``) and ``ranking`` (passages linking the activated entities)."""

    def __init__(self, lists, layer, nodes: int):
        self._lists, self._layer, self._nodes = lists, layer, nodes

    def __len__(self) -> int:
        return self._nodes

    def activate(self, entities: list[tuple[str, float]]) -> Activation:
        with self._lists.connection() as conn:
            scores = self.activation_of(conn, entities)
        return Activation(scores, {})

    def ranking(self, activation: Activation, n: int, allowed: np.ndarray | None = None) -> list[int]:
        docs, skip = self._layer.restriction(allowed)
        with self._lists.connection() as conn:
            found = self.ranked_ids(conn, activation.scores, n, docs, skip)
        return self._layer.positions(found)

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

    def ranked_ids(
        self, conn, activation: dict[str, float], n: int, docs: list[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        if not activation:
            return []
        ids = sorted(activation)
        linking = dict(conn.execute("SELECT entity_id, chunks FROM graph_nodes WHERE entity_id = ANY(%s)", (ids,)))
        weights = [
            activation[e] * math.log1p(max(self._lists.passage_total, 1) / max(linking.get(e) or 0, 1)) for e in ids
        ]
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
