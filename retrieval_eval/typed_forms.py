"""Typed forms of a question set: each question also as people type it without a Czech keyboard.

``with_ascii`` gives every question an ``ascii`` variant (its text with the diacritics folded away,
``mendel.czech.analyzer.fold``) unless it has one; :func:`retrieval_eval.retrieval.evaluate_forms` then scores
the set as written and in that form side by side. The forms are derived, never written by a person: a file
written here says so in each question's ``variants_derived``.

    python -m retrieval_eval.typed_forms retrieval_eval/questions/dev.jsonl OUT.jsonl   # write the set with them
    python -m retrieval_eval.retrieval --questions retrieval_eval/questions/dev.jsonl --ascii   # score both ways
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from mendel.czech.analyzer import fold

ASCII = "ascii"


def ascii_form(text: str) -> str:
    """``text`` as typed without diacritics."""
    return fold(text)


def with_ascii(questions: Sequence[dict]) -> list[dict]:
    """The questions, each with an ``ascii`` variant (one it has already is kept: a person's typing wins)."""
    out = []
    for q in questions:
        variants = dict(q.get("variants") or {})
        if ASCII in variants:
            out.append(q)
            continue
        variants[ASCII] = ascii_form(q["question"])
        derived = sorted(set(q.get("variants_derived") or []) | {ASCII})
        out.append({**q, "variants": variants, "variants_derived": derived})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.typed_forms", description=__doc__.split("\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    from retrieval_eval.retrieval import load_questions

    typed = with_ascii(load_questions(args.questions))
    args.out.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in typed), encoding="utf-8")
    print(f"{len(typed)} questions with an ascii form -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
