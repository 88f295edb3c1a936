"""Fusion of ranked lists: weighted reciprocal rank fusion for one query's lists, interleaving for a query
and its sub-queries, the graph list's share by entity coverage, and a learned second stage that reorders the best
candidates by the lists' signals (``LearnedFusion``)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import numpy as np

from mendel.czech.analyzer import analyze

RRF_K = 60
# Dense counts 3/4 of BM25: on the dev set (retrieval_eval/questions/dev.jsonl) equal weights lost rank-1 hits that BM25
# alone found (R@1 0.780 vs 0.826); 0.75 keeps both (R@1 0.826, R@10 0.992, MRR 0.909).
RRF_WEIGHTS = {"bm25": 1.0, "dense": 0.75, "graph": 0.5, "routed": 0.5}
GRAPH_MIN_SHARE = 0.0  # the graph list's weight is scaled by the query's entity coverage (entity_coverage)
# The routed list (BM25 within the acts the domain graph routes the question to, serving.ranking.graph_retrieval.routed_acts) counts
# for the rest: a question NER recognises nothing in is carried by routing, one about entities by the graph list.
# The whole query against its sub-queries when a query is decomposed.
SUBQUERY_WEIGHTS = {"query": 1.0, "subquery": 0.9}
INTERLEAVE_K = 1
INTERLEAVE_TIE_SHARE = 0.05


def rrf_fuse(
    rankings: dict[str, list[int]], k: int = RRF_K, weights: dict[str, float] | None = None
) -> list[tuple[int, float, list[str]]]:
    """Reciprocal rank fusion, optionally weighted per list: (item, score, names of its lists), best first."""
    scores: dict[int, float] = {}
    sources: dict[int, list[str]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            sources.setdefault(item, []).append(name)
    return [(item, score, sources[item]) for item, score in _best_first(scores)]


def rrf_fuse_head(
    rankings: dict[str, list[int]], head: int, weights: dict[str, float] | None = None
) -> list[tuple[int, float, list[str]]]:
    """:func:`rrf_fuse` whose first items do not depend on how deep the lists go: the lists' first ``head`` items,
    fused, give the order of every item they hold (what a search for the first ten hits ranks); the items only
    deeper lists reach follow in the whole lists' fused order, scored no higher than the last before them."""
    if all(len(ranking) <= head for ranking in rankings.values()):
        return rrf_fuse(rankings, weights=weights)
    first = rrf_fuse({name: ranking[:head] for name, ranking in rankings.items()}, weights=weights)
    held = {item for item, _, _ in first}
    floor = first[-1][1] if first else float("inf")
    rest = [(item, min(score, floor), lists) for item, score, lists in rrf_fuse(rankings, weights=weights)]
    return first + [entry for entry in rest if entry[0] not in held]


def _best_first(scores: dict[int, float]) -> list[tuple[int, float]]:
    """(item, score) by score descending, ties by item ascending: two stable C-keyed sorts instead of a tuple key
    per item (reverse=True keeps equal scores in item order)."""
    ordered = sorted(scores.items(), key=itemgetter(0))
    ordered.sort(key=itemgetter(1), reverse=True)
    return ordered


def placed_at(fused: list[tuple], item: int, slot: int, mark: str, lists: list[str]) -> list[tuple]:
    """``fused`` (at least ``slot`` long) with ``item`` moved or added at rank ``slot`` (1-based), scored between
    its new neighbours (at rank 1 as the passage it displaces) and listed as ``mark`` before the lists it came from
    (``lists`` when the fused list does not hold it)."""
    lists = next((found for entry, _, found in fused if entry == item), lists)
    rest = [entry for entry in fused if entry[0] != item]
    below = rest[slot - 1][1]
    above = rest[slot - 2][1] if slot > 1 else below
    return rest[: slot - 1] + [(item, (above + below) / 2, [mark, *lists])] + rest[slot - 1 :]


def interleave_fuse(
    rankings: dict[str, list[int]], k: int = INTERLEAVE_K, weights: dict[str, float] | None = None
) -> list[tuple[int, float, list[str]]]:
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
    from mendel.law.domain_routing import QUERY_STOPWORDS

    query = understanding.query
    spans = [(e.start, e.end) for e in understanding.graph_entities()]
    inside = total = 0
    for m in re.finditer(r"\S+", query):
        words = [t for t in analyze(m.group(0)) if t not in QUERY_STOPWORDS]
        total += len(words)
        if any(s <= m.start() < e for s, e in spans):
            inside += len(words)
    return inside / total if total else 0.0


LIST_ORDER = (
    "reference",
    "bm25",
    "dense",
    "graph",
    "routed",
    "governing",
    "acts_bm25",
    "acts_dense",
    "wordings",
    "wordings_bm25",
)


def ordered_lists(lists: list[str]) -> list[str]:
    return sorted(lists, key=lambda name: LIST_ORDER.index(name) if name in LIST_ORDER else len(LIST_ORDER))


# --- learned fusion: the second stage over the best candidates ---------------------------------------------

LEARNED_FUSION_FILE = Path(__file__).resolve().parent / "learned_fusion.json"
LEARNED_CANDIDATES = 40  # hard cap: the fused list's best, plus BM25's and dense's own best
LIST_HEADS = 10  # each list's best that join the candidates even when fusion ranked them lower
# An amendment clause or a bare heading is rarely the answer, though it repeats the words of many questions.
AMENDMENT_RE = re.compile(
    r"\b(?:se\s+mění\s+takto|se\s+zrušuj[eí]|se\s+vklád[aá]|nahrazuj[eí]\s+slov|"
    r"se\s+slova?\s+„|zní:|novel\w*)\b",
    re.IGNORECASE,
)
SHORT_CHUNK_CHARS = 300
SECTION_TERMS_KEPT = 16_384  # heading paths whose terms are kept (the sample corpus has ~25,000 sections)
# What each form of AMENDMENT_RE holds, lower-cased (one word, or all of a tuple): a text without any is no
# amendment, told at a fraction of the cost of the expression, which tries every position of the text
AMENDMENT_WORDS = ("mění", "zrušuj", "vklád", "nahrazuj", ("slov", "„"), "zní:", "novel")
# The same expression told where to try: each of its forms starts with an s, n or z (twice as fast)
AMENDMENT_STARTS_RE = re.compile(r"(?=[snz])" + AMENDMENT_RE.pattern, AMENDMENT_RE.flags)


def is_amendment(text: str) -> bool:
    """``AMENDMENT_RE`` matches somewhere in ``text``."""
    lowered = text.lower()
    if not any(w in lowered if isinstance(w, str) else all(p in lowered for p in w) for w in AMENDMENT_WORDS):
        return False
    return AMENDMENT_STARTS_RE.search(text) is not None


FEATURES = (
    "fused_inv",
    "bm25_inv",
    "bm25_rel",
    "dense_inv",
    "dense_rel",
    "graph_inv",
    "routed",
    "citing",
    "amendment",
    "short",
    "section_depth",
    "heading_match",
    "governing",
    "governing_part",
)


@dataclass
class Signals:
    """What one query's lists said about its candidates: BM25 items with scores, dense items with cosine
    similarities, the graph list and its share, chunks citing an exact reference."""

    bm25: list[int] = field(default_factory=list)
    bm25_scores: list[float] = field(default_factory=list)
    dense: list[int] = field(default_factory=list)
    dense_sims: list[float] = field(default_factory=list)
    graph: list[int] = field(default_factory=list)
    graph_share: float = 0.0
    citing: set[int] = field(default_factory=set)
    routed: dict[str, float] = field(default_factory=dict)  # act citation -> route share x the query's plainness
    governing: set[str] = field(default_factory=set)  # the citations of the governing acts the layer holds
    part: set[int] = field(default_factory=set)  # their chunks in the part dealing with the question's area
    query_terms: frozenset[str] = frozenset()  # the query's analysed content terms (heading match)
    # a lay question (serving.ranking.query_lists.QueryLists.lay_question): BM25 and dense among the acts' own
    # passages joined the fusion, and the lay stage (LayFusion) orders it when one is stored
    lay: bool = False
    rankings: dict[str, list[int]] = field(default_factory=dict)  # every list fused, by name
    weights: dict[str, float] = field(default_factory=dict)  # each list's weight in the fusion

    def head(self, depth: int) -> None:
        """Keep each list's first ``depth`` items: what the learned stage reads whatever depth the lists went to."""
        self.bm25, self.bm25_scores = self.bm25[:depth], self.bm25_scores[:depth]
        self.dense, self.dense_sims = self.dense[:depth], self.dense_sims[:depth]
        self.graph = self.graph[:depth]
        self.rankings = {name: items[:depth] for name, items in self.rankings.items()}


def heading_match(section: str, query_terms: frozenset[str]) -> float:
    """Share of the query's content terms that the chunk's heading path (část / hlava / díl / oddíl / § and their
    headings) carries: a question worded like the heading of the part it asks about."""
    if not query_terms or not section:
        return 0.0
    return len(query_terms & section_terms(section)) / len(query_terms)


@functools.lru_cache(maxsize=SECTION_TERMS_KEPT)
def section_terms(section: str) -> frozenset[str]:
    """The terms of a heading path: the same few thousand paths recur in every query's candidates."""
    return frozenset(analyze(section))


def learned_candidates(fused: list[int], signals: Signals, cap: int = LEARNED_CANDIDATES) -> list[int]:
    """The second stage's candidates: the fused list's best, then BM25's and dense's own best, at most ``cap``."""
    best = set(fused[:cap])
    heads = [i for i in dict.fromkeys(signals.bm25[:LIST_HEADS] + signals.dense[:LIST_HEADS]) if i not in best]
    return fused[: cap - len(heads)] + heads


def candidate_features(candidates: list[int], fused: list[int], signals: Signals, chunks) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate: inverse ranks in each list (0 when absent), BM25 score over the
    query's best, dense similarity minus the query's best, the route share of the candidate's act (0 when the
    domain graph routed the question elsewhere or nowhere), whether it cites the query's exact reference, what
    the chunk is (an amendment clause, a short heading-like chunk, how deep its section sits), how much of the
    query its heading path carries, and whether it belongs to the act governing the question and to the part of
    that act dealing with the question's area."""

    def inverse_ranks(items: list[int]) -> dict[int, float]:
        return {item: 1.0 / rank for rank, item in enumerate(items, start=1)}

    fused_inv, bm25_inv, dense_inv = inverse_ranks(fused), inverse_ranks(signals.bm25), inverse_ranks(signals.dense)
    graph_inv = inverse_ranks(signals.graph)
    top_bm25 = max(signals.bm25_scores, default=0.0) or 1.0
    bm25_score = dict(zip(signals.bm25, signals.bm25_scores))
    top_sim = max(signals.dense_sims, default=0.0)
    floor_sim = min(signals.dense_sims, default=0.0)
    dense_sim = dict(zip(signals.dense, signals.dense_sims))
    rows = np.zeros((len(candidates), len(FEATURES)), dtype=np.float64)
    for row, item in enumerate(candidates):
        chunk = chunks[item]
        text = chunk.get("text") or ""
        rows[row] = (
            fused_inv.get(item, 0.0),
            bm25_inv.get(item, 0.0),
            bm25_score.get(item, 0.0) / top_bm25,
            dense_inv.get(item, 0.0),
            dense_sim.get(item, floor_sim) - top_sim,
            graph_inv.get(item, 0.0) * signals.graph_share,
            signals.routed.get(chunk.get("citation") or "", 0.0) if signals.routed else 0.0,
            float(item in signals.citing),
            float(is_amendment(text[:600])),
            float(len(text) < SHORT_CHUNK_CHARS),
            min(len([p for p in re.split(r"\s*>\s*", chunk.get("section") or "") if p]), 5) / 5.0,
            heading_match(chunk.get("section") or "", signals.query_terms),
            float((chunk.get("citation") or "") in signals.governing),
            float(item in signals.part),
        )
    return rows


@dataclass
class LearnedFusion:
    """A linear ranking function over :data:`FEATURES`, trained listwise (:func:`train_listwise`, by
    ``retrieval_eval.learn_fusion``); ``provenance`` says on what."""

    weights: np.ndarray
    features: tuple[str, ...] = FEATURES
    provenance: dict = field(default_factory=dict)
    FILE = LEARNED_FUSION_FILE
    FEATURES = FEATURES

    @classmethod
    def load(cls, path: Path | None = None) -> "LearnedFusion | None":
        """The stored model; None when there is none or it was trained on other features."""
        try:
            data = json.loads(Path(path or cls.FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        if tuple(data["features"]) != cls.FEATURES:
            return None
        return cls(np.asarray(data["weights"], dtype=np.float64), cls.FEATURES, data.get("provenance", {}))

    # its candidates' feature rows (candidates, fused, signals, chunks) and its candidates (fused, signals)
    feature_rows = staticmethod(candidate_features)
    candidates = staticmethod(learned_candidates)

    def save(self, path: Path | None = None) -> None:
        Path(path or self.FILE).write_text(
            json.dumps(
                {
                    "features": list(self.features),
                    "weights": [round(float(w), 6) for w in self.weights],
                    "provenance": self.provenance,
                },
                ensure_ascii=False,
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )

    def order(self, candidates: list[int], fused: list[int], signals: Signals, chunks) -> list[int]:
        """``candidates`` best first by the learned score (ties: fused order)."""
        if not candidates:
            return []
        scores = self.feature_rows(candidates, fused, signals, chunks) @ self.weights
        return [candidates[j] for j in sorted(range(len(candidates)), key=lambda j: (-scores[j], j))]


def train_pairwise(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 1e-3) -> tuple[np.ndarray, dict]:
    """Weights of a linear ranker from (feature rows, relevant mask) per query: logistic loss over every
    (relevant, irrelevant) pair of a query, L2-regularised, solved by L-BFGS (scipy). Returns the weights and
    the fit's summary (pairs, final loss, pairwise accuracy)."""
    from scipy.optimize import minimize

    diffs = []
    for rows, relevant in groups:
        positives, negatives = rows[relevant], rows[~relevant]
        if len(positives) and len(negatives):
            diffs.append((positives[:, None, :] - negatives[None, :, :]).reshape(-1, rows.shape[1]))
    if not diffs:
        raise ValueError("no query has both a relevant and an irrelevant candidate")
    pairs = np.concatenate(diffs)

    def loss(w):
        margin = pairs @ w
        value = np.logaddexp(0.0, -margin).mean() + l2 * (w @ w)
        grad = -(pairs * (1.0 / (1.0 + np.exp(margin)))[:, None]).mean(axis=0) + 2 * l2 * w
        return value, grad

    fit = minimize(loss, np.zeros(pairs.shape[1]), jac=True, method="L-BFGS-B")
    accuracy = float(((pairs @ fit.x) > 0).mean())
    return fit.x, {"pairs": int(len(pairs)), "loss": round(float(fit.fun), 5), "pair_accuracy": round(accuracy, 4)}


def train_listwise(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 1e-3) -> tuple[np.ndarray, dict]:
    """Weights of a linear ranker from (feature rows, relevant mask) per query: the softmax over a query's
    candidates should put its mass on the relevant ones (loss: -log of the relevant candidates' share, averaged
    over queries, L2-regularised; L-BFGS). Unlike the pairwise loss, every query counts once however many
    candidates it has, and the top of the list is what the loss pays for -- what MRR measures. Returns the weights
    and the fit's summary (queries, final loss, share of queries whose best-scored candidate is relevant)."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    usable = [(rows, relevant) for rows, relevant in groups if relevant.any() and not relevant.all()]
    if not usable:
        raise ValueError("no query has both a relevant and an irrelevant candidate")
    width = usable[0][0].shape[1]

    def loss(w):
        value, grad = 0.0, np.zeros(width)
        for rows, relevant in usable:
            scores = rows @ w
            every, wanted = logsumexp(scores), logsumexp(scores[relevant])
            value += every - wanted
            p_all = np.exp(scores - every)
            p_rel = np.exp(scores[relevant] - wanted)
            grad += p_all @ rows - p_rel @ rows[relevant]
        return value / len(usable) + l2 * (w @ w), grad / len(usable) + 2 * l2 * w

    fit = minimize(loss, np.zeros(width), jac=True, method="L-BFGS-B")
    top1 = float(np.mean([relevant[int(np.argmax(rows @ fit.x))] for rows, relevant in usable]))
    return fit.x, {"queries": len(usable), "loss": round(float(fit.fun), 5), "top1_relevant": round(top1, 4)}


def lead_with(fused: list[tuple[int, float, list[str]]], lead_items: list[int]) -> list[tuple[int, float, list[str]]]:
    """``fused`` with ``lead_items`` first, in their order, scored just above its best and marked "reference"
    (with the lists each came from), the rest after them as they were."""
    top_score = fused[0][1] if fused else 0.0
    lists_of = {item: lists for item, _, lists in fused}
    lead = [
        (i, top_score + 1.0 / (RRF_K + r), ["reference"] + lists_of.get(i, []))
        for r, i in enumerate(lead_items, start=1)
    ]
    chosen = set(lead_items)
    return lead + [f for f in fused if f[0] not in chosen]


class SubqueryFusion:
    """A decomposed query's candidates: the whole query's fused list interleaved with each sub-query's
    (``interleave_fuse``), each candidate keeping every list it came from, which sub-queries found it among their
    own best ``k``, and the strongest activation of each graph entity."""

    def __init__(self, fused: list[tuple], activation: dict[str, float], k: int):
        self.k = k
        self.rankings = {"query": [item for item, _, _ in fused]}
        self.lists_of = {item: list(lists) for item, _, lists in fused}
        self.found_by: dict = {}
        self.activation = dict(activation)

    def add(self, number: int, fused: list[tuple], activation: dict[str, float]) -> None:
        """Sub-query ``number`` (1-based): its fused list and its graph activation."""
        self.rankings[f"subquery:{number}"] = [item for item, _, _ in fused]
        for rank, (item, _, lists) in enumerate(fused):
            if rank < self.k:  # "found by" a sub-query: among its own best k
                self.found_by.setdefault(item, []).append(number)
            merged = self.lists_of.setdefault(item, [])
            merged += [name for name in lists if name not in merged]
        for entity, score in activation.items():
            self.activation[entity] = max(self.activation.get(entity, 0.0), score)

    def fused(self) -> list[tuple]:
        weights = {name: SUBQUERY_WEIGHTS["query" if name == "query" else "subquery"] for name in self.rankings}
        return [
            (item, score, ordered_lists(self.lists_of[item]))
            for item, score, _ in interleave_fuse(self.rankings, weights=weights)
        ]


def rerank_order(fused: list[tuple], scores: list[float]) -> tuple[list[tuple], dict]:
    """``fused`` with its first ``len(scores)`` candidates reordered by their cross-encoder ``scores`` (ties keep
    the fused order), and each reranked candidate's score."""
    top = fused[: len(scores)]
    order = sorted(range(len(top)), key=lambda j: (-scores[j], j))
    return [top[j] for j in order] + fused[len(top) :], {top[j][0]: float(scores[j]) for j in range(len(top))}


def first_of_each(fused: list[tuple]) -> list[tuple]:
    """``fused`` with each item once, where it first stands."""
    seen: set = set()
    return [entry for entry in fused if not (entry[0] in seen or seen.add(entry[0]))]
