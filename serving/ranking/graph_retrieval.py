"""Graph-entered retrieval: the query's entities -> their weighted neighbourhood in the bundle's entity graph ->
the chunks linked to those entities, as one more ranked list for reciprocal rank fusion.

The bundle's ``graph/graph.json`` (``mendel.index.entity_graph``) holds nodes (``LABEL:norm`` ids), weighted
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

import codecs
import json
import math
import re
from array import array
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

from mendel.ner.rules import split_law_ref_norm

NEIGHBOUR_SHARE = 0.5
MAX_NEIGHBOURS = 40
SAME_PROVISION_SHARE = 0.7  # "§ 157" asked, "§ 157 odst. 4" known
ACT_SHARE = 0.3  # "§ 157 zákoníku práce" asked, the act "262/2006 Sb." known
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


class _GraphParts:
    """What an EntityGraph is built from, gathered item by item (from a dict or streamed from graph.json):
    node ids, chunk -> entity links and weighted edges, as compact arrays rather than lists of objects."""

    def __init__(self, node_ids: list[str], chunk_ids: list[str]):
        self.node_ids = node_ids
        self.index = {entity: i for i, entity in enumerate(node_ids)}
        self.known = set(node_ids)
        self.position = {cid: i for i, cid in enumerate(chunk_ids)}
        self.rows, self.cols = array("q"), array("q")
        self.src, self.dst, self.weight = array("q"), array("q"), array("d")
        self.pending: list[tuple[int, str, str]] = []  # edges read before their end nodes were known

    def link(self, chunk_id: str, found: list[str]) -> None:
        for e in found:  # entities linked to chunks are nodes even if not listed
            if e not in self.known:
                self.known.add(e)
                self.index[e] = len(self.node_ids)
                self.node_ids.append(e)
        chunk = self.position.get(chunk_id)
        if chunk is None:
            return
        for entity in found:
            self.rows.append(self.index[entity])
            self.cols.append(chunk)

    def edge(self, source: str, target: str, w: float) -> None:
        a, b = self.index.get(source), self.index.get(target)
        if w <= 0 or (a is not None and a == b):
            return
        if a is None or b is None:  # maybe an entity only chunk links name, further on: decided in finish()
            self.pending.append((len(self.src), source, target))
            a = b = -1
        self.src.extend((a, b))
        self.dst.extend((b, a))
        self.weight.extend((w, w))

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        src, dst, weight = (
            np.frombuffer(x, dtype=x.typecode) if len(x) else np.zeros(0, dtype=x.typecode)
            for x in (self.src, self.dst, self.weight)
        )
        if not self.pending:
            return src, dst, weight
        src, dst = src.copy(), dst.copy()
        for at, source, target in self.pending:
            a, b = self.index.get(source, -1), self.index.get(target, -1)
            if a != b:
                src[at : at + 2], dst[at : at + 2] = (a, b), (b, a)
        keep = (src >= 0) & (dst >= 0)
        return src[keep], dst[keep], weight[keep]


def _json_items(path: Path, block: int = 1 << 22):
    """The top level of a JSON object file, streamed: ``(key, item)`` for each element of an array value and
    ``(key, (name, value))`` for each member of an object value, ``(key, value)`` for anything else — a graph
    of millions of edges never sits in memory as one parsed document."""
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    with Path(path).open("rb") as handle:
        state = {"text": "", "pos": 0, "eof": False}

        def more() -> bool:
            if state["eof"]:
                return False
            data = handle.read(block)
            state["eof"] = not data
            state["text"] = state["text"][state["pos"] :] + utf8.decode(data, final=not data)
            state["pos"] = 0
            return True

        def peek() -> str:
            while True:
                text, pos = state["text"], state["pos"]
                while pos < len(text) and text[pos] in " \t\r\n":
                    pos += 1
                state["pos"] = pos
                if pos < len(text):
                    return text[pos]
                if not more():
                    raise ValueError(f"{path}: unexpected end of JSON")

        def expect(char: str) -> None:
            if peek() != char:
                raise ValueError(f"{path}: expected {char!r} in JSON")
            state["pos"] += 1

        def value():
            peek()
            while True:
                try:
                    found, end = decoder.raw_decode(state["text"], state["pos"])
                    if end < len(state["text"]) or state["eof"]:  # a number at the block's end may go on
                        state["pos"] = end
                        return found
                except json.JSONDecodeError:
                    if state["eof"]:
                        raise
                more()

        expect("{")
        if peek() == "}":
            return
        while True:
            key = value()
            expect(":")
            opening = peek()
            if opening in "[{":
                state["pos"] += 1
                closing = "]" if opening == "[" else "}"
                if peek() == closing:
                    state["pos"] += 1
                else:
                    while True:
                        if opening == "[":
                            yield key, value()
                        else:
                            name = value()
                            expect(":")
                            yield key, (name, value())
                        if peek() == ",":
                            state["pos"] += 1
                            continue
                        expect(closing)
                        break
            else:
                yield key, value()
            if peek() == ",":
                state["pos"] += 1
                continue
            expect("}")
            return


class EntityGraph:
    def __init__(self, graph: dict, chunk_ids: list[str]):
        parts = _GraphParts([n["id"] for n in graph.get("nodes", ())], chunk_ids)
        for cid, found in graph.get("chunk_entities", {}).items():
            parts.link(cid, found)
        for edge in [*graph.get("edges", ()), *graph.get("relations", ())]:
            parts.edge(edge["source"], edge["target"], float(edge.get("weight", 1.0)))
        self._build(parts, len(chunk_ids))

    @classmethod
    def from_file(cls, path: Path, chunk_ids: list[str]) -> "EntityGraph":
        """The graph of a bundle's ``graph/graph.json``, read item by item (the same graph ``EntityGraph(
        json.load(...), chunk_ids)`` builds, without holding the parsed file: at a million chunks that peaks at
        gigabytes)."""
        parts: _GraphParts | None = None
        node_ids: list[str] = []
        for key, item in _json_items(path):
            if key == "nodes":
                if parts is not None:  # not the order mendel.index.entity_graph writes: read it whole
                    return cls(json.loads(Path(path).read_text(encoding="utf-8")), chunk_ids)
                node_ids.append(item["id"])
                continue
            if parts is None:  # nodes come first; whatever follows needs their index
                parts = _GraphParts(node_ids, chunk_ids)
            if key in ("edges", "relations"):
                parts.edge(item["source"], item["target"], float(item.get("weight", 1.0)))
            elif key == "chunk_entities":
                parts.link(*item)
        self = cls.__new__(cls)
        self._build(parts or _GraphParts(node_ids, chunk_ids), len(chunk_ids))
        return self

    def _build(self, parts: _GraphParts, n_chunks: int) -> None:
        node_ids = parts.node_ids
        self.ids = node_ids
        self.index = parts.index
        n = len(node_ids)
        rows, cols = (
            np.frombuffer(x, dtype=np.int64) if len(x) else np.zeros(0, dtype=np.int64)
            for x in (parts.rows, parts.cols)
        )
        chunk_ids = range(n_chunks)  # only its length is needed from here on
        incidence = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, len(chunk_ids)))
        incidence.sum_duplicates()
        incidence.data[:] = 1.0
        incidence.sort_indices()
        # entity -> its chunks and chunk -> its entities, ascending, as index arrays (no per-chunk Python lists)
        self.entity_chunk_ptr, self.entity_chunk_idx = incidence.indptr, incidence.indices
        by_chunk = incidence.T.tocsr()
        by_chunk.sort_indices()
        self.chunk_entity_ptr, self.chunk_entity_idx = by_chunk.indptr, by_chunk.indices
        del by_chunk
        chunk_frequency = np.asarray(incidence.sum(axis=1)).ravel()
        entities_per_chunk = np.asarray(incidence.sum(axis=0)).ravel()
        self.n_chunks = len(chunk_ids)
        # specificity of each entity, and a chunk's normaliser; applied once here, not per query
        specificity = np.log1p(max(self.n_chunks, 1) / np.maximum(chunk_frequency, 1.0)).astype(np.float32)
        focus = (1.0 / np.sqrt(np.maximum(entities_per_chunk, 1.0))).astype(np.float32)
        self.links = sparse.csr_matrix(sparse.diags(specificity) @ incidence @ sparse.diags(focus))
        self.chunk_frequency = chunk_frequency

        # co-occurrence edges and typed relations (REFERS_TO, PART_OF, AMENDS, REPEALS) alike: each is a reason
        # to look at the other end, weighted by how many chunks (or logged queries) support it
        src, dst, weight = parts.finish()
        del parts
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

    def chunks_of(self, entity_id: str) -> np.ndarray:
        """Indexes of the chunks linking ``entity_id``, ascending (empty when it links none)."""
        i = self.index.get(entity_id)
        if i is None:
            return np.zeros(0, dtype=np.int64)
        return self.entity_chunk_idx[self.entity_chunk_ptr[i] : self.entity_chunk_ptr[i + 1]].astype(np.int64)

    def entities_of(self, chunk: int) -> list[str]:
        """Entity ids linked to chunk index ``chunk``, sorted."""
        if not 0 <= chunk < self.n_chunks:
            return []
        start, end = self.chunk_entity_ptr[chunk], self.chunk_entity_ptr[chunk + 1]
        return sorted(self.ids[j] for j in self.chunk_entity_idx[start:end].tolist())

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
        # One hop, vectorised over each seed's adjacency row: float64 sums in seed order, as scalar code would add.
        spread = np.zeros(len(self.ids), dtype=np.float64)
        reached = np.zeros(len(self.ids), dtype=bool)
        indptr, indices, data = self.adjacency.indptr, self.adjacency.indices, self.adjacency.data
        for i, w in seeds.items():
            start, end = indptr[i], indptr[i + 1]
            if start == end or self.strongest[i] <= 0:
                continue
            share = w * NEIGHBOUR_SHARE / float(self.strongest[i])
            columns = indices[start:end]
            spread[columns] += share * data[start:end].astype(np.float64)
            reached[columns] = True
        reached[list(seeds)] = False
        neighbours = np.flatnonzero(reached)
        if neighbours.size:
            # strongest first, ties by node index (neighbours are ascending, the sort is stable)
            best = neighbours[np.argsort(-spread[neighbours], kind="stable")[:MAX_NEIGHBOURS]]
            for j in best.tolist():
                scores[j] = float(spread[j])
        return Activation({self.ids[i]: s for i, s in scores.items()}, {self.ids[i]: s for i, s in seeds.items()})

    def ranking(self, activation: Activation, n: int, allowed: np.ndarray | None = None) -> list[int]:
        """Chunk indexes linked to the activated entities, best first, at most ``n``."""
        if not activation.scores or self.n_chunks == 0:
            return []
        rows = np.asarray(sorted(self.index[entity] for entity in activation.scores), dtype=np.int64)
        weights = np.asarray([activation.scores[self.ids[i]] for i in rows], dtype=np.float32)
        # only the activated entities' rows (ascending, so chunk sums add in the same order as a full product)
        scores = np.asarray(self.links[rows].T @ weights).ravel()
        if allowed is not None:
            scores = np.where(allowed[: self.n_chunks], scores, 0.0)
        candidates = np.flatnonzero(scores > 0)
        if candidates.size == 0:
            return []
        return candidates[top_positions(scores[candidates], n)].tolist()


def top_positions(values: np.ndarray, n: int) -> np.ndarray:
    """Positions of the ``n`` largest ``values``, largest first, ties in position order: exactly
    ``np.argsort(-values, kind="stable")[:n]``, without sorting all of a million-long array."""
    size = len(values)
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if size <= 4 * n:
        return np.argsort(-values, kind="stable")[:n]
    threshold = np.partition(values, size - n)[size - n]  # the n-th largest value
    above = np.flatnonzero(values > threshold)
    tied = np.flatnonzero(values == threshold)[: n - len(above)]
    chosen = np.sort(np.concatenate([above, tied]))
    return chosen[np.argsort(-values[chosen], kind="stable")]


# --- routing plain questions by the domain graph ---------------------------------------------------------------

# A route counts only when its best act scores at least this (about two of an area's vocabulary terms matched):
# a notice about a village's sewer loan routes weakly to whatever act shares a word, and is better left alone.
ROUTE_MIN_SCORE = 5.0
ROUTE_MIN_SHARE = 0.5  # further acts within this share of the best route's score
ROUTED_ACTS = 3


def routed_acts(routing_text: str, k: int = ROUTED_ACTS) -> dict[str, float]:
    """Act citation -> its share of the best route (1.0 for the best), for the acts the domain graph
    (``mendel.law.domain_graph``) confidently routes ``routing_text`` to; empty when no route is confident."""
    from mendel.law.domain_graph import default_graph

    graph = default_graph()
    # areas and acts, as query understanding routes the same text (its cached ranking is reused), acts kept
    routed = [
        (node_id, score)
        for node_id, score in graph.route(routing_text, k=len(graph.nodes))
        if graph.nodes[node_id].type == "act"
    ][:k]
    if not routed or routed[0][1] < ROUTE_MIN_SCORE:
        return {}
    top = routed[0][1]
    return {
        graph.nodes[node_id].citation: round(score / top, 4)
        for node_id, score in routed
        if score / top >= ROUTE_MIN_SHARE and graph.nodes[node_id].citation
    }


class ActRouter:
    """Routing for plain questions: the acts a question routes to (:func:`routed_acts`), as a mask over a layer's
    chunks (act citation -> the rows of that act's documents, from the bundle's documents and the layer's
    doc_id -> rows), so the routed acts can bound a search."""

    def __init__(self, documents: dict[str, dict], doc_chunks: dict[str, list[int]], size: int):
        by_citation: dict[str, list[int]] = {}
        for doc_id, rows in doc_chunks.items():
            citation = (documents.get(doc_id) or {}).get("citation")
            if citation:
                by_citation.setdefault(citation, []).extend(rows)
        self.rows = {citation: np.asarray(sorted(rows), dtype=np.int64) for citation, rows in by_citation.items()}
        self.size = size

    def route(self, understanding) -> dict[str, float]:
        """:func:`routed_acts` of a query understood by ``serving.query.analyze.understand``, its references left out
        ("Listiny" in "čl. 10 Listiny" names an act, not a topic), only acts this layer holds."""
        from serving.query.analyze import routing_text

        routed = routed_acts(routing_text(understanding))
        return {citation: share for citation, share in routed.items() if citation in self.rows}

    def mask(self, citations) -> np.ndarray | None:
        """Boolean mask of the chunks of ``citations``; None when the layer holds none of them."""
        found = [self.rows[c] for c in citations if c in self.rows]
        if not found:
            return None
        mask = np.zeros(self.size, dtype=bool)
        for rows in found:
            mask[rows] = True
        return mask
