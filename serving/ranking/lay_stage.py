"""The lay stage: the second stage of a question in plain words (``Signals.lay``), a linear model over the lists'
signals and what a candidate is, trained on the dev files' lay questions by ``retrieval_eval.learn_lay`` and used
only when its folds beat the fused order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from serving.ranking.fusion import FEATURES, LearnedFusion, Signals, candidate_features
from serving.ranking.query_lists import ACT_CITATION_RE, AMENDING_TITLE_RE

LAY_FUSION_FILE = Path(__file__).resolve().parent / "lay_fusion.json"
# The candidates: each list's first LAY_HEADS (the acts' lists reach deeper than the fusion) and the fused list's
# best, LAY_CANDIDATES in all. On the folds of retrieval_eval.learn_lay (MRR summed over 380 dev questions) 5 and 30
# gave 277.55, 10 and 60 277.29, 15 and 80 277.11, 3 and 25 276.40: half the candidates, half the features to read.
LAY_HEADS = 5
LAY_CANDIDATES = 30
LAY_LISTS = ("bm25", "dense", "acts_bm25", "acts_dense", "wordings", "wordings_bm25", "governing", "routed", "graph")
LAY_FEATURES = (
    "fused_inv",
    "bm25_inv",
    "bm25_rel",
    "dense_inv",
    "dense_rel",
    "acts_bm25_inv",
    "acts_dense_inv",
    "wordings_inv",
    "wordings_bm25_inv",
    "governing_inv",
    "routed_inv",
    "graph_inv",
    "lists",
    "act",
    "provision",
    "amendment",
    "short",
    "section_depth",
    "heading_match",
    "governing",
    "governing_part",
    "fused_near",
    "bm25_near",
    "dense_near",
    "acts_bm25_near",
    "acts_dense_near",
    "wordings_near",
    "wordings_bm25_near",
)
# Each list's rank once more as NEAR_K / (NEAR_K + rank): an inverse rank alone makes 2nd and 10th nearly alike
# and a linear model cannot bend it. Folds' MRR sum 273.40 -> 277.29 (NEAR_K 5: 277.19, 20: 276.43).
NEAR_LISTS = ("bm25", "dense", "acts_bm25", "acts_dense", "wordings", "wordings_bm25")
NEAR_K = 10
PROVISION_RE = re.compile(r"§\s*\d|(?:Čl\.|Článek)\s*[\dIVXLC]")


def lay_candidates(fused: list[int], signals: Signals, cap: int = LAY_CANDIDATES) -> list[int]:
    """The lay stage's candidates: each list's own best ``LAY_HEADS`` (the acts' lists and the governing act's
    among them), and the fused list's best up to ``cap``."""
    heads = dict.fromkeys(i for name in LAY_LISTS for i in signals.rankings.get(name, [])[:LAY_HEADS])
    best = set([i for i in fused if i not in heads][: max(0, cap - len(heads))])
    in_fused = [i for i in fused if i in best or i in heads]  # in the fused order
    held = set(in_fused)
    return (in_fused + [i for i in heads if i not in held])[:cap]


def lay_features(candidates: list[int], fused: list[int], signals: Signals, chunks) -> np.ndarray:
    """One row of :data:`LAY_FEATURES` per candidate: :func:`candidate_features`' signals plus its inverse rank in
    the acts' own lists, the governing act's and the routed acts' lists, how many lists hold it, what it is -- a
    passage of an act in force (not an amending act), of a provision (§ or article) -- and its rank in the fused
    order and the main lists read flatter (``NEAR_K / (NEAR_K + rank)``)."""
    base = candidate_features(candidates, fused, signals, chunks)
    column = {name: j for j, name in enumerate(FEATURES)}
    ranks = {
        name: {item: rank for rank, item in enumerate(items, start=1)}
        for name, items in (*signals.rankings.items(), ("fused", fused))
    }

    def inverse(name: str, item: int) -> float:
        rank = ranks.get(name, {}).get(item)
        return 1.0 / rank if rank else 0.0

    def near(name: str, item: int) -> float:
        rank = ranks.get(name, {}).get(item)
        return NEAR_K / (NEAR_K + rank) if rank else 0.0

    rows = np.zeros((len(candidates), len(LAY_FEATURES)), dtype=np.float64)
    for row, item in enumerate(candidates):
        chunk = chunks[item]
        section = chunk.get("section") or ""
        act = bool(ACT_CITATION_RE.match(chunk.get("citation") or "")) and not AMENDING_TITLE_RE.search(
            chunk.get("title") or ""
        )
        rows[row] = (
            base[row, column["fused_inv"]],
            base[row, column["bm25_inv"]],
            base[row, column["bm25_rel"]],
            base[row, column["dense_inv"]],
            base[row, column["dense_rel"]],
            inverse("acts_bm25", item),
            inverse("acts_dense", item),
            inverse("wordings", item),
            inverse("wordings_bm25", item),
            inverse("governing", item),
            inverse("routed", item),
            base[row, column["graph_inv"]],
            sum(item in ranks.get(name, ()) for name in LAY_LISTS) / len(LAY_LISTS),
            float(act),
            float(bool(PROVISION_RE.search(section))),
            base[row, column["amendment"]],
            base[row, column["short"]],
            base[row, column["section_depth"]],
            base[row, column["heading_match"]],
            base[row, column["governing"]],
            base[row, column["governing_part"]],
            near("fused", item),
            *(near(name, item) for name in NEAR_LISTS),
        )
    return rows


@dataclass
class LayFusion(LearnedFusion):
    """The second stage of a lay question (``Signals.lay``): a linear ranking function over :data:`LAY_FEATURES`,
    trained listwise on lay questions by ``retrieval_eval.learn_lay`` (``provenance`` says which)."""

    features: tuple[str, ...] = LAY_FEATURES
    FILE = LAY_FUSION_FILE
    FEATURES = LAY_FEATURES

    feature_rows = staticmethod(lay_features)
    candidates = staticmethod(lay_candidates)
