"""Retyping counted: how many words of a question set's typed forms the query retyping turns back into the
question's own words, with the collection's word forms alone and with Czech's besides (``serving.query.typed``).

Each question is asked in its ``ascii`` and ``typo`` forms (``retrieval_eval.typed_forms``); a typed word counts as
right when the retyped word is the word the question writes there (case aside). Words retyped differently by the
two lexicons are listed, so a change can be read word by word.

    python -m retrieval_eval.retyping --bundles DIR retrieval_eval/questions/dev.jsonl [...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Sequence

from retrieval_eval.typed_forms import ASCII, TYPO, with_ascii, with_typos
from serving.query.typed import WORD_RE, Lexicon

FORMS = (ASCII, TYPO)


def retyped_words(lexicon: Lexicon, text: str) -> list[str]:
    """The words of ``text`` after retyping, one for each word typed."""
    words = {m.start(): m.group(0) for m in WORD_RE.finditer(text)}
    for start, _, replacement in lexicon.changes(text):
        words[start] = replacement
    return [words[start] for start in sorted(words)]


def compare(questions: Sequence[dict], lexicons: dict[str, Lexicon]) -> dict:
    """Per form: words typed, and for each lexicon the words it changed and those it made the question's own;
    ``differ``: (question id, form, typed, retyped by each lexicon, the question's word) where the lexicons part.
    A form whose words do not line up with the question's is counted in ``words`` but not judged right."""
    out: dict = {"forms": {}, "differ": []}
    for form in FORMS:
        counts = {
            "words": 0,
            "judged": 0,
            **{f"changed_{n}": 0 for n in lexicons},
            **{f"right_{n}": 0 for n in lexicons},
        }
        for question in questions:
            text = question.get("variants", {}).get(form)
            if not text:
                continue
            typed, own = WORD_RE.findall(text), WORD_RE.findall(question["question"])
            aligned = len(typed) == len(own)
            retyped = {name: retyped_words(lexicon, text) for name, lexicon in lexicons.items()}
            counts["words"] += len(typed)
            counts["judged"] += len(typed) if aligned else 0
            for name, words in retyped.items():
                counts[f"changed_{name}"] += sum(a != b for a, b in zip(typed, words))
                if aligned:
                    counts[f"right_{name}"] += sum(a.lower() == b.lower() for a, b in zip(words, own))
            for i, word in enumerate(typed):
                versions = [retyped[name][i] for name in lexicons]
                if len(set(versions)) > 1:
                    out["differ"].append([question["id"], form, word, *versions, own[i] if aligned else None])
        out["forms"][form] = counts
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrieval_eval.retyping", description=__doc__.split("\n")[0])
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--bundles", type=Path, default=None, help="bundles directory (default: settings)")
    args = parser.parse_args(argv)

    from mendel.czech.wordforms import czech_word_forms
    from serving.query.typed import maintained_words
    from serving.ranking.query_lists import LEXICON_CHUNKS
    from serving.ranking.search import Searcher

    bundles = args.bundles
    if bundles is None:
        from mendel.core.config import get_settings

        bundles = get_settings().bundles_dir
    searcher = Searcher.latest(Path(bundles))
    texts = list(searcher.lexicon_texts(LEXICON_CHUNKS))
    titles = [d.get("title") or "" for d in searcher.documents.values()]
    extra = maintained_words()
    lexicons = {
        "collection": Lexicon.from_texts(itertools.chain(texts, titles), extra=extra),
        "language": Lexicon.from_texts(itertools.chain(texts, titles), extra=extra, language=czech_word_forms()),
    }
    for path in args.questions:
        questions = with_typos(with_ascii([json.loads(line) for line in path.read_text().splitlines() if line]))
        result = compare(questions, lexicons)
        for form, counts in result["forms"].items():
            print(path.stem, form, json.dumps(counts))
        for row in result["differ"]:
            print("  ", *row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
