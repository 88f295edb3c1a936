"""Czech legal identifiers, built and read in one place.

Acts of the Sbírka zákonů (``sb``) and the Sbírka mezinárodních smluv (``sm``):

- citation ``573/2025 Sb.`` (``Sb. m. s.`` for a treaty; a two-digit year ``18/97 Sb.`` is 1997, the old habit);
- ELI ``/eli/cz/sb/2025/573``, and for one consolidated version ``/eli/cz/sb/2025/573/2026-06-01``;
- e-Sbírka's stale URL ``/sb/2025/573`` (``/sb/2025/573/2026-06-01#par_5-odst_1``: a version and a provision).

Court decisions:

- file number (spisová značka) ``29 Cdo 123/2024``, ``MSPH 88 INS 6424/2021``, the Ústavní soud's
  ``IV. ÚS 393/00`` and ``Pl. ÚS-st. 27/09`` (the court numbers with a two-digit year; a citation's year is kept
  as written, as the NER norms it); a list number (``-8``) is not part of it;
- reference number (číslo jednací) = file number and list number, ``7 Afs 41/2013-8``;
- ECLI ``ECLI:CZ:US:2013:4.US.2265.13.1`` (Ústavní soud: senate in digits, the file number's two-digit year,
  an ordinal), ``ECLI:CZ:NS:2024:29.ND.461.2024.1`` (Nejvyšší soud: register in capitals, four-digit year).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ELI_PREFIX = "/eli/cz"
COLLECTION_MARKS = {"sb": "Sb.", "sm": "Sb. m. s."}  # ELI collection -> the mark a citation ends with
# "Sb. z. a n." (1918-1945) has no ELI collection of its own; its acts are under sb
_MARK_SPELLINGS = {"Sb": "Sb.", "Sb.": "Sb.", "Sb.m.s.": "Sb. m. s.", "Sb.z.an.": "Sb. z. a n."}
TWO_DIGIT_YEAR_PIVOT = 44  # "18/97 Sb." -> 1997, "5/05 Sb." -> 2005: the Sbírka's numbering starts in 1945

_CITATION = re.compile(
    r"^\s*(?P<number>[0-9]{1,4})\s*/\s*(?P<year>[0-9]{4}|[0-9]{2})\s*"
    r"(?P<mark>Sb\.\s*m\.\s*s\.|Sb\.\s*z\.\s*a\s*n\.|Sb\.?)"
)
_ACT_PATH = re.compile(
    r"^/(?:eli/cz/)?(?P<collection>[a-z]+\d*)/(?P<year>\d{4})/(?P<number>\d+)(?:/(?P<version>\d{4}-\d{2}-\d{2}))?"
)
_STALE_URL = re.compile(_ACT_PATH.pattern.replace("(?:eli/cz/)?", "") + r"(?:#(?P<anchor>.*))?$")


def full_year(year: int | str) -> int:
    """A citation's year: ``2012`` -> 2012; two digits -> 19xx or 20xx (``97`` -> 1997, ``05`` -> 2005)."""
    text = str(year).strip()
    if len(text) == 2:
        return int(("20" if int(text) <= TWO_DIGIT_YEAR_PIVOT else "19") + text)
    return int(text)


def citation_mark(written: str) -> str:
    """The collection mark as citations print it: ``Sb`` -> ``Sb.``, ``Sb.m.s.`` -> ``Sb. m. s.``."""
    return _MARK_SPELLINGS.get(re.sub(r"\s", "", written), written.strip())


def act_citation(number: int | str, year: int | str, mark: str = "Sb.") -> str:
    """``(573, 2025)`` -> ``573/2025 Sb.``; a two-digit year is completed (``(18, "97")`` -> ``18/1997 Sb.``)."""
    return f"{int(number)}/{full_year(year)} {mark}"


def act_eli(year: int | str, number: int | str, collection: str = "sb", version: str = "") -> str:
    """``(2025, 573)`` -> ``/eli/cz/sb/2025/573``; with ``version="2026-06-01"`` -> ``…/573/2026-06-01``."""
    return f"{ELI_PREFIX}/{collection}/{int(year)}/{int(number)}" + (f"/{version}" if version else "")


@dataclass(frozen=True)
class ActId:
    """One act (``version``: a consolidated version's date, ``anchor``: a provision in stale-URL form)."""

    collection: str
    year: int
    number: int
    version: str = ""
    anchor: str = ""

    @property
    def eli(self) -> str:
        """The act's ELI, without a version: ``/eli/cz/sb/2025/573``."""
        return act_eli(self.year, self.number, self.collection)

    @property
    def versioned_eli(self) -> str:
        """The version's ELI, ``/eli/cz/sb/2025/573/2026-06-01`` (the act's ELI when no version is named)."""
        return act_eli(self.year, self.number, self.collection, self.version)

    @property
    def stale_url(self) -> str:
        """e-Sbírka's path of the act or version, without the anchor: ``/sb/2025/573/2026-06-01``."""
        return f"/{self.collection}/{self.year}/{self.number}" + (f"/{self.version}" if self.version else "")

    @property
    def citation(self) -> str:
        """``573/2025 Sb.`` (``Sb. m. s.`` for the treaty collection)."""
        return f"{self.number}/{self.year} {COLLECTION_MARKS.get(self.collection, self.collection)}"


def parse_citation(text: str | None) -> ActId | None:
    """The act a citation names, at the start of ``text`` (a provision may follow: ``89/2012 Sb. § 2079``)."""
    m = _CITATION.match(text) if isinstance(text, str) else None
    if not m:
        return None
    collection = "sm" if citation_mark(m["mark"]) == COLLECTION_MARKS["sm"] else "sb"
    return ActId(collection, full_year(m["year"]), int(m["number"]))


def parse_act_path(path: str | None) -> tuple[ActId, str] | None:
    """An act's ELI or stale URL with what follows it: ``/eli/cz/sb/2024/87/2024-04-16/dokument/norma`` ->
    (the act, version 2024-04-16; ``/dokument/norma``); ``/sb/2024/87/fragmenty`` -> (the act; ``/fragmenty``)."""
    m = _ACT_PATH.match((path or "").strip())
    if not m:
        return None
    act = ActId(m["collection"], int(m["year"]), int(m["number"]), m["version"] or "")
    return act, path.strip()[m.end() :]


def parse_stale_url(value: str | None) -> ActId | None:
    """``/sb/2024/87/2026-01-01#par_5-odst_1`` -> its act, version and anchor; None when it is not one."""
    m = _STALE_URL.match((value or "").strip())
    if not m:
        return None
    return ActId(m["collection"], int(m["year"]), int(m["number"]), m["version"] or "", m["anchor"] or "")


def eli_for_citation(citation: str | None) -> str | None:
    """``89/2012 Sb.`` (a provision may follow) -> ``/eli/cz/sb/2012/89``; None for anything else."""
    act = parse_citation(citation)
    return act.eli if act else None


def citation_for_eli(eli: str | None) -> str | None:
    """``/eli/cz/sb/2012/89`` (a version or a part may follow) -> ``89/2012 Sb.``; None for anything else."""
    if not (eli or "").startswith(ELI_PREFIX + "/"):
        return None
    found = parse_act_path(eli)
    return found[0].citation if found else None


# ---------------------------------------------------------------- court decisions

CONSTITUTIONAL_SENATES = {"1": "I", "2": "II", "3": "III", "4": "IV"}  # Ústavní soud senates: digits -> roman
_SENATE_DIGITS = {roman: digit for digit, roman in CONSTITUTIONAL_SENATES.items()}
CONSTITUTIONAL = "ÚS"
PLENARY_OPINION = "ÚS-st."  # stanovisko pléna
REGISTER_ALIASES = {"NSCR": "NSČR"}

_CONSTITUTIONAL_NUMBER = re.compile(
    r"(?:(?P<senate>Pl|IV|I{1,3})\s*\.?|(?P<digit>[1-4])\.)\s*(?:ÚS|US)(?P<opinion>\s*-?\s*st\.)?\s*[-.]?\s*"
    r"(?P<number>\d{1,5})\s*/\s*(?P<year>\d{2,4})"
)
_FILE_NUMBER = re.compile(
    r"(?:(?P<court>(?:MS|KS|VS)[A-ZČ]{2})\s+)?(?:(?P<senate>\d{1,3})\s*)?(?P<register>[^\W\d_]{1,8})\s*"
    r"(?P<number>\d{1,6})\s*/\s*(?P<year>\d{2,4})(?:\s*[-–]\s*(?P<list>(?:[A-Z]\s*-?\s*)?\d{1,5}))?"
)
ECLI_PATTERN = r"ECLI:[A-Za-z]{2}:[A-Za-z0-9]{1,7}:\d{4}:[A-Za-z0-9.]{1,60}"
_ECLI = re.compile(
    r"ECLI:(?P<country>[A-Z]{2}):(?P<court>[A-Z0-9]{1,7}):(?P<year>\d{4}):(?P<number>[A-Z0-9.]{1,60})", re.IGNORECASE
)


@dataclass(frozen=True)
class FileNumber:
    """A court file number (spisová značka). ``register`` is ``ÚS`` / ``ÚS-st.`` for the Ústavní soud, whose
    ``senate`` is ``Pl`` or roman; ``year`` stays as written; ``list_number`` makes it a reference number."""

    register: str
    number: int
    year: str
    senate: str = ""
    court: str = ""  # insolvency numbers keep the court: MSPH 88 INS 6424/2021
    list_number: str = ""

    @property
    def is_constitutional(self) -> bool:
        return self.register in (CONSTITUTIONAL, PLENARY_OPINION)

    @property
    def text(self) -> str:
        """The citation form, single-spaced: ``IV. ÚS 2127/12``, ``Pl. ÚS-st. 21/05``, ``29 NSČR 123/2024``."""
        if self.is_constitutional:
            return f"{self.senate}. {self.register} {self.number}/{self.year}"
        return " ".join(p for p in (self.court, self.senate, self.register) if p) + f" {self.number}/{self.year}"

    @property
    def reference(self) -> str:
        """The reference number (číslo jednací): ``7 Afs 41/2013-8``; the file number when there is no list."""
        return f"{self.text}-{self.list_number}" if self.list_number else self.text


def parse_file_number(text: str | None) -> FileNumber | None:
    """A field that is one file number, however spaced: ``II.ÚS 866/16``, ``1. US 21/94``, ``Pl.ÚS-st. 27/09``,
    ``7 Afs 41/2013 - 8``, ``MSPH 88 INS 6424/2021-A-11``, ``Konf 4/2003 - 16``; None for anything else."""
    text = re.sub(r"\s+", " ", (text or "").replace("\u00a0", " ")).strip()
    m = _CONSTITUTIONAL_NUMBER.fullmatch(text)
    if m:
        senate = m["senate"] or CONSTITUTIONAL_SENATES[m["digit"]]
        return FileNumber(PLENARY_OPINION if m["opinion"] else CONSTITUTIONAL, int(m["number"]), m["year"], senate)
    m = _FILE_NUMBER.fullmatch(text)
    if not m or m["register"] in ("ÚS", "US"):
        return None
    register = REGISTER_ALIASES.get(m["register"], m["register"])
    list_number = re.sub(r"\s", "", m["list"] or "")
    return FileNumber(register, int(m["number"]), m["year"], m["senate"] or "", m["court"] or "", list_number)


def file_number(text: str | None) -> str:
    """The file number in citation form, the list number dropped (``II.ÚS 866/16`` -> ``II. ÚS 866/16``,
    ``7 Afs 41/2013 - 8`` -> ``7 Afs 41/2013``); text that is no file number comes back single-spaced."""
    parsed = parse_file_number(text)
    return parsed.text if parsed else re.sub(r"\s+", " ", (text or "").replace("\u00a0", " ")).strip()


def canonical_file_number(number: FileNumber) -> str:
    """The file number as the court writes it: the Ústavní soud's year in two digits (``IV. ÚS 393/00``), other
    courts' in four (``21 Cdo 1234/1999``); no list number. The one form every spelling of a file number (``II.ÚS
    866/16``, ``2 ÚS 866/2016``, ``52 C 99/2024-53``) is matched in (the citator, search, court metadata)."""
    if number.register == CONSTITUTIONAL or number.is_constitutional:
        return f"{number.senate}. {number.register} {number.number}/{int(number.year) % 100:02d}"
    head = " ".join(p for p in (number.court, number.senate, number.register) if p)
    return f"{head} {number.number}/{full_year(number.year)}"


def canonical_file_number_of(text: str | None) -> str | None:
    """:func:`canonical_file_number` of a field that is one file number; None for anything else."""
    parsed = parse_file_number(text)
    return canonical_file_number(parsed) if parsed else None


def reference_number(text: str | None) -> str:
    """A file number with its list number as decisions cite it: ``7 Afs 41/2013 - 8`` -> ``7 Afs 41/2013-8``
    (single spaces, no space around the dashes)."""
    single = re.sub(r"\s+", " ", (text or "").replace("\u00a0", " ")).strip()
    return re.sub(r"\s*-\s*", "-", single)


@dataclass(frozen=True)
class Ecli:
    """European Case Law Identifier: ``ECLI:{country}:{court}:{year}:{number}``."""

    country: str
    court: str
    year: int
    number: str

    @property
    def text(self) -> str:
        return f"ECLI:{self.country}:{self.court}:{self.year}:{self.number}"


def parse_ecli(text: str | None) -> Ecli | None:
    """A whole ECLI, any case (``ecli:cz:ns:2024:29.nd.461.2024.1``) -> its parts, country and court upper-cased;
    the court's own number keeps its case (``Pl.US.24.10.1``)."""
    m = _ECLI.fullmatch((text or "").strip())
    if not m:
        return None
    return Ecli(m["country"].upper(), m["court"].upper(), int(m["year"]), m["number"])


def find_ecli(text: str | None, court: str | None = None) -> str | None:
    """The first ECLI in ``text`` (of ``court`` only, e.g. ``US``, ``NSS``), without a sentence's final dot."""
    pattern = ECLI_PATTERN if court is None else ECLI_PATTERN.replace("[A-Za-z0-9]{1,7}", re.escape(court), 1)
    m = re.search(r"(?<!\w)" + pattern, text or "")
    return m.group().rstrip(".") if m else None


def constitutional_ecli(number: FileNumber, decided_year: int, ordinal: int = 1) -> str | None:
    """The Ústavní soud's ECLI of a decision: ``IV. ÚS 2265/13`` decided in 2013 ->
    ``ECLI:CZ:US:2013:4.US.2265.13.1`` (senate in digits, the file number's year in two digits). None for a
    plenary opinion (its form is not known here) and for any other court's number."""
    if number.register != CONSTITUTIONAL:
        return None
    senate = _SENATE_DIGITS.get(number.senate, number.senate)
    return Ecli("CZ", "US", decided_year, f"{senate}.US.{number.number}.{int(number.year) % 100:02d}.{ordinal}").text
