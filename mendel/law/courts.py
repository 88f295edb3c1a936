"""Czech courts by level, told from the court's own name as decisions and open data write it.

The court system has five levels: Ústavní soud; the two supreme courts (Nejvyšší soud, Nejvyšší správní soud); the
two high courts (vrchní soudy); the regional courts (krajské soudy and Městský soud v Praze, with their branches,
"pobočka"); the district courts (okresní soudy, the Prague district courts "Obvodní soud pro Prahu N" and Městský
soud v Brně, which is Brno's district court). A name none of these forms fits is an unknown court: a record naming
one is not filed under any level (the open-data crawl quarantines it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONSTITUTIONAL, SUPREME, HIGH, REGIONAL, DISTRICT = "constitutional", "supreme", "high", "regional", "district"
LEVELS = (CONSTITUTIONAL, SUPREME, HIGH, REGIONAL, DISTRICT)  # highest first
LEVEL_LABELS = {
    CONSTITUTIONAL: "Ústavní soud",
    SUPREME: "nejvyšší soudy",
    HIGH: "vrchní soudy",
    REGIONAL: "krajské soudy",
    DISTRICT: "okresní soudy",
}
_PLACE = r"[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ][\w.-]*(?:\s+(?:nad|pod|u|v|ve|na)?\s*[\w.-]+)*"
_BRANCH = rf"(?:\s*[,-]\s*pobočka(?: v| ve)? {_PLACE})?"
_FORMS = (
    (CONSTITUTIONAL, re.compile(r"Ústavní soud(?: České republiky)?")),
    (SUPREME, re.compile(r"Nejvyšší (?:správní )?soud(?: České republiky)?")),
    (HIGH, re.compile(r"Vrchní soud v (?:Praze|Olomouci)")),
    (REGIONAL, re.compile(rf"(?:Krajský soud v {_PLACE}{_BRANCH}|Městský soud v Praze)")),
    (
        DISTRICT,
        re.compile(
            rf"(?:Okresní soud (?:v |ve )?{_PLACE}{_BRANCH}|Obvodní soud pro Prahu \d{{1,2}}|Městský soud v Brně)"
        ),
    ),
)


@dataclass(frozen=True)
class Court:
    name: str  # as the source writes it, spaces collapsed
    level: str

    @property
    def level_label(self) -> str:
        return LEVEL_LABELS[self.level]


def court_named(name: str | None) -> Court | None:
    """The court a name denotes, with its level; None for a name that is no Czech court's."""
    text = re.sub(r"\s+", " ", name or "").strip()
    for level, form in _FORMS:
        if form.fullmatch(text):
            return Court(text, level)
    return None


def level_rank(level: str | None) -> int:
    """Highest court first; an unknown level last."""
    return LEVELS.index(level) if level in LEVELS else len(LEVELS)
