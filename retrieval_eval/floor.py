"""Calibrate the relevance floor (``serving/ranking/floor.json``) on the dev questions only: the pair of lexical and
dense thresholds that marks the most of the negative queries below weak while marking at most ``MAX_FALSE_WEAK``
of the dev questions the default search answers -- of each register apart (``lay``, ``expert``): a lay question
uses words the collection rarely writes, so its lexical signal runs lower, and a floor fitted to the expert
questions alone marked a third of the answered lay ones weak. With the dense threshold it also writes
``lexical_alone``, the lexical threshold chosen without it, for a bundle embedded with another model. The blind
and held-out sets are never read here.

    python -m retrieval_eval.floor [--bundles DIR] [--questions FILE ...] [--out serving/ranking/floor.json] [--dry-run]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from datetime import date
from pathlib import Path
from typing import Sequence

from retrieval_eval import DEV_QUESTIONS
from retrieval_eval.retrieval import answerable, judge, load_questions

MAX_FALSE_WEAK = 0.05
TOP_K = 10
# The dev sets a floor is calibrated on: the mixed dev set and the two sets of lay questions to the big codes.
CALIBRATION_SETS = (
    DEV_QUESTIONS,
    DEV_QUESTIONS.with_name("dev_codes.jsonl"),
    DEV_QUESTIONS.with_name("dev_codes2.jsonl"),
)
EXPERT = "expert"  # the register of a question that names none
CALIBRATION_NEGATIVES = (
    "qxwz blorft vrmpl",
    "asdf jkl qwerty uiop",
    "recept na svíčkovou se šlehačkou",
    "výsledky hokejové extraligy včera večer",
    "jak přesadit orchidej do většího květináče",
    "What is the capital of Australia?",
    "nejlepší pizza v centru Brna",
    "jak dlouho se vaří vajíčko natvrdo",
    "kolik stojí jízdenka vlakem z Prahy do Ostravy",
    "Jak dlouho trvá dědické řízení u notáře?",
    "Kolik je rodičovský příspěvek na druhé dítě?",
    "Jak se počítá daň z příjmů ze zaměstnání?",
    "Kdy se platí silniční daň za firemní auto?",
    "Jak podat žádost o občanský průkaz pro dítě?",
    "Co dělat při dopravní nehodě bez zranění?",
    "Kolik trestných bodů dostanu za překročení rychlosti?",
    "Musí mít pes ve městě náhubek?",
    "§ 2 zákona č. 361/2000 Sb.",
    "čl. 6 odst. 1 písm. f) GDPR",
    "jak vyplnit kontrolní hlášení k DPH za čtvrtletí",
    "Kdo platí opravu výtahu ve společenství vlastníků?",
    "Jaké jsou podmínky hypotéky pro mladé?",
)


def signals(searcher, query: str, gold: Sequence[dict] | None = None) -> dict:
    """The floor's signals for one query (and, with gold, whether the answer is in the top ``TOP_K``)."""
    answer = searcher.search_with_coverage(query, k=TOP_K)
    row = {"query": query, **answer.coverage["confidence"]}
    if gold is not None:
        row["answered"] = any(judge(answer.hits, gold)) if answer.hits else False
        if not answer.hits:  # nothing returned: the signals of the full ranking decide the calibration
            row["answered"] = any(judge(searcher.search(query, k=TOP_K), gold))
    return row


def weak(row: dict, lexical: float, dense: float | None) -> bool:
    dense_ok = dense is not None and row.get("dense") is not None and row["dense"] >= dense
    return not (row["lexical"] >= lexical or dense_ok)


def register_of(row: dict) -> str:
    return row.get("register") or EXPERT


def choose(positives: list[dict], negatives: list[dict], max_false_weak: float = MAX_FALSE_WEAK) -> dict:
    """The threshold pair (see the module docstring) and what it does on both samples: the most negatives caught
    with at most ``max_false_weak`` of the positives of each register marked weak."""
    lexical_values = sorted({0.0} | {r["lexical"] for r in positives + negatives})
    dense_values = sorted({r["dense"] for r in positives + negatives if r.get("dense") is not None})
    dense_options: list[float | None] = [None] + dense_values + ([dense_values[-1] + 1e-6] if dense_values else [])
    registers: dict[str, list[dict]] = {}
    for row in positives:
        registers.setdefault(register_of(row), []).append(row)
    best = None
    for lexical in lexical_values + [lexical_values[-1] + 1e-6]:
        for dense in dense_options:
            if any(
                sum(weak(r, lexical, dense) for r in rows) / len(rows) > max_false_weak for rows in registers.values()
            ):
                continue
            false_weak = sum(weak(r, lexical, dense) for r in positives)
            caught = sum(weak(r, lexical, dense) for r in negatives)
            key = (caught, -false_weak, -lexical, -(dense if dense is not None else -math.inf))
            if best is None or key > best[0]:
                best = (key, lexical, dense, false_weak, caught)
    _, lexical, dense, false_weak, caught = best
    return {
        "lexical": round(lexical, 6),
        "dense": None if dense is None else round(dense, 6),
        "positives": len(positives),
        "positives_weak": false_weak,
        "positives_weak_by_register": {
            register: [sum(weak(r, lexical, dense) for r in rows), len(rows)]
            for register, rows in sorted(registers.items())
        },
        "negatives": len(negatives),
        "negatives_weak": caught,
    }


def calibrate(
    searcher, questions_path: Path | Sequence[Path] = CALIBRATION_SETS, dense: bool = True, positives: str = "answered"
) -> dict:
    """Signals of the dev questions and the negatives on ``searcher``'s bundle, and the chosen floor.

    ``positives``: ``answered`` (the questions whose gold the default search finds in its top 10) or ``grounded``
    (every question whose gold the bundle holds: the lexical signal does not depend on the ranking). ``dense``:
    False calibrates the lexical threshold alone (a bundle embedded with a stand-in model, whose dense signal says
    nothing about the real one)."""
    questions_paths = [questions_path] if isinstance(questions_path, (str, Path)) else list(questions_path)
    for path in questions_paths:
        if Path(path).name.startswith(("blind", "heldout")):
            raise ValueError(
                "the floor is calibrated on the dev questions, never on the blind set or the held-out ones"
            )
    from retrieval_eval.retrieval import split_grounded

    searcher.floor = None  # signals only, no verdicts from an earlier floor
    rows = []
    grounded = 0
    for path in questions_paths:
        questions = [q for q in load_questions(Path(path)) if answerable(q)]
        questions, _ = split_grounded(questions, searcher.chunks, searcher.documents)
        grounded += len(questions)
        rows += [{**signals(searcher, q["question"], q["gold"]), "register": q.get("register")} for q in questions]
    negatives = [signals(searcher, query) for query in CALIBRATION_NEGATIVES]
    if not dense:
        for row in rows + negatives:
            row["dense"] = None
    kept = rows if positives == "grounded" else [r for r in rows if r["answered"]]
    chosen = choose(kept, negatives)
    # the lexical threshold for a bundle whose model is not this one: chosen as if there were no dense signal
    alone = choose([{**r, "dense": None} for r in kept], [{**r, "dense": None} for r in negatives])
    return {
        "lexical": chosen["lexical"],
        "dense": chosen["dense"],
        "lexical_alone": alone["lexical"],
        "model": searcher.manifest.get("model") if dense else None,
        "source": {
            "questions_files": [f"retrieval_eval/questions/{Path(path).name}" for path in questions_paths],
            "questions_sha256": [hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in questions_paths],
            "bundle": searcher.path.name,
            "calibrated": date.today().isoformat(),
            "max_false_weak": MAX_FALSE_WEAK,
            "max_false_weak_per": "register",
            "questions_grounded": grounded,
            "positives": positives,
            "questions_answered_top10": sum(r["answered"] for r in rows),
            "dense_calibrated": dense,
            "positives_used": len(kept),
            "positives_weak": chosen["positives_weak"],
            "positives_weak_by_register": chosen["positives_weak_by_register"],
            "negatives": chosen["negatives"],
            "negatives_weak": chosen["negatives_weak"],
            "lexical_alone_positives_weak": alone["positives_weak"],
            "lexical_alone_negatives_weak": alone["negatives_weak"],
            **(
                {}
                if dense
                else {
                    "note": "lexical threshold only: this bundle's vectors are not the "
                    "serving model's; the dense threshold waits for a calibration "
                    "on a bundle embedded with it"
                }
            ),
        },
        "rows": {"positives": kept, "negatives": negatives},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.floor", description=__doc__.split("\n")[0])
    parser.add_argument("--bundles", type=Path, default=None, help="bundles directory (default: settings)")
    parser.add_argument(
        "--questions",
        type=Path,
        nargs="+",
        default=list(CALIBRATION_SETS),
        help="dev question files (default: the dev sets)",
    )
    parser.add_argument("--out", type=Path, default=None, help="default: serving/ranking/floor.json")
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    parser.add_argument(
        "--lexical-only",
        action="store_true",
        help="calibrate the lexical threshold alone (a bundle embedded with a stand-in model)",
    )
    parser.add_argument("--positives", choices=("answered", "grounded"), default="answered")
    args = parser.parse_args(argv)
    bundles = args.bundles
    if bundles is None:
        from mendel.core.config import get_settings

        bundles = get_settings().bundles_dir
    from serving.ranking.coverage import FLOOR_FILE
    from serving.ranking.search import Searcher

    searcher = Searcher.latest(Path(bundles))
    if args.lexical_only:
        from mendel.index.embed import HashedBowEmbedder

        if searcher.manifest.get("model") == HashedBowEmbedder.name:
            searcher = Searcher.latest(Path(bundles), embedder=HashedBowEmbedder())
    result = calibrate(searcher, args.questions, dense=not args.lexical_only, positives=args.positives)
    rows = result.pop("rows")
    print(json.dumps(result, ensure_ascii=False, indent=1))
    for name, items in rows.items():
        print(
            f"{name}: "
            + ", ".join(
                f"{r['lexical']:.3f}/{r['dense'] if r['dense'] is None else round(r['dense'], 3)}" for r in items
            ),
            file=sys.stderr,
        )
    if not args.dry_run:
        (args.out or FLOOR_FILE).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
