"""Czech municipalities a text names, as people write them in a question: declined ("ve Slavičíně", "v Hradci
Králové", "z Kadaně") after a preposition or "obec/město". The names and their case forms are the municipal
register's (``mendel.registers.municipalities``: all 6,258 obce; every case form of each name,
``mendel.czech.declension``); :func:`mentioned_in` tells
whether a collection's analysed vocabulary (a bundle's BM25 terms) holds one of a name's forms.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mendel.czech.analyzer import analyze
from mendel.czech.declension import case_forms
from mendel.registers.gazetteer import place_names
from mendel.registers.municipalities import Municipality, register

# A place is looked for after these words only: a capitalised word elsewhere is as likely a sentence start.
_LEAD_RE = re.compile(
    r"(?<!\w)(?:v|ve|na|u|z|ze|do|k|ke|od|pro|po|obec|obce|obci|obcí|město|města|městě|městys|"
    r"městyse|městysi|mesto|mesta|meste|mestys|mestyse|mestysi|(?:úřední|uredni)\s+desk\w*)\s+"
    r"(?=[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ])"
)


@dataclass(frozen=True)
class PlaceMention:
    text: str
    start: int
    end: int
    name: str  # the nominative
    municipalities: tuple[Municipality, ...]  # every obec of that name (there are eight Hradiště)


@functools.lru_cache(maxsize=1)
def _by_name() -> dict[str, tuple[Municipality, ...]]:
    found: dict[str, list[Municipality]] = {}
    for municipality in register().municipalities:
        found.setdefault(municipality.name, []).append(municipality)
    return {name: tuple(items) for name, items in found.items()}


def find_places(text: str) -> list[PlaceMention]:
    """Municipalities named in ``text`` after a preposition or "obec/město" (the longest name form that fits)."""
    names = place_names()
    found = []
    for lead in _LEAD_RE.finditer(text):
        matched = names.match(text, lead.end())
        if matched is None:
            continue
        end, nominative = matched
        found.append(PlaceMention(text[lead.end() : end], lead.end(), end, nominative, _by_name().get(nominative, ())))
    return found


@functools.lru_cache(maxsize=8192)
def _form_terms(name: str) -> tuple[tuple[str, ...], ...]:
    return tuple(dict.fromkeys(tuple(analyze(form)) for form in case_forms(name) if analyze(form)))


def mentioned_in(name: str, vocabulary) -> bool:
    """Whether every analysed term of one of ``name``'s case forms is in ``vocabulary`` (a set of BM25 terms)."""
    return any(all(term in vocabulary for term in terms) for terms in _form_terms(name))
