"""Rules for references in Czech legal text: LAW_REF and DECISION_REF, and how entities are chosen.

Patterns are assembled from small tables (provision markers, sub-units, act types, court
registers, the named-act gazetteer in ``acts.py``). Each ``*_candidates`` finder yields every
match as ``(start, end, label, norm)``; ``resolve`` keeps the non-overlapping ones. The finders
run as components of the spaCy pipeline (``mendel.ner.component``), next to the DATE, MONEY and
INSTITUTION finders of ``dates.py``, ``money.py`` and ``institutions.py``; callers use
``mendel.ner.recognise``. Annotation rules are in ``ner_eval/GUIDELINES.md``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from mendel.law.identifiers import (
    CONSTITUTIONAL,
    CONSTITUTIONAL_SENATES,
    ECLI_PATTERN,
    PLENARY_OPINION,
    FileNumber,
    act_citation,
    citation_mark,
    eli_for_citation,
)
from mendel.ner.acts import NAMED_ACTS, NamedAct
from mendel.ner.dates import DATE
from mendel.ner.institutions import INSTITUTION
from mendel.ner.money import MONEY

LAW_REF = "LAW_REF"
DECISION_REF = "DECISION_REF"
LABELS = (LAW_REF, DECISION_REF, DATE, MONEY, INSTITUTION)


@dataclass(frozen=True)
class Entity:
    start: int
    end: int
    label: str
    text: str
    norm: str | None

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------
# Collection of Laws citations: "89/2012 Sb.", ELI
# --------------------------------------------------------------------------


def eli_for(citation: str) -> str | None:
    """``"89/2012 Sb."`` (optionally followed by a provision path) -> ``"/eli/cz/sb/2012/89"``."""
    if not isinstance(citation, str):
        return None
    # EU acts known to the gazetteer: "nařízení (EU) 2016/679 čl. 6"
    return eli_for_citation(citation) or next(
        (a.eli for a in NAMED_ACTS if a.eli and citation.strip().startswith(a.citation)), None
    )


# --------------------------------------------------------------------------
# Pattern tables
# --------------------------------------------------------------------------

D = "[0-9]"
ORDINAL = r"(?:prvn|druh|třet|čtvrt|pát|šest|sedm|posledn)\w*"

# provision markers by their normalised form
UNIT_MARKERS = {
    "§": r"§§?|par\.",
    "čl.": r"[čČ]l\.|[čČ]lán(?:ek|ku|kem|ky|ků|cích)",
}
UNIT_MARK = "(?:" + "|".join(UNIT_MARKERS.values()) + ")"
GLUED_SUB = r"(?=odst|písm)"  # pdf text layers lose spaces: "§122odst. 3"
# a provision inserted later takes one or two letters (§ 14a, then § 14aa or § 14ab between § 14a and § 14b;
# an article of an amending act: Čl. IIa)
PROVISION_SUFFIX = "[a-z]{0,2}"
UNIT_NUM = rf"(?:{D}{{1,5}}{PROVISION_SUFFIX}|[IVXLC]{{1,6}}[a-z]?)(?:(?![\w/])|{GLUED_SUB})(?!\.{D})"
ITEM_NUM = rf"{D}{{1,5}}{PROVISION_SUFFIX}(?![\w/])(?!\.\s*{D})"

SUB_UNITS = {
    "odst.": rf"odst(?:\.|avc(?:e|i|em|ích)|avec)\s*{D}{{1,3}}[a-z]?(?![\w/])",
    "písm.": r"písm(?:\.|eno|ene|enu|enem)\s*[a-z]{1,2}(?:\)|/|(?!\w))",
    "bod": rf"bod(?:u|ě|y|ů|em|ech)?\s+{D}{{1,3}}[a-z]?(?![\w/])",
    "věta": rf"(?:část\w*\s+)?(?:vět(?:a|y|ě|u|ou)\s+{ORDINAL}|{ORDINAL}\s+vět(?:a|y|ě|u|ou))"
    r"(?:\s+(?:část\w*\s+)?(?:před|za)\s+(?:středníkem|čárkou))?",
    "pododst.": rf"(?:{ORDINAL}\s+pododstav\w*|pododstav\w*\s+{ORDINAL})",
}
SUB = "(?:" + "|".join(SUB_UNITS.values()) + ")"
LIST_SEP = r"(?:\s*,\s*(?:a\s+|nebo\s+)?|\s+(?:a|nebo|či|až|a\s+až|resp\.|a/nebo)\s+|\s*[-–]\s*)"
UNIT = rf"{UNIT_MARK}\s*{UNIT_NUM}(?:\s*{SUB})*"
LIST_ITEM = rf"(?:{UNIT}|{ITEM_NUM}(?:\s+{SUB})*|{SUB}(?:\s+{SUB})*|[a-z]{{1,2}}[)/])"
FOLLOWING = r"\s+a\s+(?:násl\.|následující(?:ch|m)?(?!\w))"  # "§ 2586 a násl." / "a následujících"
CHAIN_RE = re.compile(rf"(?:(?=§)|(?<!\w)){UNIT}(?:{LIST_SEP}{LIST_ITEM})*(?:{FOLLOWING})?")
# a trailing "b)" belongs to the chain only after "písm." and on the same line ("§ 38 odst. 1 a 2, nebo\nb) …")
TRAILING_LETTER_ITEM_RE = re.compile(rf"{LIST_SEP}[a-z]{{1,2}}[)/]$")

# provisions of private documents, not law
NON_LAW_TAIL_RE = re.compile(
    r"\.?(?:\s+odst\.\s*[IVX0-9]+(?:\.[0-9]+)*)?"
    r"\s+(?:(?:této|teto|uvedené)\s+)?(?:smlouv|dohod[ayěo]|podmínek|zadávací\s+dokumentac|stanov\b|POV\b)"
)

# Czech act types before "č. N/YYYY Sb."
ACT_TYPES = (
    r"(?:[uUúÚ]stavní(?:ho|m|mu)?\s+)?[zZ]ákon(?:a|u|em|ě|y|ů)?",
    r"[zZ]ákonn(?:é|ého|ým)\s+opatření(?:m)?(?:\s+[sS]enátu)?",
    r"[vV]yhlášk(?:a|y|u|ou|ami|ách)|[vV]yhlášce",
    r"[vV]yhl\.",
    r"[zZ]ák\.",
    r"[nN]ařízení(?:m)?(?:\s+vlády)?",
    r"[sS]dělení(?:m)?",
    r"[aA]kt(?:u|em)?",  # e-Sbírka page header "Akt č. 90 / 2024 Sb."
)
ACT_TYPE = "(?:" + "|".join(ACT_TYPES) + ")"
ACT_ISSUER = (
    r"(?:\s+(?:České\s+národní\s+rady|Federálního\s+shromáždění|vlády|"
    r"Ministerstva\s+[^\W\d_]+|[A-ZČŘŠŽ]{2,5}[a-z]?))?"
)  # ČNR, MZe
ACT_TITLE = r"(?:\s+o\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,6})?"
SB_NUMBER = (
    rf"(?P<num>{D}{{1,4}})\s*/\s*(?:/\s*)?(?P<year>{D}{{4}}|{D}{{2}})(?!{D})\s*"
    r"(?P<coll>Sb\.\s*m\.\s*s\.|Sb\.\s*z\.\s*a\s*n\.|Sb(?:\.|(?![\w.])))"
    r"(?!\s*(?:rozh|n\.\s*u|NSS|ÚS))"
)
CZ_ACT_RE = re.compile(rf"(?<![\w/])(?:{ACT_TYPE}{ACT_ISSUER}{ACT_TITLE}\s*)?(?:[čc]\.\s*)?{SB_NUMBER}")
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
EU_TYPED_NORM_RE = re.compile(r"^(nařízení|směrnice|rozhodnutí) \S+$")

# court registers (spisová značka); senate number required unless the
# register has at least three letters (e.g. "Cpjn 206/2010", "Cdo 2288/2000")
COURT_REGISTERS = (
    # Nejvyšší soud
    "Cdo",
    "Cdon",
    "Odo",
    "Odon",
    "Tdo",
    "Tz",
    "Tvo",
    "Td",
    "Tcu",
    "Tul",
    "Cul",
    "Tpjn",
    "Cpjn",
    "Opjn",
    "NSČR",
    "NSCR",
    "ICdo",
    "Nd",
    "Ncu",
    "Ncn",
    "Pzo",
    "Cz",
    "Zp",
    "Plsn",
    "Tmo",
    "Ntd",
    # Nejvyšší správní soud
    "As",
    "Afs",
    "Ads",
    "Azs",
    "Ans",
    "Aps",
    "Ars",
    "Ao",
    "Aos",
    "Ca",
    "Konf",
    "Vol",
    "Nao",
    "Pst",
    "Aprk",
    "Kss",
    "Kse",
    "Komp",
    "Nk",
    # krajské, vrchní a okresní soudy
    "C",
    "Co",
    "Cm",
    "Cmo",
    "ICm",
    "INS",
    "VSPH",
    "VSOL",
    "KSPH",
    "T",
    "To",
    "Tm",
    "Nt",
    "Nc",
    "Ro",
    "EXE",
    "EPR",
    "A",
    "Ad",
    "Af",
    "Az",
    "Ncp",
    "P",
    "Pa",
    "Sd",
    "Cad",
    "K",
    "D",
    # justiční správa (court administration files)
    "Spr",
)
REGISTER_ALIASES = {"NSCR": "NSČR"}
_REG_ALT = "|".join(sorted(set(COURT_REGISTERS), key=len, reverse=True))
FILE_NUMBER_RE = re.compile(
    rf"(?<![\w/])(?:(?P<court>(?:MS|KS|VS)[A-ZČ]{{2}})\s+)?(?:(?P<senate>{D}{{1,3}})\s*)?"
    rf"(?P<reg>{_REG_ALT})(?:\s+|(?<=[^\W\d]{{2}})(?=\d))(?P<num>{D}{{1,6}})\s*/\s*(?P<year>{D}{{2,4}})(?![0-9/])"
    rf"(?:\s*[-–]\s*(?:[A-Z]\s*-?\s*)?{D}{{1,5}}(?![\w/]))?"
)  # list number; insolvency register "-A-11", "-B14"
US_SENATES = ("Pl", "IV", "III", "II", "I")
CONST_COURT_RE = re.compile(
    rf"(?<!\w)(?:(?P<senate>{'|'.join(US_SENATES)})\s*\.?|(?P<arabic>[1-4])\.)\s*(?:ÚS|US)(?P<st>\s*-?\s*st\.)?\s*[-.]?\s*"
    rf"(?P<num>{D}{{1,5}})\s*/\s*(?P<year>{D}{{2,4}})(?![0-9/])"
)
CJEU_CASE_RE = re.compile(rf"(?<![\w-])(?P<court>[CT])-(?P<num>{D}{{1,4}})/(?P<year>{D}{{2}})(?![\w/-])")
ECLI_RE = re.compile(r"(?<!\w)" + ECLI_PATTERN, re.IGNORECASE)


# --------------------------------------------------------------------------
# Gazetteer patterns
# --------------------------------------------------------------------------


def _name_pattern(name: str) -> str:
    first = name[0]
    if first.islower():
        return f"[{first}{first.upper()}]" + name[1:]
    return name


def _abbr_pattern(abbr: str) -> str:
    return r"\s*".join(re.escape(part).replace(r"\.", "[.\u2024]") for part in abbr.split(" "))


NAME_END = r"(?:(?=[0-9]{1,3}\))|(?!\w))"  # end of a name, or a footnote mark glued to it ("údajů2)")


def _first_letters(act: NamedAct) -> set[str]:
    """Letters a name or abbreviation of ``act`` can start with (each starts with a literal letter)."""
    letters = set()
    for name in act.names:
        letters.update({name[0], name[0].upper()} if name[0].islower() else {name[0]})
    letters.update(abbr[0] for abbr in (*act.abbreviations, *act.strict))
    assert all(letter.isalpha() for letter in letters), letters
    return letters


@dataclass(frozen=True)
class _GazetteerEntry:
    act: NamedAct
    pattern: str  # alternatives, without word boundaries
    strict: bool
    regex: re.Pattern  # pattern + "(?!\w)", for matching at a given position


def _build_gazetteer() -> list[_GazetteerEntry]:
    entries = []
    for act in NAMED_ACTS:
        free = [_name_pattern(n) for n in act.names] + [_abbr_pattern(a) for a in act.abbreviations]
        strict = [_abbr_pattern(a) for a in act.strict]
        for alternatives, is_strict in ((free, False), (strict, True)):
            if alternatives:
                pattern = f"(?:{'|'.join(alternatives)})"
                entries.append(_GazetteerEntry(act, pattern, is_strict, re.compile(pattern + NAME_END)))
    return entries


GAZETTEER = _build_gazetteer()
# all entries in one pass; ``lastgroup`` names the entry. The first-letter lookahead and the shared lookbehind
# reject most positions before the alternation is tried.
_GAZETTEER_FIRST = "".join(sorted(set().union(*(_first_letters(a) for a in NAMED_ACTS))))
GAZETTEER_ANY_RE = re.compile(
    rf"(?=[{_GAZETTEER_FIRST}])(?<!\w)(?:"
    + "|".join(f"(?P<g{i}>{e.pattern})" for i, e in enumerate(GAZETTEER))
    + r")"
    + NAME_END
)
APPOSITIVE_RES = {e.act.citation: re.compile(r",\s*" + e.pattern + r"(?!\w)") for e in GAZETTEER if not e.strict}
STRICT_CONTEXT_RE = re.compile(r"(?:podle|dle|ve\s+smyslu|viz)\s+$")
DEFINITION_BEFORE_RE = re.compile(r"dál(?:e)?\s+(?:též\s+|také\s+|i\s+|opět\s+)?(?:jen\s+)?(?:[„\"“]|,,)\s*$")
BIBLIOGRAPHY_AFTER_RE = re.compile(r"\s*(?:[IVX]{1,4}\b)?\s*[.,]\s*(?:[0-9]+\.\s*)?vydání")
GAZ_CITATION_TAIL_RE = re.compile(rf"\s+(?:[čc]\.\s*)?{SB_NUMBER}")
GAZ_EU_TAIL_RE = re.compile(
    rf"\s+\(?(?:{EU_NS})\)?\s*(?:č\.\s*)?{D}{{1,4}}/{D}{{1,4}}(?![\w/])"
)  # "Obecného nařízení EU č. 2016/679"


# --------------------------------------------------------------------------
# Matching helpers
# --------------------------------------------------------------------------

WHITESPACE_RE = re.compile(r"\s+")
OPEN_PAREN_RE = re.compile(r"\(\s*")
CLOSE_PAREN_RE = re.compile(r"\s*\)")


def _match_cz_act(text: str, pos: int, anchored: bool) -> tuple[int, int, str] | None:
    """(start, end, citation) of a Czech act citation at/after ``pos``."""
    m = CZ_ACT_RE.match(text, pos) if anchored else CZ_ACT_RE.search(text, pos)
    if not m:
        return None
    citation = act_citation(m.group("num"), m.group("year"), citation_mark(m.group("coll")))
    end = m.end()
    appositive = APPOSITIVE_RES.get(citation)
    if appositive:  # "zákon č. 89/2012 Sb., občanský zákoník"
        app = appositive.match(text, end)
        if app:
            end = app.end()
    return m.start(), end, citation


def _eu_norm(kind: str, m: re.Match) -> str:
    if m.group("pnum"):
        return f"{kind} ({m.group('ns')}) {m.group('pnum')}"
    return f"{kind} {m.group('snum')}"


def _match_eu_act_at(text: str, pos: int) -> tuple[int, str] | None:
    best = None
    for kind, regex in EU_ACT_RES.items():
        m = regex.match(text, pos)
        if m and (best is None or m.end() > best[0]):
            best = (m.end(), _eu_norm(kind, m))
    return best


def _match_gazetteer_at(text: str, pos: int, allow_strict: bool) -> tuple[int, str] | None:
    best = None
    for entry in GAZETTEER:
        if entry.strict and not allow_strict:
            continue
        m = entry.regex.match(text, pos)
        if m and (best is None or m.end() > best[0]):
            best = (m.end(), entry.act.citation)
    return best


def _match_act_tail(text: str, pos: int) -> tuple[int, str] | None:
    """The act right after a provision chain: "§ 5 zákona č. …", "§ 5 o. s. ř.", "§ 95 (o. s. ř.)"."""
    ws = WHITESPACE_RE.match(text, pos)
    if not ws:
        return None
    start = ws.end()
    cz = _match_cz_act(text, start, anchored=True)
    if cz:
        return cz[1], cz[2]
    eu = _match_eu_act_at(text, start)
    if eu:
        return eu
    gaz = _match_gazetteer_at(text, start, allow_strict=True)
    if gaz:
        tail = GAZ_CITATION_TAIL_RE.match(text, gaz[0])
        if tail:
            return tail.end(), act_citation(tail.group("num"), tail.group("year"))
        return gaz
    if text.startswith("(", start):
        inner = OPEN_PAREN_RE.match(text, start).end()
        gaz = _match_gazetteer_at(text, inner, allow_strict=False)
        if gaz:
            close = CLOSE_PAREN_RE.match(text, gaz[0])
            if close:
                return close.end(), gaz[1]
    return None


_FIRST_UNIT_RE = re.compile(rf"(?P<mark>{UNIT_MARK})\s*(?P<num>{UNIT_NUM})(?P<subs>(?:\s*{SUB})*)")
_SUB_RE = re.compile(SUB)
_SUB_VALUES = (  # sub-units kept in the norm, with their value pattern
    ("odst.", re.compile(r"^odst\w*\.?\s*([0-9]+[a-z]?)")),
    ("písm.", re.compile(r"^písm\w*\.?\s*([a-z]{1,2})")),
    ("bod", re.compile(r"^bod\w*\s+([0-9]+[a-z]?)")),
)


def _provision_path(chain_text: str) -> str:
    """Normalised path of the first provision of a chain: "§ 24 odst. 3 písm. a)"."""
    m = _FIRST_UNIT_RE.match(chain_text)
    if not m:
        return chain_text.strip()
    mark = next(norm for norm, pattern in UNIT_MARKERS.items() if re.fullmatch(pattern, m.group("mark")))
    parts = [f"{mark} {m.group('num')}"]
    for sub in _SUB_RE.finditer(m.group("subs")):
        for name, regex in _SUB_VALUES:
            value = regex.match(sub.group())
            if value:
                parts.append(f"{name} {value.group(1)}{')' if name == 'písm.' else ''}")
    return " ".join(parts)


HEADING_NEXT_RE = re.compile(r"[ \t]*(?:\n\s*(\S)(?P<para>(?<=\()[0-9]{1,3}[a-z]?\))?|\s*$)")


def _is_heading(text: str, start: int, end: int) -> bool:
    """ "§ 1" or "Čl. I" alone on its line (a quoted new provision may open it: "„§ 64"), followed by a
    capitalised line, a numbered paragraph "(1)" or the end of a multi-line text."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(' \t„"“'):
        return False
    after = HEADING_NEXT_RE.match(text, end)
    if not after:
        return False
    if after.group(1) is None:
        return line_start > 0
    return after.group(1).isupper() or after.group("para") is not None


# --------------------------------------------------------------------------
# Candidate finders: yield (start, end, label, norm)
# Each first skips, by a plain substring test, texts that cannot hold a match.
# --------------------------------------------------------------------------


def provision_candidates(text: str, default_act: str | None = None):
    """Provision chains ("§ 5 odst. 1 a 2", "čl. 36 Listiny"), with the act that follows them."""
    for m in CHAIN_RE.finditer(text):
        start, end = m.span()
        while (letter := TRAILING_LETTER_ITEM_RE.search(text, start, end)) and (
            "\n" in letter.group() or "písm" not in text[start : letter.start()]
        ):
            end = letter.start()
        if NON_LAW_TAIL_RE.match(text, end):
            continue
        if _is_heading(text, start, end):
            continue
        path = _provision_path(text[start:end])
        tail = _match_act_tail(text, end)
        if tail:
            yield start, tail[0], LAW_REF, f"{tail[1]} {path}"
            continue
        yield start, end, LAW_REF, f"{default_act} {path}" if default_act else path


def czech_act_candidates(text: str):
    """Collection of Laws citations ("zákona č. 89/2012 Sb.")."""
    if "/" not in text:
        return
    pos = 0
    while True:
        found = _match_cz_act(text, pos, anchored=False)
        if not found:
            return
        start, end, citation = found
        if not NOT_AN_ACT_BEFORE_RE.search(text, max(0, start - 12), start):
            yield start, end, LAW_REF, citation
        pos = max(end, start + 1)


def eu_act_candidates(text: str):
    """EU acts by number ("nařízení (EU) 2016/679", "směrnice 2013/34/EU")."""
    if "/" not in text:
        return
    for kind, regex in EU_ACT_RES.items():
        for m in regex.finditer(text):
            yield m.start(), m.end(), LAW_REF, _eu_norm(kind, m)
    for m in EU_BARE_RE.finditer(text):
        yield m.start(), m.end(), LAW_REF, m.group("snum")


def _title_of_same_act(text: str, start: int, citation: str) -> bool:
    """ "zákon č. 141/1961 Sb., o trestním řízení soudním (trestní řád)": the name is part of the title."""
    before = text[max(0, start - 400) : start]
    if not before.rstrip().endswith(("(", "/")):
        return False
    number = citation.split(" Sb.")[0].split(") ")[-1]
    pattern = r"(?<![0-9])" + r"\s*/\s*".join(re.escape(part) for part in number.split("/"))
    return re.search(pattern, before) is not None


def named_act_candidates(text: str):
    """Acts cited by name or abbreviation ("občanského zákoníku", "o. s. ř."), from ``acts.NAMED_ACTS``."""
    for m in GAZETTEER_ANY_RE.finditer(text):
        entry = GAZETTEER[int(m.lastgroup[1:])]
        start, end = m.span()
        if entry.strict and not STRICT_CONTEXT_RE.search(text, max(0, start - 15), start):
            continue
        if DEFINITION_BEFORE_RE.search(text, max(0, start - 30), start):
            continue
        if _title_of_same_act(text, start, entry.act.citation):
            continue
        if BIBLIOGRAPHY_AFTER_RE.match(text, end):
            continue
        citation = entry.act.citation
        tail = GAZ_CITATION_TAIL_RE.match(text, end)
        if tail:  # "obchodním zákoníkem č. 513/1991 Sb."
            end = tail.end()
            citation = act_citation(tail.group("num"), tail.group("year"))
        elif not citation.endswith("Sb.") and (eu_tail := GAZ_EU_TAIL_RE.match(text, end)):
            end = eu_tail.end()
        yield start, end, LAW_REF, citation


def decision_candidates(text: str):
    """File numbers, Constitutional Court and CJEU case numbers ("/" in each) and ECLIs (":")."""
    if "/" not in text and ":" not in text:
        return
    for m in CONST_COURT_RE.finditer(text):
        senate = m.group("senate") or CONSTITUTIONAL_SENATES[m.group("arabic")]  # "1. US 21/94"
        register = PLENARY_OPINION if m.group("st") else CONSTITUTIONAL
        number = FileNumber(register, int(m.group("num")), m.group("year"), senate)
        yield m.start(), m.end(), DECISION_REF, number.text
    for m in FILE_NUMBER_RE.finditer(text):
        reg, senate, court = m.group("reg"), m.group("senate"), m.group("court")
        if senate is None and len(reg) < 3:
            continue
        if court and reg != "INS":
            continue
        reg = REGISTER_ALIASES.get(reg, reg)
        number = FileNumber(reg, int(m.group("num")), m.group("year"), senate or "", court or "")
        yield m.start(), m.end(), DECISION_REF, number.text
    for m in CJEU_CASE_RE.finditer(text):
        yield m.start(), m.end(), DECISION_REF, m.group()
    for m in ECLI_RE.finditer(text):
        value = m.group().rstrip(".")
        yield m.start(), m.start() + len(value), DECISION_REF, value.upper()


# --------------------------------------------------------------------------
# Choosing entities
# --------------------------------------------------------------------------


def resolve(text: str, found) -> list[Entity]:
    """Non-overlapping entities from candidates, sorted by start: left to right, the earliest start wins,
    then the longest; of equal spans, the candidate found first (the order of ``found`` breaks ties)."""
    ordered = sorted(found, key=lambda c: (c[0], -c[1]))
    entities: list[Entity] = []
    last_end = -1
    for start, end, label, norm in ordered:
        if start < last_end or end <= start:
            continue
        if label == LAW_REF and EU_BARE_RE.fullmatch(text, start, end) and entities:
            norm = _inherit_eu_type(text, entities[-1], start, norm)
        entities.append(Entity(start, end, label, text[start:end], norm))
        last_end = end
    return entities


def _inherit_eu_type(text: str, previous: Entity, start: int, norm: str) -> str:
    """ "směrnic 64/221/EHS, 68/360/EHS": list members take the type of the first."""
    typed = EU_TYPED_NORM_RE.match(previous.norm or "")
    if typed and re.fullmatch(r"\s*(?:,|a|nebo)?\s*", text[previous.end : start]):
        return f"{typed.group(1)} {norm}"
    return norm


# A LAW_REF norm is "<act> <provision path>" (either part may be missing); the path starts at § or čl.
_PROVISION_START_RE = re.compile(r"(?:^|\s)(?=§|čl\.|Čl\.)")


def split_law_ref_norm(norm: str) -> tuple[str | None, str | None]:
    """`89/2012 Sb. § 2079 odst. 1` → (`89/2012 Sb.`, `§ 2079 odst. 1`); `§ 5` → (None, `§ 5`)."""
    split = _PROVISION_START_RE.search(norm)
    act = (norm[: split.start()] if split else norm).strip() or None
    provision = norm[split.end() :].strip() if split else None
    return act, provision or None
