"""Typed forms of a question set: each question also as people type it without a Czech keyboard, and in a hurry.

``with_ascii`` gives every question an ``ascii`` variant (its text with the diacritics folded away,
``mendel.czech.folding.fold``) unless it has one; ``with_typos`` a ``typo`` variant: the ascii text with one
slip in each of its two longest words, the kinds people make (a vowel i/y swapped, a letter left out, two
letters swapped, the word cut short), chosen by the question's id so every run makes the same ones.
:func:`retrieval_eval.retrieval.evaluate_forms` then scores the set as written and in those forms side by side.
The forms are derived, never written by a person: a file written here says so in each question's
``variants_derived``.

    python -m retrieval_eval.typed_forms retrieval_eval/questions/dev.jsonl OUT.jsonl [--typo]   # write the set
    python -m retrieval_eval.retrieval --questions retrieval_eval/questions/dev.jsonl --ascii [--typo]   # score
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Sequence

from mendel.czech.folding import fold

ASCII = "ascii"
TYPO = "typo"
SLIPPED_WORDS = 2
MIN_SLIPPED_LENGTH = 6  # shorter words keep their spelling: a slip there makes another word
_WORD = re.compile(r"[^\W\d_]+")


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


def slip(word: str, choice: int) -> str:
    """``word`` with one slip of kind ``choice`` (0-3): i/y swapped (else a letter left out), a letter left out,
    two letters swapped, the word cut to its first five letters."""
    kind = choice % 4
    middle = 1 + choice % max(1, len(word) - 2)
    if kind == 0:
        for i in range(middle, len(word)):
            if word[i] in "iy":
                return word[:i] + ("y" if word[i] == "i" else "i") + word[i + 1 :]
        kind = 1
    if kind == 1:
        return word[:middle] + word[middle + 1 :]
    if kind == 2:
        i = min(middle, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:5]


def typo_form(question_id: str, text: str) -> str:
    """The ascii text with a slip in each of its ``SLIPPED_WORDS`` longest words (ties: the first)."""
    typed = fold(text)
    words = sorted(
        (m for m in _WORD.finditer(typed) if len(m.group(0)) >= MIN_SLIPPED_LENGTH), key=lambda m: -len(m.group(0))
    )[:SLIPPED_WORDS]
    seed = int(hashlib.sha256(question_id.encode()).hexdigest()[:8], 16)
    for n, m in enumerate(sorted(words, key=lambda m: -m.start())):
        typed = typed[: m.start()] + slip(m.group(0), seed >> (4 * n)) + typed[m.end() :]
    return typed


def with_typos(questions: Sequence[dict]) -> list[dict]:
    """The questions, each with a ``typo`` variant (one it has already is kept), when a word of it is long enough
    to slip."""
    out = []
    for q in questions:
        variants = dict(q.get("variants") or {})
        hurried = typo_form(str(q["id"]), q["question"])
        if TYPO in variants or hurried == fold(q["question"]):
            out.append(q)
            continue
        variants[TYPO] = hurried
        derived = sorted(set(q.get("variants_derived") or []) | {TYPO})
        out.append({**q, "variants": variants, "variants_derived": derived})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.typed_forms", description=__doc__.split("\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--typo", action="store_true", help="also a typo form (derived slips)")
    args = parser.parse_args(argv)
    from retrieval_eval.retrieval import load_questions

    typed = with_ascii(load_questions(args.questions))
    if args.typo:
        typed = with_typos(typed)
    args.out.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in typed), encoding="utf-8")
    print(f"{len(typed)} questions with their typed forms -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
