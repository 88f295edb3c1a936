"""Fusion of ranked lists: weighted reciprocal rank fusion for one query's lists, interleaving for a query
and its sub-queries, and the graph list's share by entity coverage."""

from __future__ import annotations

import re
from operator import itemgetter

from mendel.index.analyzer import analyze

RRF_K = 60
# Dense counts 3/4 of BM25: on the dev set (retrieval_eval/questions/dev.jsonl) equal weights lost rank-1 hits that BM25
# alone found (R@1 0.780 vs 0.826); 0.75 keeps both (R@1 0.826, R@10 0.992, MRR 0.909).
RRF_WEIGHTS = {"bm25": 1.0, "dense": 0.75, "graph": 0.5}
GRAPH_MIN_SHARE = 0.0  # the graph list's weight is scaled by the query's entity coverage (entity_coverage)
# The whole query against its sub-queries when a query is decomposed.
SUBQUERY_WEIGHTS = {"query": 1.0, "subquery": 0.9}
INTERLEAVE_K = 1
INTERLEAVE_TIE_SHARE = 0.05


def rrf_fuse(rankings: dict[str, list[int]], k: int = RRF_K,
             weights: dict[str, float] | None = None) -> list[tuple[int, float, list[str]]]:
    """Reciprocal rank fusion, optionally weighted per list: (item, score, names of its lists), best first."""
    scores: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            sources.setdefault(item, []).append(name)
    return [(item, score, sources[item]) for item, score in _best_first(scores)]


def _best_first(scores: dict[int, float]) -> list[tuple[int, float]]:
    """(item, score) by score descending, ties by item ascending: two stable C-keyed sorts instead of a tuple key
    per item (reverse=True keeps equal scores in item order)."""
    ordered = sorted(scores.items(), key=itemgetter(0))
    ordered.sort(key=itemgetter(1), reverse=True)
    return ordered


def interleave_fuse(rankings: dict[str, list[int]], k: int = INTERLEAVE_K,
                    weights: dict[str, float] | None = None) -> list[tuple[int, float, list[str]]]:
    """Fusion for sub-queries: an item scores its best weighted reciprocal rank in any list (plus a small share
    of the rest, to break ties), with a small ``k`` so the lists take turns at the top (the query's best, each
    sub-query's best, the query's second, ...) instead of the items that are mediocre for all of them rising
    (what a plain RRF sum with k=60 would favour)."""
    best: dict[int, float] = {}
    total: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            value = weight / (k + rank)
            best[item] = max(best.get(item, 0.0), value)
            total[item] = total.get(item, 0.0) + value
            sources.setdefault(item, []).append(name)
    scores = {item: best[item] + INTERLEAVE_TIE_SHARE * (total[item] - best[item]) for item in best}
    return [(item, score, sources[item]) for item, score in _best_first(scores)]


def entity_coverage(understanding) -> float:
    """Share of the query's content words inside its graph entities: 1.0 for "Nejvyšší soud", ~0.1 for a
    long question that happens to name an act, 0 when it names none. The graph list counts in proportion: it
    carries queries about entities and barely moves (or, at 0, stays out of) questions the words answer. On the
    dev set a fixed graph weight cost rank-1 hits (R@1 0.841 -> 0.742 at weight 0.5 with routed acts as seeds);
    scaled by coverage the figures equal the hybrid's."""
    from mendel.graph.domain import QUERY_STOPWORDS

    query = understanding.query
    spans = [(e.start, e.end) for e in understanding.graph_entities()]
    inside = total = 0
    for m in re.finditer(r"\S+", query):
        words = [t for t in analyze(m.group(0)) if t not in QUERY_STOPWORDS]
        total += len(words)
        if any(s <= m.start() < e for s, e in spans):
            inside += len(words)
    return inside / total if total else 0.0


LIST_ORDER = ("reference", "bm25", "dense", "graph")


def ordered_lists(lists: list[str]) -> list[str]:
    return sorted(lists, key=lambda name: LIST_ORDER.index(name) if name in LIST_ORDER else len(LIST_ORDER))
