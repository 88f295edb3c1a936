"""DECISION_REF: court file numbers, Ústavní soud and CJEU case numbers and ECLIs, each in its canonical form.

Canonical (``ner_eval/GUIDELINES.md``, ``mendel.law.identifiers.canonical_file_number``): ``{senate} {Register}
{number}/{year}`` single-spaced, the list number dropped; the Ústavní soud's year in two digits (``IV. ÚS 2127/12``,
``Pl. ÚS-st. 21/05``), every other court's in four (``30 Cdo 85/2005``, ``20 Cdo 1827/1999``). The prefixes ``sp. zn.``, ``sen. zn.``, ``č. j.`` stay outside the span. An ECLI keeps its
own form; ``file_number_of_ecli`` and ``ecli_of_file_number`` turn one into the other.
"""

from __future__ import annotations

import re

from mendel.law.identifiers import (
    CONSTITUTIONAL,
    CONSTITUTIONAL_SENATES,
    ECLI_PATTERN,
    PLENARY_OPINION,
    FileNumber,
    canonical_file_number,
    full_year,
    parse_ecli,
)

DECISION_REF = "DECISION_REF"
D = "[0-9]"

# court registers (spisová značka); senate number required unless the
# register has at least three letters (e.g. "Cpjn 206/2010", "Cdo 2288/2000")
COURT_REGISTERS = (
    # Nejvyšší soud
    *("Cdo", "Cdon", "Odo", "Odon", "Tdo", "Tz", "Tvo", "Td", "Tcu", "Tul", "Cul", "Tpjn", "Cpjn", "Opjn"),
    *("NSČR", "NSCR", "ICdo", "Nd", "Ncu", "Ncn", "Pzo", "Cz", "Zp", "Plsn", "Tmo", "Ntd"),
    # Nejvyšší správní soud
    *("As", "Afs", "Ads", "Azs", "Ans", "Aps", "Ars", "Ao", "Aos", "Ca", "Konf", "Vol", "Nao", "Pst", "Aprk"),
    *("Kss", "Kse", "Kseo", "Komp", "Nk", "Na", "Nad"),
    # krajské, vrchní a okresní soudy
    *("C", "Co", "Cm", "Cmo", "ICm", "INS", "VSPH", "VSOL", "KSPH", "T", "To", "Tm", "Nt", "Nc", "Ro", "EXE"),
    *("EPR", "A", "Ad", "Af", "Az", "Ncp", "P", "Pa", "Sd", "Cad", "K", "D"),
    # justiční správa (court administration files)
    "Spr",
)
REGISTER_ALIASES = {"NSCR": "NSČR"}
REGISTER_SPELLING = {register.upper(): REGISTER_ALIASES.get(register, register) for register in COURT_REGISTERS}
_REG_ALT = "|".join(sorted(set(COURT_REGISTERS), key=len, reverse=True))
FILE_NUMBER_RE = re.compile(
    rf"(?<![\w/])(?:(?P<court>(?:MS|KS|VS)[A-ZČ]{{2}})\s+)?(?:(?P<senate>{D}{{1,4}})\s*)?"
    rf"(?P<reg>{_REG_ALT})(?:\s+|(?<=[^\W\d]{{2}})(?=\d))(?P<num>{D}{{1,6}})\s*/\s*(?P<year>{D}{{2,4}})(?![0-9/])"
    rf"(?:\s*[-–]\s*(?:[A-Z]\s*-?\s*)?{D}{{1,5}}(?![\w/]))?"
)  # list number; insolvency register "-A-11", "-B14"
US_SENATES = ("Pl", "IV", "III", "II", "I")
CONST_COURT_RE = re.compile(
    rf"(?<!\w)(?:(?P<senate>{'|'.join(US_SENATES)})\s*\.?|(?P<arabic>[1-4])(?:\.|\s+(?=[ÚU]S\s)))\s*(?:ÚS|US)"
    rf"(?P<st>\s*-?\s*st\.)?\s*[-.]?\s*(?P<num>{D}{{1,5}})\s*/\s*(?P<year>{D}{{2,4}})(?![0-9/])"
)
CJEU_CASE_RE = re.compile(rf"(?<![\w-])(?P<court>[CT])-(?P<num>{D}{{1,4}})/(?P<year>{D}{{2}})(?![\w/-])")
ECLI_RE = re.compile(r"(?<!\w)" + ECLI_PATTERN, re.IGNORECASE)


def canonical(number: FileNumber) -> str:
    """The canonical text of a file number: ``mendel.law.identifiers.canonical_file_number``, the one form the
    citator, the court records and search match in (the Ústavní soud's year in two digits, other courts' in four);
    a cut year (``32 Cdo 4176/201``) stays as written."""
    if len(number.year) not in (2, 4):
        return number.text
    return canonical_file_number(number)


_ECLI_FILE_NUMBER = re.compile(
    r"^(?:(?P<us_senate>Pl|[1-4])\.(?P<us>US)(?P<st>-st)?|(?P<senate>\d{1,4})\.(?P<reg>[A-Za-zČŘŠŽčřšž]+)|"
    r"(?P<bare>[A-Za-zČŘŠŽčřšž]{3,}))\.(?P<num>\d{1,6})\.(?P<year>\d{2}|\d{4})\.(?P<ordinal>\d+)$"
)


def file_number_of_ecli(ecli: str) -> FileNumber | None:
    """The file number an ECLI is built on: ``ECLI:CZ:MSBR:2025:52.C.99.2024.1`` -> ``52 C 99/2024``,
    ``ECLI:CZ:US:2013:4.US.2265.13.1`` -> ``IV. ÚS 2265/13``, ``ECLI:CZ:NS:2024:29.ND.461.2024.1`` -> ``29 Nd
    461/2024``; None for another country's ECLI or a number of a form not known here."""
    parsed = parse_ecli(ecli)
    if parsed is None or parsed.country != "CZ":
        return None
    m = _ECLI_FILE_NUMBER.match(parsed.number)
    if not m:
        return None
    if m["us"]:
        senate = "Pl" if m["us_senate"] == "Pl" else CONSTITUTIONAL_SENATES[m["us_senate"]]
        register = PLENARY_OPINION if m["st"] else CONSTITUTIONAL
        number = FileNumber(register, int(m["num"]), m["year"], senate)
    else:
        register = REGISTER_SPELLING.get((m["reg"] or m["bare"]).upper())
        if register is None:
            return None
        number = FileNumber(register, int(m["num"]), m["year"], m["senate"] or "")
    return FileNumber(number.register, number.number, canonical(number).rsplit("/", 1)[1], number.senate, number.court)


def ecli_of_file_number(number: FileNumber, court: str, decided_year: int, ordinal: int | str = 1) -> str:
    """The ECLI of a decision of ``court`` (its ECLI code: ``NS``, ``NSS``, ``US``, ``MSBR``…) in this file,
    decided in ``decided_year``: ``52 C 99/2024``, ``MSBR``, 2025 -> ``ECLI:CZ:MSBR:2025:52.C.99.2024.1``. The
    ordinal is the court's own (most courts 1, some the list number), and the Nejvyšší soud writes the register in
    capitals (``29.ND.461.2024.1``): a built ECLI is a guess to check, never the source's own."""
    year = full_year(number.year)
    if number.is_constitutional:
        senate = "Pl" if number.senate == "Pl" else {v: k for k, v in CONSTITUTIONAL_SENATES.items()}[number.senate]
        st = "-st" if number.register == PLENARY_OPINION else ""
        core = f"{senate}.US{st}.{number.number}.{year % 100:02d}"
    else:
        senate = f"{number.senate}." if number.senate else ""
        register = number.register.upper() if court == "NS" else number.register
        core = f"{senate}{register}.{number.number}.{year}"
    return f"ECLI:CZ:{court}:{decided_year}:{core}.{ordinal}"


def decision_candidates(text: str):
    """File numbers, Constitutional Court and CJEU case numbers ("/" in each) and ECLIs (":")."""
    if "/" not in text and ":" not in text:
        return
    for m in CONST_COURT_RE.finditer(text):
        senate = m.group("senate") or CONSTITUTIONAL_SENATES[m.group("arabic")]  # "1. US 21/94", "4 US 382/02"
        register = PLENARY_OPINION if m.group("st") else CONSTITUTIONAL
        number = FileNumber(register, int(m.group("num")), m.group("year"), senate)
        yield m.start(), m.end(), DECISION_REF, canonical(number)
    for m in FILE_NUMBER_RE.finditer(text):
        reg, senate, court = m.group("reg"), m.group("senate"), m.group("court")
        if senate is None and len(reg) < 3:
            continue
        if court and reg != "INS":
            continue
        reg = REGISTER_ALIASES.get(reg, reg)
        number = FileNumber(reg, int(m.group("num")), m.group("year"), senate or "", court or "")
        yield m.start(), m.end(), DECISION_REF, canonical(number)
    for m in CJEU_CASE_RE.finditer(text):
        yield m.start(), m.end(), DECISION_REF, m.group()
    for m in ECLI_RE.finditer(text):
        value = m.group().rstrip(".")
        yield m.start(), m.start() + len(value), DECISION_REF, value.upper()
