"""Train the lay stage (``serving.ranking.fusion.LayFusion``), the second stage of questions in plain words, on the
dev sets' lay questions -- never on held-out or blind questions (refused). Each dev file is a fold: the model is
trained on the other files and the default search, with it and without it, is scored on that file's questions;
the figures printed are those held-out folds'. The model written is trained on every file, and only when the folds
say it ranks better than the fused order by ``MIN_MRR_GAIN`` (``--force`` writes it anyway).

    python -m retrieval_eval.learn_lay --bundles DIR [--out serving/ranking/lay_fusion.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from retrieval_eval import QUESTIONS_DIR
from retrieval_eval.gold import answerable as is_answerable
from retrieval_eval.retrieval import is_relevant, judge, load_questions, recall_at_k, reciprocal_rank

DEV_LAY_FILES = (
    "dev.jsonl",
    "dev_codes.jsonl",
    "dev_codes2.jsonl",
    "dev_codes3.jsonl",
    "dev_codes4.jsonl",
    "dev_codes5.jsonl",
    "dev_codes_keywords.jsonl",
    "dev_decisions.jsonl",
    "dev_absent.jsonl",
    "dev_absent2.jsonl",
)
L2_CHOICES = (0.01, 0.1, 1.0)
# What the folds' mean MRR must gain for the model to be written: below it, a difference of one or two questions
MIN_MRR_GAIN = 0.01
DEPTH = 50  # the search's candidate depth: what the lists hold


def refuse_measured(paths: Sequence[Path]) -> None:
    """Training reads dev files only: a held-out or blind file is measured, never learned from."""
    for path in paths:
        if not Path(path).name.startswith("dev"):
            raise ValueError(f"{path}: only dev question files train the lay stage")


def as_hit(chunk: dict) -> dict:
    """A chunk as the judge reads a hit."""
    keys = ("doc_id", "text", "citation", "section", "title", "url", "source")
    return {**{key: chunk.get(key) for key in keys}, "page": chunk["page_start"], "page_end": chunk["page_end"]}


def answerable(questions: Sequence[dict]) -> list[dict]:
    """The questions with an answer in the collection (``retrieval_eval.gold.answerable``) and gold to judge it by."""
    return [q for q in questions if is_answerable(q) and q.get("gold")]


def lay_groups(searcher, questions: Sequence[dict]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per lay question whose candidates hold a relevant passage and an irrelevant one: the lay stage's candidates'
    feature rows and which are relevant."""
    from serving.ranking.lay_stage import lay_candidates, lay_features

    groups = []
    for q in questions:
        trace: list = []
        searcher.search(q["question"], k=DEPTH, learned=False, trace=trace)
        if not trace or not trace[0][1].signals.lay:
            continue
        fused, ranked, layer = trace[0]
        items = [item for item, _, _ in fused]
        own = set(ranked.own)
        candidates = lay_candidates([i for i in items if i not in own], ranked.signals)
        relevant = np.array(
            [any(is_relevant(as_hit(layer.chunks[i]), g, searcher.documents) for g in q["gold"]) for i in candidates],
            dtype=bool,
        )
        if relevant.any() and not relevant.all():
            groups.append((lay_features(candidates, items, ranked.signals, layer.chunks), relevant))
    return groups


def scored(searcher, questions: Sequence[dict]) -> dict:
    """The default search's recall@10 and MRR (top 10) over ``questions``."""
    from retrieval_eval.retrieval import gold_size

    recalls, ranks = [], []
    for q in questions:
        hits = searcher.search(q["question"], k=10)
        found = judge(hits, q["gold"], searcher.documents)
        recalls.append(recall_at_k(found, gold_size(q["gold"]), 10))
        ranks.append(reciprocal_rank(found))
    n = max(len(questions), 1)
    return {"n": len(questions), "recall@10": round(sum(recalls) / n, 3), "mrr": round(sum(ranks) / n, 3)}


def main(argv: Sequence[str] | None = None) -> int:
    from serving.ranking.fusion import train_listwise
    from serving.ranking.lay_stage import LAY_FEATURES, LAY_FUSION_FILE, LayFusion
    from serving.ranking.search import Searcher

    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.learn_lay", description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, required=True)
    parser.add_argument("--files", nargs="*", default=list(DEV_LAY_FILES), help="dev question files (the folds)")
    parser.add_argument("--out", type=Path, default=LAY_FUSION_FILE)
    parser.add_argument("--force", action="store_true", help="write the model even when the folds say it is worse")
    args = parser.parse_args(argv)

    paths = [QUESTIONS_DIR / name if "/" not in name else Path(name) for name in args.files]
    refuse_measured(paths)
    searcher = Searcher.latest(args.bundles)
    searcher.warm()
    folds = {path.name: answerable(load_questions(path)) for path in paths}
    groups = {name: lay_groups(searcher, questions) for name, questions in folds.items()}
    searcher.lay_fusion = None
    fused = {name: scored(searcher, questions) for name, questions in folds.items()}
    by_l2 = {}
    for l2 in L2_CHOICES:
        folded = {}
        for name, questions in folds.items():
            training = [g for other, rows in groups.items() if other != name for g in rows]
            weights, _ = train_listwise(training, l2=l2)
            searcher.lay_fusion = LayFusion(weights)
            folded[name] = scored(searcher, questions)
        by_l2[l2] = folded
    total = {l2: sum(f["mrr"] * f["n"] for f in folded.values()) for l2, folded in by_l2.items()}
    l2 = max(total, key=lambda value: (total[value], value))
    before = sum(f["mrr"] * f["n"] for f in fused.values())
    weights, fit = train_listwise([g for rows in groups.values() for g in rows], l2=l2)
    model = LayFusion(weights)
    model.provenance = {
        "trained_on": "the lay questions of the dev files (written before any tuning; held-out and blind never "
        "read), listwise over the lay stage's candidates on the bundle below",
        "files": {name: {"questions": len(folds[name]), "groups": len(groups[name])} for name in folds},
        "bundle": searcher.path.name,
        "bundle_counts": searcher.manifest.get("counts"),
        "l2": l2,
        "fit": fit,
        "folds": "each dev file scored by a model trained on the others (default search, top 10)",
        "fused_order": fused,
        "lay_stage": by_l2[l2],
        "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
    }
    questions = sum(f["n"] for f in fused.values()) or 1
    better = (total[l2] - before) / questions >= MIN_MRR_GAIN
    if better or args.force:
        model.save(args.out)
    report = {
        "weights": dict(zip(LAY_FEATURES, [round(float(w), 4) for w in weights])),
        "mrr_sum_by_l2": {str(k): round(v, 3) for k, v in total.items()},
        "mrr_sum_fused": round(before, 3),
        **model.provenance,
        "written": str(args.out) if better or args.force else None,
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))
    if not better:
        print(
            f"the lay stage does not beat the fused order on the folds by {MIN_MRR_GAIN} MRR"
            + ("" if args.force else ": not written")
        )
    return 0 if better or args.force else 1


if __name__ == "__main__":
    sys.exit(main())
