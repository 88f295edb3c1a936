"""LAW_REF on law text marked by others: the dev split of UD Czech-CLTT (``gold/ud_czech_cltt/``).

CLTT joins each legal reference into one token with underscores (``§_24_odst._3_písm._a)_bodu_1``,
``vyhlášky_č._500/2002_Sb.``). The text is rebuilt from the tokens (``SpaceAfter=No`` respected, underscores read
as spaces); a joined token that holds ``§``, ``čl.`` or ``Sb.`` is a gold reference. CLTT draws its spans wider than
our guidelines (``§_28_zákona`` takes the bare word ``zákona``; letter lists ``a)_až_f)`` stand alone), so a
reference counts as found when a LAW_REF overlaps it: recall over the gold references, and the share of LAW_REF
mentions that overlap one.

    python -m ner_eval.cltt [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

CLTT_DEV = Path(__file__).resolve().parent / "gold" / "ud_czech_cltt" / "cs_cltt-ud-dev.conllu"
_REFERENCE = re.compile(r"§|[čČ]l\.|Sb\.")

# One text -> its LAW_REF spans.
LawSpans = Callable[[list[str]], list[list[tuple[int, int]]]]


@dataclass(frozen=True)
class Sentence:
    sent_id: str
    text: str
    references: tuple[tuple[int, int], ...]


def read_conllu(path: Path = CLTT_DEV) -> list[Sentence]:
    sentences, tokens, sent_id = [], [], ""

    def close():
        if not tokens:
            return
        text, spans = "", []
        for form, misc in tokens:
            start = len(text)
            text += form.replace("_", " ")
            if "_" in form and _REFERENCE.search(form):
                spans.append((start, len(text)))
            if "SpaceAfter=No" not in misc.split("|"):
                text += " "
        sentences.append(Sentence(sent_id, text.rstrip(), tuple(spans)))
        tokens.clear()

    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sent_id = line.split("=", 1)[1].strip()
        elif not line.strip():
            close()
        elif not line.startswith("#"):
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:  # multiword ranges and empty nodes add no surface
                continue
            tokens.append((cols[1], cols[9]))
    close()
    return sentences


def law_spans(texts: list[str]) -> list[list[tuple[int, int]]]:
    from mendel.ner import recognise

    return [[(e.start, e.end) for e in entities if e.label == "LAW_REF"] for entities in recognise(texts)]


@dataclass
class ClttScore:
    sentences: int = 0
    references: int = 0
    found: int = 0
    exact: int = 0  # found with the very span CLTT gives
    predicted: int = 0
    predicted_on_reference: int = 0
    missed: list[dict] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.references if self.references else 1.0

    @property
    def precision_share(self) -> float:
        return self.predicted_on_reference / self.predicted if self.predicted else 1.0

    def as_dict(self, examples: int = 10) -> dict:
        return {
            "sentences": self.sentences,
            "references": self.references,
            "found": self.found,
            "exact": self.exact,
            "recall": round(self.recall, 4),
            "predicted": self.predicted,
            "predicted_on_reference": self.predicted_on_reference,
            "precision_share": round(self.precision_share, 4),
            "missed": self.missed[:examples],
        }


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def score(sentences: Iterable[Sentence], spans: LawSpans | None = None) -> ClttScore:
    sentences = list(sentences)
    predicted = (spans or law_spans)([s.text for s in sentences])
    result = ClttScore(sentences=len(sentences))
    for sentence, found in zip(sentences, predicted):
        result.references += len(sentence.references)
        for gold in sentence.references:
            if any(_overlaps(gold, p) for p in found):
                result.found += 1
                result.exact += gold in found
            else:
                result.missed.append({"sentence": sentence.sent_id, "text": sentence.text[gold[0] : gold[1]]})
        result.predicted += len(found)
        result.predicted_on_reference += sum(any(_overlaps(p, g) for g in sentence.references) for p in found)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = score(read_conllu())
    if args.json:
        print(json.dumps(result.as_dict(), ensure_ascii=False, indent=1))
    else:
        print(
            f"CLTT dev: {result.sentences} sentences, {result.references} references;"
            f" LAW_REF recall {result.recall:.3f} ({result.found}, {result.exact} with CLTT's span), share on a reference {result.precision_share:.3f}"
            f" ({result.predicted_on_reference}/{result.predicted})"
        )
        for miss in result.missed:
            print(f"  missed {miss['text']!r} ({miss['sentence']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
