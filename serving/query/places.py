"""Municipalities a query names whose notice boards the collection holds: "svoz odpadu v Blešně", "obec Blešno",
and in a keyword search the bare name, "svoz odpadu Blešno", "uzavírka Kadaň".

The register's reading (``mendel.registers.places.find_places``) looks for a place after a preposition or "obec" /
"město" only: of the 6,258 municipalities many are words too ("Most", "Police", "Hranice"). Here a bare capitalised
name counts too, where it opens no sentence and the collection holds a board of that municipality; and what this
reading changes is only the order of the boards' own documents (``serving.ranking.place_rules``).
"""

from __future__ import annotations

import functools
import re

from mendel.czech.analyzer import analyze
from mendel.czech.declension import case_forms
from mendel.registers.gazetteer import place_names
from mendel.registers.places import find_places

_CAPITALISED_RE = re.compile(r"(?<!\w)[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]")
_SENTENCE_START_RE = re.compile(r"(?:^|[.?!])\s*$")  # what precedes a word that opens a sentence


def board_places_named(text: str, boards: frozenset[str]) -> list[str]:
    """The municipalities (nominative names, in order of first mention) ``text`` names, among ``boards`` (the names
    of the municipalities whose boards' documents the collection holds)."""
    if not boards:
        return []
    named = [mention.name for mention in find_places(text)]
    names = place_names()
    for start in _CAPITALISED_RE.finditer(text):
        if _SENTENCE_START_RE.search(text[: start.start()]):  # "Hranice pozemku …" may be the word capitalised
            continue
        matched = names.match(text, start.start())
        if matched is not None:
            named.append(matched[1])
    return [name for name in dict.fromkeys(named) if name in boards]


@functools.lru_cache(maxsize=1024)
def name_terms(name: str) -> frozenset[str]:
    """The analysed terms of every case form of a municipality's name ("Kadaň", "Kadani", "Přerově" …)."""
    return frozenset(term for form in case_forms(name) for term in analyze(form))
