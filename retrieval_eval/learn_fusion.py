"""Train the learned fusion (``serving.ranking.fusion.LearnedFusion``) on synthetic questions drawn from a bundle's own
passages -- never on an evaluation set: no passage that a question file has as gold (a page, a provision of a code,
a decision or a notice) is ever drawn; the blind files are read for that alone, never printed or searched. The model is written only when it ranks the quarter of questions held out of training better than
the fused order (``--force`` writes it anyway).

    python -m retrieval_eval.learn_fusion --bundles DIR [--questions 2000] [--seed 7] [--out serving/ranking/learned_fusion.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from mendel.czech.analyzer import analyze
from retrieval_eval import QUESTIONS_DIR
from retrieval_eval.gold import (
    ACT,
    DECISION,
    NOTICE,
    PASSAGE,
    PROVISION,
    act_of,
    gold_kind,
    matches,
    normalize_citation,
    provision_key,
    provisions_of,
)
from retrieval_eval.retrieval import is_relevant, load_questions, reciprocal_rank

_SENTENCE_END = re.compile(r"(?<=[.;:?!])\s+|\n+")
WINDOW_WORDS = (6, 14)
DROP_SHARE = 0.25
MIN_QUERY_TERMS = 4  # analysed content terms a question keeps ("v s §" asks nothing)
MIN_PASSAGE_CHARS = 200
VALIDATION_EVERY = 4  # every fourth question is kept out of training, to check the model on unseen questions


def _reverse_vocabulary():
    """legal term -> its first lay wording, as a vocabulary (its ``legal`` field then holds the lay wording)."""
    import yaml

    from mendel.law.vocabulary import VOCABULARY_FILE, LegalVocabulary

    data = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))
    rules = [
        (legal, lay[0], "reverse") for entries in data["areas"].values() for legal, lay in entries.items() if lay
    ]  # a term listed with no lay wording (kept for its area) has nothing to say it in
    return LegalVocabulary(rules, {})


def _layman(sentence: str, reverse) -> str | None:
    """``sentence`` with each legal term the vocabulary knows replaced by its lay wording; None when none is."""
    found = reverse.expand(sentence)
    if not found:
        return None
    out, position = [], 0
    for expansion in sorted(found, key=lambda e: e.start):
        if expansion.start >= position:
            out += [sentence[position : expansion.start], expansion.legal]
            position = expansion.end
    return "".join(out + [sentence[position:]])


class HeldOutGold:
    """What the question files have as gold, so that no synthetic question is drawn from it: the pages of passage
    gold, the provisions (or whole acts) of provision gold, the documents of decision and notice gold. The files
    are read here only to leave their gold out; no question is printed or searched."""

    def __init__(self, paths: Sequence[Path], documents: dict[str, dict] | None = None):
        self.documents = documents or {}
        self.pages: set[tuple[str, int]] = set()
        self.provisions: dict[str, set] = {}  # act citation -> provision keys (None: the whole act)
        by_document: list[dict] = []
        for path in paths:
            for question in load_questions(path):
                for item in question.get("gold") or []:
                    kind = gold_kind(item) if isinstance(item, dict) else None
                    if kind == PASSAGE:
                        self.pages.add((item["doc_id"], int(item["page"])))
                    elif kind in (PROVISION, ACT) and normalize_citation(item["act"]):
                        key = provision_key(item["provision"]) if kind == PROVISION else None
                        self.provisions.setdefault(normalize_citation(item["act"]), set()).add(key)
                    elif kind in (DECISION, NOTICE):
                        by_document.append(item)
        self.doc_ids = {
            doc_id
            for doc_id, doc in self.documents.items()
            if any(matches({**doc, "doc_id": doc_id}, item, self.documents) for item in by_document)
        }

    def __contains__(self, chunk: dict) -> bool:
        """The passage is (part of) a gold item of some question file."""
        if chunk["doc_id"] in self.doc_ids:
            return True
        pages = range(int(chunk["page_start"]), int(chunk["page_end"]) + 1)
        if any((chunk["doc_id"], page) in self.pages for page in pages):
            return True
        keys = self.provisions.get(act_of(chunk, self.documents) or "")
        return bool(keys) and (None in keys or bool(keys & provisions_of(chunk)))


def question_files() -> list[Path]:
    """Every question file of ``retrieval_eval/questions/``: dev, held-out, the codes' sets and the blind ones."""
    return sorted(QUESTIONS_DIR.glob("*.jsonl"))


def synthetic_questions(
    chunks: Sequence[dict], count: int, seed: int, excluded: HeldOutGold | None = None
) -> list[dict]:
    """``count`` questions (half "words", half "lay" where a passage allows), each with its passage's page as
    gold; no passage in ``excluded`` (:class:`HeldOutGold`) is drawn."""
    rng = random.Random(seed)
    reverse = _reverse_vocabulary()
    by_source: dict[str, list[dict]] = {}
    for c in chunks:
        if len(c.get("text") or "") >= MIN_PASSAGE_CHARS and (excluded is None or c not in excluded):
            by_source.setdefault(c.get("source") or "", []).append(c)
    for source in sorted(by_source):
        rng.shuffle(by_source[source])
    eligible = _round_robin([by_source[source] for source in sorted(by_source)])
    questions: list[dict] = []
    for chunk in eligible:
        if len(questions) >= count:
            break
        sentences = [
            s
            for s in _SENTENCE_END.split(chunk["text"])
            if len(s.split()) >= WINDOW_WORDS[0] and sum(ch.isalpha() for ch in s) > 0.6 * len(s)
        ]
        if not sentences:
            continue
        words = rng.choice(sentences).split()
        size = rng.randint(*WINDOW_WORDS)
        start = rng.randint(0, max(0, len(words) - size))
        window = words[start : start + size]
        text = " ".join(w for w in window if rng.random() >= DROP_SHARE)
        if len(analyze(text)) < MIN_QUERY_TERMS:
            continue
        kind = "words"
        if len(questions) % 2:
            lay = _layman(text, reverse)
            if lay is None:
                continue
            text, kind = lay, "lay"
        questions.append(
            {
                "id": f"syn-{len(questions)}",
                "question": text,
                "kind": kind,
                "gold": [
                    {"doc_id": chunk["doc_id"], "page": int(chunk["page_start"]), "evidence": " ".join(window)[:120]}
                ],
            }
        )
    return questions


def _round_robin(lists: Sequence[list]) -> list:
    """One item of each list in turn, until all are used: [a1, b1, c1, a2, b2, a3, ...]."""
    out = []
    for position in range(max((len(items) for items in lists), default=0)):
        out += [items[position] for items in lists if position < len(items)]
    return out


def candidate_groups(searcher, questions: Sequence[dict]) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[dict]]:
    """Per question: the learned stage's candidates' feature rows and which are relevant (questions whose
    candidates hold no relevant passage give no group, nor lay questions, whose fused order the search keeps), and
    per question its MRR before the learned stage."""
    from serving.ranking.fusion import candidate_features, learned_candidates
    from serving.ranking.search import CANDIDATES

    groups, before = [], []
    for q in questions:
        trace: list = []
        searcher.search(q["question"], k=CANDIDATES, learned=False, trace=trace)
        if not trace:
            continue
        fused, main, layer = trace[0]
        if main.signals.lay:  # the search keeps a lay question's fused order: nothing to learn from it
            continue
        items = [item for item, _, _ in fused]
        own = set(main.own)
        candidates = learned_candidates([i for i in items if i not in own], main.signals)
        relevant = np.array(
            [any(is_relevant(_as_hit(layer.chunks[i]), g) for g in q["gold"]) for i in candidates], dtype=bool
        )
        before.append(
            {
                "id": q["id"],
                "kind": q["kind"],
                "mrr": reciprocal_rank(
                    [
                        frozenset({0})
                        if any(is_relevant(_as_hit(layer.chunks[i]), g) for g in q["gold"])
                        else frozenset()
                        for i in items
                    ]
                ),
            }
        )
        if relevant.any() and not relevant.all():
            groups.append((candidate_features(candidates, items, main.signals, layer.chunks), relevant))
    return groups, before


def _as_hit(chunk: dict) -> dict:
    return {
        "doc_id": chunk["doc_id"],
        "page": chunk["page_start"],
        "page_end": chunk["page_end"],
        "text": chunk["text"],
    }


def mean_reciprocal_rank(searcher, questions: Sequence[dict], learned: bool) -> float:
    """MRR of the default search (with or without the learned stage) over ``questions``, top 20."""
    ranks = []
    for q in questions:
        hits = searcher.search(q["question"], k=20, learned=learned)
        ranks.append(
            reciprocal_rank(
                [frozenset({0}) if any(is_relevant(h, g) for g in q["gold"]) else frozenset() for h in hits]
            )
        )
    return round(sum(ranks) / max(len(ranks), 1), 4)


def main(argv: Sequence[str] | None = None) -> int:
    from serving.ranking.fusion import FEATURES, LEARNED_FUSION_FILE, LearnedFusion, train_listwise, train_pairwise
    from serving.ranking.search import Searcher

    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.learn_fusion", description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    # chosen on the dev set among 1e-3, 1e-2, 3e-2, 0.1 and 0.3 (over the whole sample corpus' bundle)
    parser.add_argument("--l2", type=float, default=0.1)
    parser.add_argument("--loss", choices=("listwise", "pairwise"), default="listwise")
    parser.add_argument("--out", type=Path, default=LEARNED_FUSION_FILE)
    parser.add_argument(
        "--force",
        action="store_true",
        help="write the model even when it does not beat the fused order on the questions kept out of training",
    )
    args = parser.parse_args(argv)

    searcher = Searcher.latest(args.bundles)
    excluded = HeldOutGold(question_files(), searcher.documents)
    questions = synthetic_questions(searcher.chunks, args.questions, args.seed, excluded)
    validation = questions[::VALIDATION_EVERY]
    training = [q for position, q in enumerate(questions) if position % VALIDATION_EVERY]
    groups, before = candidate_groups(searcher, training)
    train = train_listwise if args.loss == "listwise" else train_pairwise
    weights, fit = train(groups, l2=args.l2)
    searcher.learned_fusion = None
    validation_fused = mean_reciprocal_rank(searcher, validation, learned=False)
    model = LearnedFusion(weights, FEATURES)
    searcher.learned_fusion = model
    validation_learned = mean_reciprocal_rank(searcher, validation, learned=True)
    documents = {q["gold"][0]["doc_id"] for q in questions}
    sources = {}
    for q in questions:
        source = (searcher.documents.get(q["gold"][0]["doc_id"]) or {}).get("source", "")
        sources[source] = sources.get(source, 0) + 1
    model.provenance = {
        "trained_on": "synthetic questions from the bundle's own passages (retrieval_eval.learn_fusion): a sentence "
        "window with words dropped, half of them with legal terms replaced by lay wordings, drawn in "
        "turn from each source family; no passage that any question file (retrieval_eval/questions/*.jsonl) "
        "has as gold (page, provision, decision or notice) drawn, the blind files read only for that",
        "bundle": searcher.path.name,
        "bundle_created": searcher.manifest.get("created"),
        "bundle_counts": searcher.manifest.get("counts"),
        "questions": len(questions),
        "training_questions": len(training),
        "validation_questions": len(validation),
        "kinds": {kind: sum(1 for q in questions if q["kind"] == kind) for kind in ("words", "lay")},
        "sources": sources,
        "documents": len(documents),
        "groups": len(groups),
        "seed": args.seed,
        "loss": args.loss,
        "l2": args.l2,
        "fit": fit,
        "validation_mrr": {"fused": validation_fused, "learned": validation_learned},
        "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
    }
    better = validation_learned > validation_fused
    if better or args.force:
        model.save(args.out)
    print(
        json.dumps(
            {
                "weights": dict(zip(FEATURES, [round(float(w), 4) for w in weights])),
                **model.provenance,
                "train_mrr_before": round(sum(b["mrr"] for b in before) / max(len(before), 1), 4),
                "written": str(args.out) if better or args.force else None,
            },
            ensure_ascii=False,
            indent=1,
        )
    )
    if not better:
        print(
            "the learned stage does not beat the fused order on the validation questions"
            + ("" if args.force else ": not written"),
            file=sys.stderr,
        )
    return 0 if better or args.force else 1


if __name__ == "__main__":
    sys.exit(main())
