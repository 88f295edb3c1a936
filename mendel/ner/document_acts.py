"""What a document says about the acts it cites, learned as it is read and used where the names recur.

- **Defined abbreviations and names**: ``zákona č. 257/2016 Sb., o spotřebitelském úvěru (dále jen „ZSÚ“)``,
  ``vyhlášky č. 177/1996 Sb., advokátní tarif (dále též „a. t.“)``, ``(dále jen „zákon“)``: the term is bound to the
  act named last before the definition, in the same sentence.
- **Titles**: ``zákona č. 145/2010 Sb., o spotřebitelském úvěru``, ``zákona č. 168/1999 Sb., o … (zákon o pojištění
  odpovědnosti z provozu vozidla)``: the act's title and the short name in brackets after it, declined into their
  cases, name that act in this document, even where the acts table gives the name to another act.
- **The last act of each kind** (zákon, vyhláška, nařízení), for ``citovaného zákona`` and the like.

A binding holds from where it is made to the end of the document; of two bindings of a form the later one wins.
A document may come as several texts in order (the passages of a decision): give each the same ``DocumentActs``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from mendel.law.acts_table import HEAD_NOUNS, decline
from mendel.ner.acts import GazetteerMatch, abbreviation_key, form_key, gazetteer, trie_pattern
from mendel.ner.acts import _abbreviation_units as abbreviation_units
from mendel.ner.acts import _name_units as name_units
from mendel.ner.citations import ActMention
from mendel.ner.dated_wording import successions

QUOTE_OPEN = r"(?:[„\"“”]|,,)"
QUOTE_CLOSE = r"(?:[“”\"]|'')"
DEFINITION_RE = re.compile(
    rf"dál(?:e)?\s+(?:(?:též|také|i|jen|již|pouze|opět)\s+)*(?:jako\s+)?{QUOTE_OPEN}\s*"
    rf"(?P<term>[^„\"“”\n]{{1,60}}?)\s*{QUOTE_CLOSE}"
)
UNQUOTED_DEFINITION_RE = re.compile(
    r"dál(?:e)?\s+(?:též\s+)?jen\s+(?P<term>[^\s,;()„“\"]{2,12}(?:\s[^\s,;()„“\"]{1,6}){0,3}?)(?=\s*[,;)])"
)
SENTENCE_END_RE = re.compile(r"[.!?]\s+[A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]")
MAX_DEFINITION_DISTANCE = 250  # characters between the act and "(dále jen"
TITLE_STOP = r"(?:ve\s+znění|v\s+platném|v\s+účinném|v\s+tehdy|v\s+rozhodném|účinn|platn|dále|který|kterým|kterou)"
TITLE_AFTER_RE = re.compile(
    rf",?[ \t]*(?P<title>o[ \t]+(?!{TITLE_STOP})[^\W\d_]+(?:[ \t]+(?!{TITLE_STOP})[^\W\d_]+){{0,19}})"
    r"(?:[ \t,]*\((?P<short>[^()„“\"\n]{3,70})\))?"
)
TITLE_BEFORE_RE = re.compile(r"\s(?P<title>o\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,6})\s+(?:[čc]\.|číslo)")
AMENDING_TAIL_RE = re.compile(r"\s+a\s+o\s+změně\b.*$")
TYPE_NAMES = {"zákon": "zákon", "vyhláška": "vyhláška", "nařízení": "nařízení vlády"}


def is_abbreviation(term: str) -> bool:
    """``ZSÚ``, ``a. t.``, ``OdpVoz``, ``o.s.ř.``: written with dots or at least two capitals."""
    letters = term.replace(" ", "")
    return len(letters) <= 12 and ("." in letters or sum(c.isupper() for c in letters) >= 2)


AMENDED_BEFORE_RE = re.compile(r"(?:a\s+)?o\s+změně\s+(?:a\s+doplnění\s+)?(?:[^\W\d_]+\s+){0,6}$")


def _amended_in_title(text: str, act: ActMention) -> bool:
    """ "… a o změně zákona České národní rady č. 358/1992 Sb.": an act the title of another amends."""
    return AMENDED_BEFORE_RE.search(text, max(0, act.start - 80), act.start) is not None


@functools.lru_cache(maxsize=4096)
def _patterns(alternatives: tuple[tuple[str, ...], ...]) -> tuple[re.Pattern, re.Pattern]:
    """A term's forms as a pattern at a position and one anywhere (terms recur across documents: compiled once)."""
    pattern = trie_pattern(list(alternatives))
    return re.compile(pattern), re.compile(rf"(?<!\w)(?:{pattern})")


@functools.lru_cache(maxsize=4096)
def _name_term(name: str) -> tuple[tuple[str, ...], tuple[re.Pattern, re.Pattern], str]:
    """A name's lookup keys (its case forms), its patterns and the piece every form holds (names recur across
    documents: worked out once)."""
    forms = decline(name)
    keys = tuple(dict.fromkeys(form_key(f)[:1].lower() + form_key(f)[1:] for f in forms))
    patterns = _patterns(tuple(tuple(name_units(form, proper=False)) for form in forms))
    return keys, patterns, _common_prefix([form.lower() for form in forms]).split(" ")[0][:4]


def _common_prefix(forms: list[str]) -> str:
    first, last = min(forms), max(forms)
    size = next((i for i, (a, b) in enumerate(zip(first, last)) if a != b), min(len(first), len(last)))
    return first[:size]


def _table_act(term: str) -> str | None:
    """The act the acts table gives ``term`` (the whole of it), if any."""
    found = gazetteer().match_at(term, 0)
    return found.citation if found is not None and found.end == len(term) else None


def _has_head_noun(term: str) -> bool:
    return any(word.lower() in HEAD_NOUNS or word.lower() in ("předpis", "pravidla") for word in term.split())


@dataclass(frozen=True)
class Binding:
    position: int  # in the document
    citation: str
    standalone: bool  # also an act where it stands alone, not only after a provision


@dataclass
class DocumentActs:
    """The bindings and last acts of one document, carried from one of its texts to the next."""

    offset: int = 0  # where the current text starts in the document
    decided: dt.date | None = None  # a court decision's date: a code's shared form names the code in force then
    last_by_kind: dict[str, str] = field(default_factory=dict)
    _names: dict[str, list[Binding]] = field(default_factory=dict)
    _abbreviations: dict[str, list[Binding]] = field(default_factory=dict)
    _patterns: dict[str, tuple[re.Pattern, re.Pattern]] = field(default_factory=dict)  # per term: at, anywhere
    _needles: dict[str, str] = field(default_factory=dict)  # per term: a piece every form of it holds, lower-cased

    # --- learning -------------------------------------------------------------------------------------------

    def _bind_name(self, name: str, citation: str, position: int, standalone: bool) -> None:
        keys, patterns, needle = _name_term(name)
        for key in keys:
            self._names.setdefault(key, []).append(Binding(position, citation, standalone))
        self._patterns["n:" + name.lower()] = patterns
        self._needles["n:" + name.lower()] = needle

    def _bind_abbreviation(self, term: str, citation: str, position: int) -> None:
        self._abbreviations.setdefault(abbreviation_key(term), []).append(Binding(position, citation, True))
        key = "a:" + abbreviation_key(term)
        self._patterns[key] = _patterns((tuple(abbreviation_units(term)),))
        self._needles[key] = re.split(r"[.\s]", term)[0].lower()  # "o. s. ř." is written "o.s.ř." too

    def learn(self, text: str, acts: Iterable[ActMention]) -> None:
        """Bindings made in ``text`` (``acts``: its act mentions, any order)."""
        acts = sorted(acts, key=lambda a: a.start)
        for act in acts:
            if act.kind == "eu":
                continue
            self._learn_title(text, act)
        if "dál" in text:
            self._learn_definitions(text, acts)

    def _learn_title(self, text: str, act: ActMention) -> None:
        type_name = TYPE_NAMES.get(act.kind)
        if type_name is None:
            return
        titles = []
        before = TITLE_BEFORE_RE.search(text, act.start, act.end)
        if before:
            titles.append(before.group("title"))
        after = TITLE_AFTER_RE.match(text, act.end)
        if after:
            titles.append(after.group("title"))
            short = (after.group("short") or "").strip()
            if short and _has_head_noun(short) and len(short.split()) <= 10:
                self._bind_name(short, act.citation, self.offset + after.end(), standalone=len(short.split()) > 1)
        for title in titles:
            title = AMENDING_TAIL_RE.sub("", " ".join(title.split()))
            if len(title.split()) >= 2:
                self._bind_name(f"{type_name} {title}", act.citation, self.offset + act.end, standalone=True)

    def _learn_definitions(self, text: str, acts: list[ActMention]) -> None:
        found = [(m.start(), m.group("term").strip()) for m in DEFINITION_RE.finditer(text)]
        found += [
            (m.start(), m.group("term").strip())
            for m in UNQUOTED_DEFINITION_RE.finditer(text)
            if is_abbreviation(m.group("term"))
        ]
        for start, term in sorted(found):
            # the act named last before the definition, not one amended in its title ("… a o změně zákona č. …");
            # of a citation and the name in its apposition ("zákona č. 40/1964 Sb., občanský zákoník"), the citation
            before = [a for a in acts if a.end <= start and not _amended_in_title(text, a)]
            act = max(before, key=lambda a: (a.end, -a.start), default=None)
            if act is None or act.kind == "eu" and not is_abbreviation(term):
                continue
            between = text[act.end : start]
            sentence_end = SENTENCE_END_RE.search(text, act.end - 1, start)  # "… 1/2000 Sb. Žalobce …" too
            if len(between) > MAX_DEFINITION_DISTANCE or sentence_end or "dál" in between:
                continue
            table = _table_act(term)
            nearby = {a.citation for a in acts if start - 2 * MAX_DEFINITION_DISTANCE <= a.end <= start}
            # "… č. 89/2012 Sb. (dále jen „o.z.“), … č. 40/1964 Sb., … ve znění účinném do 31. 12. 2013 (dále jen
            # „obč. zák.“)": a name the code of 2012 took over stays with the code it replaced, named last
            replaced = (succession := successions().get(table)) is not None and succession.predecessor == act.citation
            if table in nearby and not replaced:
                citation = table  # "… zákon č. 99/1963 Sb., …, zákon č. 292/2013 Sb. …), dále „o. s. ř.“"
            else:
                citation = act.citation
            if is_abbreviation(term):
                self._bind_abbreviation(term, citation, self.offset + start)
            elif _has_head_noun(term) and len(term.split()) <= 10:
                self._bind_name(term, citation, self.offset + start, standalone=len(term.split()) > 1)

    def remember(self, text: str, acts: Iterable[ActMention]) -> None:
        """The end of a text: its last act of each kind stays known, and the next text starts after it."""
        for act in sorted(acts, key=lambda a: a.end):
            self.last_by_kind[act.kind] = act.citation
        self.offset += len(text) + 1

    def carried(self) -> list[ActMention]:
        """The last acts of earlier texts, as mentions before this text's start."""
        return [ActMention(-1, 0, citation, kind) for kind, citation in self.last_by_kind.items()]

    # --- matching -------------------------------------------------------------------------------------------

    @property
    def has_terms(self) -> bool:
        return bool(self._patterns)

    def _binding(self, written: str, at: int) -> Binding | None:
        key = form_key(written)
        bindings = self._names.get(key[:1].lower() + key[1:]) or self._abbreviations.get(abbreviation_key(written))
        position = self.offset + at
        return next((b for b in reversed(bindings or ()) if b.position <= position), None)

    def match_at(self, text: str, pos: int) -> GazetteerMatch | None:
        """The longest of the document's terms written at ``pos`` and bound there."""
        if not self._patterns or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")):
            return None
        best = None
        for at, _ in self._patterns.values():
            m = at.match(text, pos)
            if m and (best is None or m.end() > best.end) and (binding := self._binding(m.group(), pos)):
                best = GazetteerMatch(pos, m.end(), binding.citation, False)
        return best

    def standalone(self, text: str) -> Iterator[GazetteerMatch]:
        """Where the document's own abbreviations and multi-word names stand alone in ``text``."""
        folded = text.lower()
        for key, (_, anywhere) in self._patterns.items():
            if self._needles[key] not in folded:  # most texts hold none of the terms: a substring test skips them
                continue
            for m in anywhere.finditer(text):
                binding = self._binding(m.group(), m.start())
                if binding is not None and binding.standalone:
                    yield GazetteerMatch(m.start(), m.end(), binding.citation, False)
