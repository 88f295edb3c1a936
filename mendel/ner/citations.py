"""Acts as texts cite them: Collection of Laws citations (``zákona č. 89/2012 Sb.``, ``z. č. 99/1963 Sb.``,
``vyhl. č. 177/1996 Sb.``, ``89/2012 sb.``), EU acts by number, and acts by name or abbreviation (the acts table
through ``acts.gazetteer``). Each ``*_mentions`` finder yields ``ActMention``s; ``rules`` turns them into LAW_REF
candidates and ``provisions`` reads the act that follows a provision chain with ``act_at``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

from mendel.law.acts_table import acts_by_citation, decline
from mendel.law.identifiers import act_citation, citation_mark
from mendel.ner.acts import act_for_citation, form_key, gazetteer
from mendel.ner.dated_wording import act_in_force

D = "[0-9]"

# Czech act types before "č. N/YYYY Sb.", each with the kind an anaphora ("citovaného zákona") refers to
ACT_TYPES = {
    "zákon": (
        r"(?:[uUúÚ]stavní(?:ho|m|mu)?\s+)?[zZ]ákon(?:a|u|em|ě|y|ů)?",
        r"[zZ]ákonn(?:é|ého|ým)\s+opatření(?:m)?(?:\s+[sS]enátu)?",
        r"[zZ]ák\.",
        rf"[zZ]\.(?=\s*(?:č\.|č\s*{D}|číslo))",  # "z. č. 99/1963 Sb.", the court system's own lists write so
    ),
    "vyhláška": (r"[vV]yhlášk(?:a|y|u|ou|ami|ách)|[vV]yhlášce", r"[vV]yhl\."),
    "nařízení": (
        r"[nN]ařízení(?:m)?(?:\s+vlády)?",
        r"[vV]ládní(?:ho|m)?\s+nařízení(?:m)?",
        r"NV(?=\s*(?:č\.|číslo))",
        r"[nN]ař\.\s*vl\.",
    ),
    "sdělení": (r"[sS]dělení(?:m)?",),
    "akt": (r"[aA]kt(?:u|em)?",),  # e-Sbírka page header "Akt č. 90 / 2024 Sb."
}
ACT_TYPE = "(?:" + "|".join(f"(?P<{kind}>{'|'.join(p)})" for kind, p in ACT_TYPES.items()) + ")"
ACT_ISSUER = (
    r"(?:\s+(?:České\s+národní\s+rady|Federálního\s+shromáždění|vlády|"
    r"Ministerstva(?:\s+[^\W\d_]+){1,4}?|[A-ZČŘŠŽ]{2,5}[a-z]?)"
    # an issuer the open data's anonymiser took for a party: "vyhlášky , právnická osoba, č. 69/2024 Sb."
    r"|\s*,\s*(?:právnická\s+osoba|Anonymizováno)\s*,(?=\s*(?:č\.|číslo)))?"
)  # ČNR, MZe, "Ministerstva dopravy a spojů"
ACT_TITLE = r"(?:\s+o\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,6})?"
# "č.", "číslo"; as typed too: "č. č. 89/2012 Sb." (doubled), "zák.č 91/2012 Sb." (the dot left out)
NUMBER_MARK = rf"(?:[čc]\.(?:\s*č\.)?|č(?=\s*{D})|číslo)"
SB_NUMBER = (
    rf"(?P<num>{D}{{1,4}})\s*/\s*(?:/\s*)?(?P<year>{D}{{4}}|{D}{{2}})(?!{D})\s*(?:,\s*)?"
    r"(?P<coll>Sb\.\s*m\.\s*s\.|Sb\.\s*z\.\s*a\s*n\.|Sbírky(?!\s+(?:rozh|soudních|nálezů))|[sS]b(?:\.|(?![\w.])))"
    r"(?!\s*(?:rozh|n\.\s*u|NSS|ÚS))"
)
CZ_ACT_RE = re.compile(rf"(?<![\w/])(?:{ACT_TYPE}{ACT_ISSUER}{ACT_TITLE}\s*)?(?:{NUMBER_MARK}\s*)?{SB_NUMBER}")
# "zákona č. 321/2001 o spotřebitelském úvěru": a law by number and four-digit year, the collection left out
LAW_WITHOUT_MARK_RE = re.compile(
    rf"(?<![\w/])(?P<zákon>[zZ]ákon(?:a|u|em|ě)?|[zZ]ák\.|[zZ]\.)\s*{NUMBER_MARK}\s*"
    rf"(?P<num>{D}{{1,4}})\s*/\s*(?P<year>(?:19|20){D}{{2}})(?![\w/])(?!\s*[-–]\s*{D})"
)
NOT_AN_ACT_BEFORE_RE = re.compile(r"(?:částk[ayuěo]|částce)\s*(?:č\.\s*)?$")

# EU acts
EU_TYPES = {
    "nařízení": r"(?:[pP]rováděcí(?:ho|m)?\s+)?[nN]ařízení(?:m)?",
    "směrnice": r"[sS]měrnic(?:e|i|í|emi|ích)?",
    "rozhodnutí": r"(?:[rR]ámcové(?:ho|m)?\s+)?[rR]ozhodnutí(?:m)?",
}
EU_NS = r"EU|ES|EHS|Euratom"
EU_ISSUER = (
    r"(?:\s+(?:Evrop(?:-\s*)?ského\s+parlamentu\s+a\s+Rady|Rady|Komise))?"  # "Evrop-\nského": PDF hyphenation
    r"(?:\s+v\s+přenesené\s+pravomoci)?"
)
EU_PAREN_NUM = rf"\((?P<ns>{EU_NS})\)\s*(?:č\.\s*)?(?P<pnum>{D}{{1,4}}/{D}{{1,4}})(?![\w/])"
EU_SUFFIX_NUM = rf"(?P<snum>{D}{{2,4}}/{D}{{1,4}}/(?:{EU_NS}))(?!\w)"
EU_ACT_RES = {
    kind: re.compile(rf"(?<!\w)(?:{pat}){EU_ISSUER}\s+(?:{EU_PAREN_NUM}|{EU_SUFFIX_NUM})")
    for kind, pat in EU_TYPES.items()
}
EU_BARE_RE = re.compile(rf"(?<![\w/]){EU_SUFFIX_NUM}")
EU_NAMESPACE_RE = re.compile(EU_NS)  # every EU number names its namespace: texts without one are skipped

STRICT_CONTEXT_RE = re.compile(r"(?:podle|dle|ve\s+smyslu|viz)\s+$")
DEFINITION_BEFORE_RE = re.compile(r"dál(?:e)?\s+(?:též\s+|také\s+|i\s+|opět\s+)?(?:jen\s+)?(?:[„\"“]|,,)\s*$")
BIBLIOGRAPHY_AFTER_RE = re.compile(r"\s*(?:[IVX]{1,4}\b)?\s*[.,]\s*(?:[0-9]+\.\s*)?vydání")
GAZ_CITATION_TAIL_RE = re.compile(rf"\s+(?:{NUMBER_MARK}\s*)?{SB_NUMBER}")
GAZ_EU_TAIL_RE = re.compile(
    rf"\s+\(?(?:{EU_NS})\)?\s*(?:č\.\s*)?{D}{{1,4}}/{D}{{1,4}}(?![\w/])"
)  # "Obecného nařízení EU č. 2016/679"
TYPE_WORD_AT_END_RE = re.compile(r"(?<!\w)(?:[zZ]ákon(?:a|u|em|ě)?|[vV]yhlášk\w*|[vV]yhlášce|[nN]ařízení\w*)$")
WHITESPACE_RE = re.compile(r"\s+")
OPEN_PAREN_RE = re.compile(r"\(\s*")
CLOSE_PAREN_RE = re.compile(r"\s*\)")
APPOSITIVE_RE = re.compile(r",\s*")


@dataclass(frozen=True)
class ActMention:
    """An act a text names: its span (an appositive short name included), citation and kind (``zákon``,
    ``vyhláška``, ``nařízení`` …, for anaphora)."""

    start: int
    end: int
    citation: str
    kind: str = "zákon"


def _mark(written: str) -> str:
    """``Sb``, ``sb.``, ``Sbírky`` -> ``Sb.``; the other collections as ``citation_mark`` spells them."""
    mark = citation_mark(written)
    return "Sb." if mark.lower() in ("sb", "sb.", "sbírky") else mark


def _kind(m: re.Match) -> str:
    return next((kind for kind in ACT_TYPES if m.groupdict().get(kind)), "zákon")


def _named_kind(citation: str) -> str:
    act = act_for_citation(citation)
    if act is None:
        return "zákon"
    return "nařízení" if act.kind.startswith("nařízení") else act.kind


def cz_act_at(text: str, pos: int, anchored: bool) -> ActMention | None:
    """A Collection of Laws citation at (``anchored``) or after ``pos``, with its appositive short name."""
    m = CZ_ACT_RE.match(text, pos) if anchored else CZ_ACT_RE.search(text, pos)
    bare = LAW_WITHOUT_MARK_RE.match(text, pos) if anchored else LAW_WITHOUT_MARK_RE.search(text, pos)
    if bare and (m is None or bare.start() < m.start()) and not CZ_ACT_RE.match(text, bare.start()):
        m = bare
    return _mention(text, m) if m else None


def _mention(text: str, m: re.Match) -> ActMention:
    mark = _mark(m.group("coll")) if "coll" in m.groupdict() else "Sb."
    citation = act_citation(m.group("num"), m.group("year"), mark)
    end = m.end()
    appositive = APPOSITIVE_RE.match(text, end)
    if appositive:  # "zákon č. 89/2012 Sb., občanský zákoník"; "zákon č. 40/1964 Sb., občanský zákoník"
        named = gazetteer().match_at(text, appositive.end(), allow_strict=False)
        if named and (named.citation == citation or _own_name(citation, text[named.start : named.end])):
            end = named.end
    return ActMention(m.start(), end, citation, _kind(m))


@functools.lru_cache(maxsize=4096)
def _own_name(citation: str, written: str) -> str | None:
    """The nominative of ``written`` among the acts table's names and title of ``citation`` (``občanského zákoníku``
    after 40/1964 Sb. -> ``občanský zákoník``), if it is one."""
    act = acts_by_citation().get(citation)
    key = form_key(written).lower()
    for name in (act.title, *act.names) if act else ():
        if key in (form.lower() for form in decline(name)):
            return name
    return None


def eu_norm(kind: str, m: re.Match) -> str:
    if m.group("pnum"):
        return f"{kind} ({m.group('ns')}) {m.group('pnum')}"
    return f"{kind} {m.group('snum')}"


def eu_act_at(text: str, pos: int) -> ActMention | None:
    best = None
    for kind, regex in EU_ACT_RES.items():
        m = regex.match(text, pos)
        if m and (best is None or m.end() > best.end):
            best = ActMention(pos, m.end(), eu_norm(kind, m), "eu")
    return best


def named_tail(text: str, start: int, end: int, citation: str, decided: dt.date | None = None) -> ActMention:
    """A name followed by its number ("obchodním zákoníkem č. 513/1991 Sb.") is one mention, of that number; one
    followed by a wording dated before the act took effect, or a form both codes go by in a decision ``decided``
    before then, names the act it replaced (``dated_wording``)."""
    tail = GAZ_CITATION_TAIL_RE.match(text, end)
    if tail:
        # "atomový zákon č. 18/97 Sb.": the citation starts at the act type, the adjective stays outside
        typed = TYPE_WORD_AT_END_RE.search(text, start, end)
        start = typed.start() if typed and typed.start() > start else start
        return ActMention(start, tail.end(), act_citation(tail.group("num"), tail.group("year")), _named_kind(citation))
    if not citation.endswith("Sb.") and (eu_tail := GAZ_EU_TAIL_RE.match(text, end)):
        return ActMention(start, eu_tail.end(), citation, "eu")
    # "obč. zák. ve znění od 01.08.1998": the code in force then (the wording stays out of the span)
    citation = act_in_force(citation, text, end, decided, text[start:end])
    return ActMention(start, end, citation, _named_kind(citation))


def act_at(text: str, pos: int, learned=None) -> ActMention | None:
    """The act named right at ``pos`` (a provision chain's act): a citation, an EU act, a name or abbreviation of
    the table or one the document defined (``learned``: ``document_acts.DocumentActs``), or a name in parentheses
    ("§ 95 (o. s. ř.)")."""
    cz = cz_act_at(text, pos, anchored=True)
    if cz:
        return cz
    eu = eu_act_at(text, pos)
    if eu:
        return eu
    table = gazetteer().match_at(text, pos, allow_strict=True)
    own = learned.match_at(text, pos) if learned is not None else None
    if own is not None and (table is None or own.end >= table.end):
        return named_tail(text, pos, own.end, own.citation)
    if table:
        return named_tail(text, pos, table.end, table.citation, getattr(learned, "decided", None))
    if text.startswith("(", pos):
        inner = OPEN_PAREN_RE.match(text, pos).end()
        named = gazetteer().match_at(text, inner, allow_strict=False)
        if named:
            close = CLOSE_PAREN_RE.match(text, named.end)
            if close:
                return ActMention(pos, close.end(), named.citation, _named_kind(named.citation))
    return None


def czech_act_mentions(text: str):
    """Collection of Laws citations ("zákona č. 89/2012 Sb."), and laws by number alone ("zákona č. 321/2001")."""
    if "/" not in text:
        return
    found = [_mention(text, m) for m in CZ_ACT_RE.finditer(text)]
    if "č" in text:
        taken = [(a.start, a.end) for a in found]
        for m in LAW_WITHOUT_MARK_RE.finditer(text):
            if not any(s < m.end() and m.start() < e for s, e in taken):
                found.append(_mention(text, m))
        found.sort(key=lambda a: a.start)
    last_end = -1
    for act in found:
        if act.start >= last_end and not NOT_AN_ACT_BEFORE_RE.search(text, max(0, act.start - 12), act.start):
            yield act
        last_end = max(last_end, act.end)


def eu_act_mentions(text: str):
    """EU acts by number ("nařízení (EU) 2016/679", "směrnice 2013/34/EU")."""
    if "/" not in text or not EU_NAMESPACE_RE.search(text):
        return
    for kind, regex in EU_ACT_RES.items():
        for m in regex.finditer(text):
            yield ActMention(m.start(), m.end(), eu_norm(kind, m), "eu")
    for m in EU_BARE_RE.finditer(text):
        yield ActMention(m.start(), m.end(), m.group("snum"), "eu")


def _title_of_same_act(text: str, start: int, citation: str) -> bool:
    """ "zákon č. 141/1961 Sb., o trestním řízení soudním (trestní řád)": the name is part of the title."""
    before = text[max(0, start - 400) : start]
    if not before.rstrip().endswith(("(", "/")):
        return False
    number = citation.split(" Sb.")[0].split(") ")[-1]
    pattern = r"(?<![0-9])" + r"\s*/\s*".join(re.escape(part) for part in number.split("/"))
    return re.search(pattern, before) is not None


def named_act_mentions(text: str, learned=None, table_matches=None, decided: dt.date | None = None):
    """Acts cited by name or abbreviation ("občanského zákoníku", "o. s. ř."): the acts table's (``table_matches``
    when the caller has them; in a decision ``decided`` on a date, a code's shared form names the code in force
    then), and the ones the document defined for itself (``learned``) where they stand alone."""
    found = list(gazetteer().finditer(text)) if table_matches is None else list(table_matches)
    taken: set[tuple[int, int]] = set()
    if learned is not None:
        own = list(learned.standalone(text))
        taken = {(m.start, m.end) for m in own}
        found = own + [m for m in found if (m.start, m.end) not in taken]
    for match in found:
        start, end = match.start, match.end
        if match.strict and not STRICT_CONTEXT_RE.search(text, max(0, start - 15), start):
            continue
        if DEFINITION_BEFORE_RE.search(text, max(0, start - 30), start):
            continue
        if _title_of_same_act(text, start, match.citation):
            continue
        if BIBLIOGRAPHY_AFTER_RE.match(text, end):
            continue
        yield named_tail(text, start, end, match.citation, None if (start, end) in taken else decided)
