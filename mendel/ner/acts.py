"""The recogniser's gazetteer of acts cited by name or abbreviation, read from the acts table
(``mendel/data/acts_by_name.v*.yaml`` through ``mendel.law.acts_table``: names declined into their cases, as data).

A name that starts lower-case also matches with a capital (sentence start); a proper name (Ústava, Listina,
``proper_names``) only as written. Abbreviations are case-sensitive whole tokens whose inner spaces are optional
(``o.s.ř.`` = ``o. s. ř.``); one that ends in a dot may be followed by anything (``o. s. ř.6. O lhůtě``), and one
of two or more dotted parts may lose its last dot (``o. s. ř, když``: then a whole token). Strict
abbreviations (``OZ``, ``ZP``, ``a. t.``) count only right after a provision or ``podle``/``dle``.

Every form of every act is one alternative of a single regular expression shaped as a trie (alternatives that share
a beginning share its pattern), so a position that starts no name is rejected after a character or two; what
matched is looked up in a table of forms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from mendel.law.acts_table import load_acts_table
from mendel.law.identifiers import eli_for_citation

# end of a name: no word character follows, or a footnote mark glued to it ("údajů2)")
NAME_END = r"(?:(?=[0-9]{1,3}\))|(?!\w))"
_DOT = "[.\u2024]"  # a one-dot leader stands for a dot in some PDF text layers


@dataclass(frozen=True)
class NamedAct:
    citation: str  # "89/2012 Sb." or an EU canonical citation
    eli: str | None
    kind: str = "zákon"
    names: tuple[str, ...] = ()  # case forms matched anywhere
    proper: tuple[str, ...] = ()  # case forms matched only as written
    abbreviations: tuple[str, ...] = ()  # distinctive, matched anywhere
    strict: tuple[str, ...] = ()  # ambiguous: only right after a provision or "podle/dle"


def _eu_eli(citation: str) -> str | None:
    m = re.fullmatch(r"nařízení \(EU\) (\d{4})/(\d+)", citation)
    return f"http://data.europa.eu/eli/reg/{m.group(1)}/{m.group(2)}/oj" if m else None


def _from_table() -> tuple[NamedAct, ...]:
    acts = []
    for act in load_acts_table():
        proper = tuple(form for form in act.forms if act.is_proper(form))
        acts.append(
            NamedAct(
                citation=act.citation,
                eli=eli_for_citation(act.citation) or _eu_eli(act.citation),
                kind=act.kind,
                names=tuple(form for form in act.forms if form not in proper),
                proper=proper,
                abbreviations=act.abbreviations,
                strict=act.strict,
            )
        )
    return tuple(acts)


NAMED_ACTS: tuple[NamedAct, ...] = _from_table()
_BY_CITATION = {act.citation: act for act in NAMED_ACTS}


def act_for_citation(citation: str) -> NamedAct | None:
    return _BY_CITATION.get(citation)


# --------------------------------------------------------------------------
# Forms as one trie-shaped pattern
# --------------------------------------------------------------------------


def _name_units(form: str, proper: bool) -> list[str]:
    units = []
    for i, char in enumerate(form):
        if char == " ":
            units.append(r"\s+")
        elif i == 0 and not proper and char.islower():
            units.append(f"[{char}{char.upper()}]")
        else:
            units.append(re.escape(char))
    return units + ([NAME_END] if form[-1].isalnum() else [])


def _abbreviation_units(abbreviation: str) -> list[str]:
    units = []
    for char in abbreviation:
        units.append(r"\s*" if char == " " else _DOT if char == "." else re.escape(char))
    return units + ([NAME_END] if abbreviation[-1].isalnum() else [])


def _without_last_dot(abbreviation: str) -> tuple[str, ...]:
    """``o. s. ř`` for ``o. s. ř.``: an abbreviation of two or more dotted parts typed without its last dot (then
    matched as a whole token only)."""
    return (abbreviation[:-1],) if abbreviation.endswith(".") and abbreviation.count(".") >= 2 else ()


def trie_pattern(alternatives: Iterable[list[str]]) -> str:
    """One pattern matching any of the unit sequences, the longer of two that share a beginning tried first."""
    root: dict = {}
    for units in alternatives:
        node = root
        for unit in units:
            node = node.setdefault(unit, {})
        node[""] = {}  # the end of an alternative

    def render(node: dict) -> str:
        branches = [unit + render(child) for unit, child in node.items() if unit]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:
            return f"(?:{body})?"
        return body if len(branches) == 1 else body

    return render(root)


def form_key(written: str) -> str:
    """The lookup key of a matched name: single spaces, a one-dot leader read as a dot."""
    return " ".join(written.replace("\u2024", ".").split())


def abbreviation_key(written: str) -> str:
    return "".join(written.replace("\u2024", ".").split())


@dataclass(frozen=True)
class GazetteerMatch:
    start: int
    end: int
    citation: str
    strict: bool


class Gazetteer:
    """Finds the forms of a set of acts in text: ``finditer`` everywhere, ``match_at`` at one position."""

    def __init__(self, acts: Iterable[NamedAct]):
        self._names: dict[str, str] = {}  # form (first letter lower-cased unless proper) -> citation
        self._abbreviations: dict[str, tuple[str, bool]] = {}
        alternatives: list[list[str]] = []
        for act in acts:
            for form in act.names:
                self._names.setdefault(_fold_first(form), act.citation)
                alternatives.append(_name_units(form, proper=False))
            for form in act.proper:
                self._names.setdefault(form, act.citation)
                alternatives.append(_name_units(form, proper=True))
            for written, strict in [(a, False) for a in act.abbreviations] + [(a, True) for a in act.strict]:
                for form in (written, *_without_last_dot(written)):
                    self._abbreviations.setdefault(abbreviation_key(form), (act.citation, strict))
                    alternatives.append(_abbreviation_units(form))
        pattern = trie_pattern(alternatives)
        self.empty = not alternatives
        self._at = re.compile(pattern) if alternatives else None
        first = sorted({units[0] for units in alternatives}, key=len)
        letters = "".join(sorted({c for unit in first for c in re.sub(r"[\[\]\\]", "", unit)}))
        self._anywhere = re.compile(rf"(?=[{re.escape(letters)}])(?<!\w)(?:{pattern})") if alternatives else None

    def _lookup(self, m: re.Match) -> GazetteerMatch | None:
        written = m.group()
        citation = self._names.get(form_key(written)) or self._names.get(_fold_first(form_key(written)))
        if citation is not None:
            return GazetteerMatch(m.start(), m.end(), citation, False)
        found = self._abbreviations.get(abbreviation_key(written))
        if found is not None:
            return GazetteerMatch(m.start(), m.end(), found[0], found[1])
        return None

    def finditer(self, text: str) -> Iterator[GazetteerMatch]:
        if self._anywhere is None:
            return
        for m in self._anywhere.finditer(text):
            found = self._lookup(m)
            if found is not None:
                yield found

    def match_at(self, text: str, pos: int, allow_strict: bool = True) -> GazetteerMatch | None:
        if self._at is None or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")):
            return None
        m = self._at.match(text, pos)
        found = self._lookup(m) if m else None
        if found is None or (found.strict and not allow_strict):
            return None
        return found


def _fold_first(form: str) -> str:
    return form[:1].lower() + form[1:]


@lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    """The gazetteer of the acts table, built once per process."""
    return Gazetteer(NAMED_ACTS)
