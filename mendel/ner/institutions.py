"""INSTITUTION: Czech and EU public authorities found in text, normalised to the nominative canonical name.

The names and their case forms come from the gazetteer (``mendel.ner.institution_names``) through the versioned
pattern file (``mendel.ner.patterns``). Annotation rules: ``ner_eval/GUIDELINES.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mendel.ner import patterns
from mendel.ner.institution_names import INSTITUTION, Gazetteer, Institution, decline, fold, load_gazetteer
from mendel.ner.spans import whole_surface_norm
from mendel.registers.gazetteer import kraj_genitives, place_names

__all__ = ["INSTITUTION", "decline", "fold", "load_gazetteer", "institution_candidates", "normalize_institution"]

# --------------------------------------------------------------------------
# Regexes
# --------------------------------------------------------------------------

UP = "A-ZÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ"
LOW = "a-záčďéěíňóřšťúůýž"
PLACE_WORD = rf"[{UP}][{LOW}]+"
SP = r"[ \t\u00a0]+"  # within a line
WS = r"\s+"


def _alt(items) -> str:
    return "|".join(WS.join(re.escape(part) for part in i.split()) for i in sorted(set(items), key=len, reverse=True))


def _complement_patterns(gaz: Gazetteer) -> dict[str, str]:
    names = [f for forms in gaz.municipalities.values() for f in forms]
    types = [v for forms in gaz.municipal_types.values() for f in forms for v in (f, f[:1].upper() + f[1:])]
    return {
        "seat": (
            rf"{WS}(?:ve?{WS}{PLACE_WORD}(?:{WS}(?:nad|pod){WS}{PLACE_WORD}|{SP}{PLACE_WORD})?|"
            rf"{PLACE_WORD}-(?:jih|sever|východ|západ|venkov|město))(?!\w)"
        ),
        "territory": (
            rf"{WS}pro{WS}(?:hlavní{WS}město{WS}Prahu|Prahu(?:{SP}[0-9]{{1,2}}(?!\d))?|"
            rf"[{UP}][{LOW}]+ý{WS}kraj|kraj{WS}Vysočina)(?!\w)"
        ),
        # any "…ého kraje" (a court decision's region of before 2000 too) and every current region's genitive
        "region": rf"{WS}(?:[{UP}][{LOW}]+ého{WS}kraje|{_alt(kraj_genitives())})(?!\w)",
        # "XY": the placeholder of anonymised court decisions ("Městského úřadu XY")
        "place": rf"{WS}(?:(?:ve?|{_alt(types)}){WS})?(?:{_alt(names)}|XY)(?!\w)",
        "eu": rf"{WS}(?:Evropské{WS}unie|EU)(?!\w)",
        "cr": rf"{WS}(?:[ČC]eské{WS}republiky|[ČC]R)(?!\w)",  # "CR": ASCII-folded text
        "parliament": rf"{WS}Parlamentu{WS}(?:České{WS}republiky|ČR)(?!\w)",
    }


def word_trie_pattern(words) -> str:
    """One regex alternation of ``words`` sharing their common prefixes ("Krajsk(?:ý|ého|…)"), which the regex
    engine rejects letter by letter instead of word by word; a longer word is tried before its prefix."""
    trie: dict = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


def _first_char(items) -> str:
    """A lookahead for the first characters of ``items``: most positions fail it before any alternative is tried."""
    return "(?=[" + "".join(sorted({re.escape(item[0]) for item in items})) + "])"


@dataclass(frozen=True)
class _Compiled:
    name_start_re: re.Pattern  # the first word of some name form: where ``name_re`` may match
    name_re: re.Pattern  # one group per institution, in gazetteer order
    complements: dict[str, re.Pattern]
    abbr_re: re.Pattern
    abbr_before_number_re: re.Pattern | None
    municipality_re: re.Pattern
    type_norm: dict[str, str]
    name_norm: dict[str, str]


def _forms_by_name() -> dict[str, list[str]]:
    """Name forms from the versioned pattern file (``data/patterns/institutions.v{N}.jsonl``), by canonical name."""
    forms: dict[str, list[str]] = {}
    for pattern in patterns.load_patterns():  # looked up on the module: the pattern file is the one source
        forms.setdefault(pattern["id"], []).append(pattern["pattern"])
    return forms


@lru_cache(maxsize=1)
def _compiled() -> _Compiled:
    gaz = load_gazetteer()
    forms = _forms_by_name()
    groups = "|".join(
        f"(?P<i{i}>{_alt(forms[inst.name])})" for i, inst in enumerate(gaz.institutions) if forms.get(inst.name)
    )
    name_re = re.compile(rf"(?<![\w.-])(?:{groups})(?!\w)")
    first_words = {form.split()[0] for names in forms.values() for form in names}
    assert all(re.fullmatch(r"\w+", word) for word in first_words), "a name form must start with a whole word"
    name_start_re = re.compile(rf"(?<![\w.-]){word_trie_pattern(first_words)}(?!\w)")
    complements = {k: re.compile(v) for k, v in _complement_patterns(gaz).items()}
    abbr_re = re.compile(rf"{_first_char(gaz.abbreviations)}(?<![\w.-])(?:{_alt(gaz.abbreviations)})(?![\w/-])")
    abbr_before_number_re = None
    if gaz.abbreviations_before_file_number:
        abbr_before_number_re = re.compile(
            rf"{_first_char(gaz.abbreviations_before_file_number)}(?<![\w.-])"
            rf"(?:{_alt(gaz.abbreviations_before_file_number)})(?=\s+[0-9]{{1,3}}\s*[A-Z][A-Za-zČŘ]{{0,4}}\s*[0-9])"
        )
    type_forms = {f: t for t, forms in gaz.municipal_types.items() for f in forms}
    type_forms.update({f[:1].upper() + f[1:]: t for f, t in list(type_forms.items())})
    name_forms = {f: n for n, forms in gaz.municipalities.items() for f in forms}
    municipality_re = re.compile(
        rf"{_first_char(type_forms)}(?<![\w.-])(?P<type>{_alt(type_forms)}){WS}(?P<name>{_alt(name_forms)})(?!\w)"
    )
    return _Compiled(
        name_start_re, name_re, complements, abbr_re, abbr_before_number_re, municipality_re, type_forms, name_forms
    )


def _name_matches(text: str):
    """``name_re.finditer(text)``, trying only where a name's first word stands (the same matches, far fewer tries)."""
    c = _compiled()
    last_end = 0
    for start in c.name_start_re.finditer(text):
        if start.start() < last_end:
            continue
        m = c.name_re.match(text, start.start())
        if m:
            last_end = m.end()
            yield m


# a municipality after these prepositions is a place, not an authority ("v obci Blešno", "do obce Útočiště")
PLACE_PREPOSITION_RE = re.compile(
    r"(?:^|[^\w])(?:[vV]e?|[nN]a|[dD]o|[zZ]e?|[uU]|[kK]e?|[pP]o|[pP]řes|[oO]de?|[mM]ezi|[nN]ad|[pP]od|[pP]ři|"
    r"[kK]olem|[oO]kolo|[mM]imo|území)\s+$"
)


# "726/2005 Sb. NSS": the court's collection of decisions, not the court
COLLECTION_BEFORE_RE = re.compile(r"Sb\.\s*$")
# "Sbírka nálezů a usnesení Ústavního soudu", "Přehled rozsudků ESLP č. 5/2004": collections, not authorities
COLLECTION_TITLE_BEFORE_RE = re.compile(r"(?:Sbír[kc]|Sbir[kc])\w*\s+(?:nálezů|nalezu)\s+a\s+(?:usnesení|usneseni)\s+$")
COLLECTION_NUMBER_AFTER_RE = re.compile(r"\s+[čc]\.\s*[0-9]+/[0-9]{4}(?![0-9])")
# "Okresní soud pro okres Harford": Czech courts are "v <seat>" or "pro Prahu N"; this is a foreign one
FOREIGN_COURT_AFTER_RE = re.compile(r"\s+pro\s+okres(?!\w)")


def institution_context_ok(text: str, start: int, end: int) -> bool:
    """False where a name found at start:end is part of a collection's title or names a foreign court."""
    if COLLECTION_BEFORE_RE.search(text, max(0, start - 8), start):
        return False
    if COLLECTION_TITLE_BEFORE_RE.search(text, max(0, start - 60), start):
        return False
    return not (COLLECTION_NUMBER_AFTER_RE.match(text, end) or FOREIGN_COURT_AFTER_RE.match(text, end))


@lru_cache(maxsize=1)
def _registered_res() -> tuple[re.Pattern, re.Pattern]:
    """What may stand before a municipality of the registers (mendel.registers.municipalities: every municipality, looked up
    word by word, not compiled into a pattern): after an office "[obce|města|v] ", or a municipal type."""
    c = _compiled()
    lead = re.compile(rf"{WS}(?:(?:ve?|{_alt(c.type_norm)}){WS})?")
    typed = re.compile(rf"{_first_char(c.type_norm)}(?<![\w.-])(?P<type>{_alt(c.type_norm)}){WS}")
    return lead, typed


ABBREVIATED_TAIL_RE = re.compile(rf"{SP}(?:n|p)\.{SP}?[{UP}]")


def _registered_place(text: str, pos: int) -> int | None:
    """The end of " [obce ]Nová Ves" after an office at ``pos``, for a municipality of the registers."""
    lead = _registered_res()[0].match(text, pos)
    if lead is None:
        return None
    bare = pos + len(text[pos : lead.end()]) - len(text[pos : lead.end()].lstrip())
    for at in dict.fromkeys((lead.end(), bare)):
        hit = place_names().match(text, at)
        if hit is not None:
            # "MěÚ Lipník n. B.": an abbreviated "nad/pod …" tail names another municipality than the words before it
            return None if ABBREVIATED_TAIL_RE.match(text, hit[0]) else hit[0]
    return None


def institution_candidates(text: str):
    """Yield (start, end, INSTITUTION, norm)."""
    c = _compiled()
    gaz = load_gazetteer()
    for m in _name_matches(text):
        inst = gaz.institutions[int(m.lastgroup[1:])]
        end, comp = m.end(), ""
        if inst.complement:
            cm = c.complements[inst.complement].match(text, end)
            if cm:
                end, comp = cm.end(), _canonical_region(inst, text[m.end() : cm.end()])
            elif inst.complement == "place" and (place_end := _registered_place(text, end)) is not None:
                end, comp = place_end, text[m.end() : place_end]
        if inst.required and not comp:
            continue
        if not institution_context_ok(text, m.start(), end):
            continue
        yield m.start(), end, INSTITUTION, inst.norm(comp)
    for m in c.abbr_re.finditer(text):
        if not institution_context_ok(text, m.start(), m.end()):
            continue
        norm, end = gaz.abbreviations[m.group()], m.end()
        inst = _by_norm().get(norm)
        if inst is not None and inst.complement in ("place", "region"):  # "ZO Blešno", "HZS Zlínského kraje"
            cm = c.complements[inst.complement].match(text, end)
            comp_end = cm.end() if cm else None
            if comp_end is None and inst.complement == "place":  # "MěÚ Hranice": a municipality of the registers
                comp_end = _registered_place(text, end)
            if comp_end is not None:
                norm, end = inst.norm(_canonical_region(inst, text[end:comp_end])), comp_end
            elif inst.required:
                continue
        yield m.start(), end, INSTITUTION, norm
    if c.abbr_before_number_re is not None:
        for m in c.abbr_before_number_re.finditer(text):
            yield m.start(), m.end(), INSTITUTION, gaz.abbreviations_before_file_number[m.group()]
    found = set()
    for m in c.municipality_re.finditer(text):
        if PLACE_PREPOSITION_RE.search(text, max(0, m.start() - 12), m.start()):
            continue
        # Forms match across line breaks ("hlavního\nměsta"); the tables are keyed by single-spaced forms.
        kind, name = (" ".join(m.group(g).split()) for g in ("type", "name"))
        found.add(m.start())
        yield m.start(), m.end(), INSTITUTION, f"{c.type_norm[kind]} {c.name_norm[name]}"
    for m in _registered_res()[1].finditer(text):  # the other municipalities of the registers
        hit = place_names().match(text, m.end())
        if hit is None or m.start() in found or PLACE_PREPOSITION_RE.search(text, max(0, m.start() - 12), m.start()):
            continue
        yield m.start(), hit[0], INSTITUTION, f"{c.type_norm[' '.join(m.group('type').split())]} {hit[1]}"


def _canonical_region(inst: Institution, complement: str) -> str:
    """A region as its full name writes it ("HZS hl. m. Prahy" → Hasičský záchranný sbor hlavního města Prahy)."""
    if inst.complement != "region":
        return complement
    return kraj_genitives().get(" ".join(complement.split()), complement)


@lru_cache(maxsize=1)
def _by_norm() -> dict[str, Institution]:
    return {inst.norm(): inst for inst in load_gazetteer().institutions}


def normalize_institution(surface: str) -> str | None:
    """Norm of an institution mention given alone ("Nejvyššího soudu" -> "Nejvyšší soud"), else None."""
    return whole_surface_norm(surface, institution_candidates)
