"""A code named by a shared name or abbreviation in a dated wording, or in a decision decided before the code took
effect, is the code in force at that date.

``obč. zák. ve znění od 01.08.1998``: the acts table gives ``obč. zák.`` to the civil code of 2012 (89/2012 Sb.), the
code a text means unless it says otherwise; a wording dated before that code took effect says otherwise, and names the
code it replaced (40/1964 Sb.). So does a decision of 2005 citing ``§ 134 obč. zák.``, for the forms both codes go
by. The pairs, dates and shared forms are data: ``mendel/data/successor_codes.v2.yaml``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

import yaml

from mendel.data import DATA_DIR
from mendel.law.acts_table import acts_by_citation, decline
from mendel.ner.dates import normalize_date

SUCCESSOR_CODES = DATA_DIR / "successor_codes.v2.yaml"

# "ve znění účinném do 31. 12. 2013", "ve znění od 01.08.1998", "v platném znění ke dni 1. 8. 1998",
# "(ve znění platném a účinném k 1. 1. 2010)"
EFFECT = r"(?:platn|účinn)(?:ém|ý)"
WORDING_RE = re.compile(
    rf"\s*,?\s*\(?\s*(?:ve\s+znění|v\s+(?:tehdy\s+)?{EFFECT}\s+znění)(?:\s+{EFFECT}(?:\s+a\s+{EFFECT})?)?"
    r"\s+(?:do|od|k|ke)(?:\s+dni)?\s+"
    r"(?P<date>\d{1,2}\.\s*(?:\d{1,2}\.|[^\W\d_]+)\s*\d{4})"
)


def form_key(written: str) -> str:
    """A written form compared with the shared ones: lower case, no spaces ("obč.zák." is "obč. zák.")."""
    return "".join(written.replace("\u2024", ".").split()).lower()


@dataclass(frozen=True)
class Succession:
    successor: str
    predecessor: str
    effective: dt.date
    shared: frozenset[str] = frozenset()  # form keys of the successor's forms that name the predecessor too
    abbreviated: frozenset[str] = frozenset()  # of those, the acts table's abbreviations (``obč. zák.``, ``tr. zák.``)

    def shares(self, written: str) -> bool:
        return form_key(written) in self.shared


@functools.cache
def successions() -> dict[str, Succession]:
    """The successor codes' table by the successor's citation."""
    table = yaml.safe_load(SUCCESSOR_CODES.read_text(encoding="utf-8"))
    found = {}
    for row in table["codes"]:
        effective = row["effective"]
        effective = effective if isinstance(effective, dt.date) else dt.date.fromisoformat(str(effective))
        shared = frozenset(form_key(form) for name in row.get("shared") or () for form in decline(name))
        act = acts_by_citation().get(row["successor"])
        short = set(act.abbreviations) | set(act.strict) if act else set()
        abbreviated = frozenset(form_key(form) for form in row.get("shared") or () if form in short)
        found[row["successor"]] = Succession(row["successor"], row["predecessor"], effective, shared, abbreviated)
    return found


def wording_date(text: str, end: int) -> dt.date | None:
    """The date of a wording written right after ``end`` ("ve znění účinném do 31. 12. 2013"), if any."""
    wording = WORDING_RE.match(text, end)
    iso = normalize_date(wording.group("date")) if wording else None
    return dt.date.fromisoformat(iso) if iso and len(iso) == 10 else None


def act_in_force(citation: str, text: str, end: int, decided: dt.date | None = None, written: str = "") -> str:
    """``citation``, or the code it replaced when the text dates the wording it cites (right after ``end``) before
    ``citation`` took effect, or when, with no wording dated, the text is a decision ``decided`` before then and
    names the act by a form both codes go by (``written``)."""
    succession = successions().get(citation)
    if succession is None:
        return citation
    date = wording_date(text, end)
    if date is None and decided is not None and succession.shares(written):
        date = decided
    return succession.predecessor if date is not None and date < succession.effective else citation
