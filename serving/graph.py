"""Graph-entered retrieval: the query's entities -> their weighted neighbourhood in the bundle's entity graph ->
the chunks linked to those entities, as one more ranked list for reciprocal rank fusion.

The bundle's ``graph/graph.json`` (``mendel.index.graph``) holds nodes (``LABEL:norm`` ids), weighted
co-occurrence edges (chunk and document co-occurrence plus query co-activation from ``query_entity_edges``),
typed relations (REFERS_TO, PART_OF, AMENDS, REPEALS) and ``chunk_entities`` (L3 chunk -> entity ids).

Activation: a seed entity starts at its weight; each neighbour gets ``NEIGHBOUR_SHARE`` of it times the edge
weight relative to the seed's strongest edge (one hop, the ``MAX_NEIGHBOURS`` strongest kept). A seed absent
from the graph enters through what the graph does know of it: the same provision cited more precisely
(``§ 157`` -> ``§ 157 odst. 4``) and, more weakly, its act. A chunk scores the activation of its entities, each
weighted by how specific the entity is (inverse chunk frequency), divided by the square root of the number of
entities the chunk mentions, so a focused chunk beats a list of citations.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from mendel.ner.rules import split_law_ref_norm

NEIGHBOUR_SHARE = 0.5
MAX_NEIGHBOURS = 40
SAME_PROVISION_SHARE = 0.7   # "§ 157" asked, "§ 157 odst. 4" known
ACT_SHARE = 0.3              # "§ 157 zákoníku práce" asked, the act "262/2006 Sb." known
_HEAD_RE = re.compile(r"^(§+\s*\d+[a-z]?|čl\.\s*[IVXLC\d]+[a-z]?)", re.IGNORECASE)


def provision_head(provision: str | None) -> str | None:
    """``§ 157 odst. 4 písm. a)`` -> ``§ 157``; ``čl. 10`` -> ``čl. 10``."""
    if not provision:
        return None
    m = _HEAD_RE.match(provision.strip())
    return " ".join(m.group(1).split()).lower() if m else None


@dataclass
class Activation:
    """Entity id -> activation; ``seeds`` are the query's own entities as found in the graph."""

    scores: dict[str, float]
    seeds: dict[str, float]


class EntityGraph:
    def __init__(self, graph: dict, chunk_ids: list[str]):
        node_ids = [n["id"] for n in graph.get("nodes", ())]
        chunk_entities: dict[str, list[str]] = graph.get("chunk_entities", {})
        known = set(node_ids)
        for found in chunk_entities.values():  # entities linked to chunks are nodes even if not listed
            node_ids.extend(e for e in found if e not in known and not known.add(e))
        self.ids = node_ids
        self.index = {entity: i for i, entity in enumerate(node_ids)}
        n = len(node_ids)
        position = {cid: i for i, cid in enumerate(chunk_ids)}
        rows, cols = [], []
        for cid, found in chunk_entities.items():
            chunk = position.get(cid)
            if chunk is None:
                continue
            for entity in found:
                rows.append(self.index[entity])
                cols.append(chunk)
        incidence = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                                      shape=(n, len(chunk_ids)))
        incidence.sum_duplicates()
        incidence.data[:] = 1.0
        chunk_frequency = np.asarray(incidence.sum(axis=1)).ravel()
        entities_per_chunk = np.asarray(incidence.sum(axis=0)).ravel()
        self.n_chunks = len(chunk_ids)
        # specificity of each entity, and a chunk's normaliser; applied once here, not per query
        specificity = np.log1p(max(self.n_chunks, 1) / np.maximum(chunk_frequency, 1.0)).astype(np.float32)
        focus = (1.0 / np.sqrt(np.maximum(entities_per_chunk, 1.0))).astype(np.float32)
        self.links = sparse.csr_matrix(sparse.diags(specificity) @ incidence @ sparse.diags(focus))
        self.chunk_frequency = chunk_frequency

        src, dst, weight = [], [], []
        # co-occurrence edges and typed relations (REFERS_TO, PART_OF, AMENDS, REPEALS) alike: each is a reason
        # to look at the other end, weighted by how many chunks (or logged queries) support it
        for edge in [*graph.get("edges", ()), *graph.get("relations", ())]:
            a, b, w = self.index.get(edge["source"]), self.index.get(edge["target"]), float(edge.get("weight", 1.0))
            if a is None or b is None or a == b or w <= 0:
                continue
            src += [a, b]
            dst += [b, a]
            weight += [w, w]
        adjacency = sparse.csr_matrix((np.asarray(weight, dtype=np.float32), (src, dst)), shape=(n, n))
        adjacency.sum_duplicates()
        self.adjacency = adjacency
        self.strongest = np.asarray(adjacency.max(axis=1).todense()).ravel() if n else np.zeros(0)

        # LAW_REF nodes by act and by (act, provision head), for seeds the graph does not hold exactly
        self.by_act: dict[str, list[int]] = {}
        self.by_head: dict[tuple[str, str], list[int]] = {}
        for i, entity in enumerate(node_ids):
            label, _, norm = entity.partition(":")
            if label != "LAW_REF":
                continue
            act, provision = split_law_ref_norm(norm)
            if act:
                self.by_act.setdefault(act, []).append(i)
                head = provision_head(provision)
                if head:
                    self.by_head.setdefault((act, head), []).append(i)

    @classmethod
    def empty(cls) -> "EntityGraph":
        return cls({"nodes": [], "edges": [], "chunk_entities": {}}, [])

    def __len__(self) -> int:
        return len(self.ids)

    def resolve(self, entity_id: str, weight: float = 1.0) -> dict[int, float]:
        """Graph nodes standing for one query entity, with their seed weights."""
        i = self.index.get(entity_id)
        if i is not None:
            return {i: weight}
        label, _, norm = entity_id.partition(":")
        if label != "LAW_REF":
            return {}
        act, provision = split_law_ref_norm(norm)
        if not act:
            return {}
        found: dict[int, float] = {}
        head = provision_head(provision)
        if head:
            same = self.by_head.get((act, head), [])
            for j in same:
                found[j] = weight * SAME_PROVISION_SHARE / math.sqrt(len(same))
            bare = self.index.get(f"LAW_REF:{act}")
            if bare is not None:
                found[bare] = max(found.get(bare, 0.0), weight * ACT_SHARE)
        return found

    def activate(self, entities: list[tuple[str, float]]) -> Activation:
        """Seed the query's entities (id, weight) and spread one hop along weighted edges."""
        seeds: dict[int, float] = {}
        for entity_id, weight in entities:
            for i, w in self.resolve(entity_id, weight).items():
                seeds[i] = max(seeds.get(i, 0.0), w)
        if not seeds:
            return Activation({}, {})
        scores = dict(seeds)
        spread: dict[int, float] = {}
        for i, w in seeds.items():
            row = self.adjacency.getrow(i)
            if not row.nnz or self.strongest[i] <= 0:
                continue
            share = w * NEIGHBOUR_SHARE / float(self.strongest[i])
            for j, edge_weight in zip(row.indices, row.data):
                if j not in seeds:
                    spread[int(j)] = spread.get(int(j), 0.0) + share * float(edge_weight)
        for j, value in sorted(spread.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_NEIGHBOURS]:
            scores[j] = value
        return Activation({self.ids[i]: s for i, s in scores.items()}, {self.ids[i]: s for i, s in seeds.items()})

    def ranking(self, activation: Activation, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """Chunk indexes linked to the activated entities, best first, at most ``n``."""
        if not activation.scores or self.n_chunks == 0:
            return []
        vector = np.zeros(len(self.ids), dtype=np.float32)
        for entity, score in activation.scores.items():
            vector[self.index[entity]] = score
        scores = np.asarray(self.links.T @ vector).ravel()
        if allowed is not None:
            scores = np.where(allowed[: self.n_chunks], scores, 0.0)
        candidates = np.flatnonzero(scores > 0)
        if candidates.size == 0:
            return []
        top = candidates[np.argsort(-scores[candidates], kind="stable")][:n]
        return [int(i) for i in top]
