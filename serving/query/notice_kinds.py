"""A keyword search for a kind of notice: "záměr prodeje pozemku", "uzavírka silnice", "rozpočtové opatření".

Such a search looks for what the notice boards post, not for what an act says: read as a plain question about the
law, the acts' own lists put the civil code's sale provisions above the municipality's intent to sell. The kinds and
the phrases naming them are data (``mendel/data/notice_kinds.yaml``); a question -- a question mark, or a question
word such as "kdo" or "můžu" -- stays a question whatever kind it names ("rozpočtové opatření obce, kdo ho
schvaluje" asks about the law).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from mendel.czech.folding import fold
from mendel.data import DATA_DIR
from serving.query.question_words import QUESTION_WORDS

NOTICE_KINDS_FILE = DATA_DIR / "notice_kinds.yaml"

# Besides the question words, what else asks anywhere in a keyword search: which, how many, may I, must I, is it
# allowed, do I need, do I have.
ASKING_WORDS = frozenset(
    "jakych kolika ktery ktera ktere kterou kterem kterym kterych muzu muze muzeme muzou mohu mohou musim musi "
    "musime smim smi smime lze potrebuji potrebuju mam mame maji".split()
)
# Over the folded query: a question mark, or a word that asks.
QUESTION_RE = re.compile(r"\?|\b(?:" + "|".join(sorted(QUESTION_WORDS | ASKING_WORDS)) + r")\b")


@dataclass(frozen=True)
class NoticeKind:
    id: str
    label: str
    patterns: tuple[re.Pattern, ...]
    asked: tuple[re.Pattern, ...] = ()  # phrasings naming the kind even in a question ("co je na úřední desce")

    def as_dict(self) -> dict:
        """What the coverage block and the analysis report of it."""
        return {"id": self.id, "label": self.label}


@lru_cache(maxsize=1)
def notice_kinds() -> tuple[NoticeKind, ...]:
    rows = yaml.safe_load(NOTICE_KINDS_FILE.read_text(encoding="utf-8"))
    return tuple(
        NoticeKind(
            row["id"],
            row["label"],
            tuple(re.compile(pattern) for pattern in row["patterns"]),
            tuple(re.compile(pattern) for pattern in row.get("asked", ())),
        )
        for row in rows
    )


def is_question(text: str) -> bool:
    """A question mark, or a word that asks ("kdo", "můžu" …): else a keyword search."""
    return is_folded_question(fold(text).lower())


def is_folded_question(folded: str) -> bool:
    """:func:`is_question` of a text already folded to lower-case ASCII."""
    return QUESTION_RE.search(folded) is not None


def notice_kind_searched(text: str) -> NoticeKind | None:
    """The kind of notice a keyword search ``text`` names (the first of the table's that it names), or None: for a
    search naming none, or for a question but one asking what a board posts (a kind's ``asked`` phrasings)."""
    folded = fold(text).lower()
    asking = is_folded_question(folded)
    for kind in notice_kinds():
        if any(pattern.search(folded) for pattern in (kind.asked if asking else kind.patterns)):
            return kind
    return None
