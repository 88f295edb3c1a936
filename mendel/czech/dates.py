"""Czech calendar dates, read and written in one place: month names in every case, ``1. 2. 2024`` (spaces optional),
``1. února 2024`` and ISO ``2024-02-01``. A day that is not on the calendar (``31. 2. 2024``) is no date: the readers
answer None. The NER's date recogniser (``mendel.ner.dates``) uses the same month tables.
"""

from __future__ import annotations

import re
from datetime import date

# month number -> its case forms as they follow a day number or stand alone
# (nominative, genitive, dative/locative, instrumental; "září" is the same in most cases)
MONTH_FORMS: dict[int, tuple[str, ...]] = {
    1: ("leden", "ledna", "lednu", "lednem"),
    2: ("únor", "února", "únoru", "únorem"),
    3: ("březen", "března", "březnu", "březnem"),
    4: ("duben", "dubna", "dubnu", "dubnem"),
    5: ("květen", "května", "květnu", "květnem"),
    6: ("červen", "června", "červnu", "červnem"),
    7: ("červenec", "července", "červenci", "červencem"),
    8: ("srpen", "srpna", "srpnu", "srpnem"),
    9: ("září", "zářím"),
    10: ("říjen", "října", "říjnu", "říjnem"),
    11: ("listopad", "listopadu", "listopadem"),
    12: ("prosinec", "prosince", "prosinci", "prosincem"),
}
# every form, in lower case and capitalised (a sentence may start with the month), -> month number
MONTH_BY_NAME: dict[str, int] = {form: number for number, forms in MONTH_FORMS.items() for form in forms}
MONTH_BY_NAME.update({f[:1].upper() + f[1:]: n for f, n in list(MONTH_BY_NAME.items())})
# a month name as a regex alternation, longest first ("červenec" before "červen"), not inside a longer word
MONTH_NAME_PATTERN = "(?:" + "|".join(sorted(MONTH_BY_NAME, key=len, reverse=True)) + r")(?!\w)"

# patterns with the groups day, month (or month_name) and year, for ``date_of_match``; the strings can be
# embedded in a larger pattern ("ze dne " + NUMERIC_DATE_PATTERN)
NUMERIC_DATE_PATTERN = r"(?P<day>\d{1,2})\.\s*(?P<month>\d{1,2})\.\s*(?P<year>\d{4})"
WORDED_DATE_PATTERN = rf"(?P<day>\d{{1,2}})\.\s*(?P<month_name>{MONTH_NAME_PATTERN})\s+(?P<year>\d{{4}})"
NUMERIC_DATE_RE = re.compile(NUMERIC_DATE_PATTERN)
WORDED_DATE_RE = re.compile(WORDED_DATE_PATTERN)
ISO_DATE_RE = re.compile(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})")
# a whole field holding one numeric date: dots or slashes (Domino queries), an optional time of day after it
_WHOLE_NUMERIC = re.compile(
    r"(?P<day>\d{1,2})(?P<sep>[./])\s*(?P<month>\d{1,2})(?P=sep)\s*(?P<year>\d{4})"
    r"(?P<time>\s+\d{1,2}:\d{2}(?::\d{2})?)?"
)


def calendar_date(year: int | str, month: int | str, day: int | str) -> date | None:
    """The date, or None when it is not on the calendar (``2023, 2, 29``)."""
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def month_number(name: str) -> int | None:
    """``března`` / ``Březen`` / ``září`` -> 3 / 3 / 9; None for anything else."""
    return MONTH_BY_NAME.get(name) or MONTH_BY_NAME.get(name.lower())


def date_of_match(match: re.Match) -> date | None:
    """The date a match of one of the patterns above spells (its groups day, month or month_name, year), if it
    is on the calendar."""
    groups = match.groupdict()
    month = month_number(groups["month_name"]) if groups.get("month_name") else groups["month"]
    return calendar_date(groups["year"], month, groups["day"])


def find_numeric_date(text: str | None) -> date | None:
    """The first ``d. m. yyyy`` in ``text`` (``19. 12. 2024``, ``19.12.2024 10:00``, ``ze dne 1. 2. 2026``)."""
    match = NUMERIC_DATE_RE.search(text or "")
    return date_of_match(match) if match else None


def find_worded_date(text: str | None) -> date | None:
    """The first ``d. <month name> yyyy`` in ``text`` (``Zpřístupněna dne 16. dubna 2024``), any case of the
    month."""
    match = WORDED_DATE_RE.search(text or "")
    return date_of_match(match) if match else None


def find_date(text: str | None) -> date | None:
    """The date in a short field written in any of the three forms: ISO first, then numeric, then worded."""
    match = ISO_DATE_RE.search(text or "")
    if match:
        return date_of_match(match)
    return find_numeric_date(text) or find_worded_date(text)


def parse_numeric_date(text: str | None, *, allow_time: bool = False) -> date | None:
    """A field that is one numeric date and nothing else (surrounding space aside): ``1.2.2026``, ``1. 2. 2026``,
    ``01/02/2026``; with ``allow_time`` a time of day may follow (``01.02.2026 00:00:00``)."""
    match = _WHOLE_NUMERIC.fullmatch((text or "").strip())
    if not match or (match.group("time") and not allow_time):
        return None
    return date_of_match(match)


def parse_iso_date(value) -> date | None:
    """The date an ISO value starts with (``2020-06-29``, ``2020-06-29T10:00:00+02:00``); None for anything else,
    including a value that is not a string."""
    if not isinstance(value, str):
        return None
    match = ISO_DATE_RE.match(value.strip())
    return date_of_match(match) if match else None


def ofn_instant_date(value) -> date | None:
    """The day of an OFN time instant (Časový okamžik: ``{"datum": "2020-06-29"}`` or ``{"datum_a_čas":
    "2020-06-29T10:00:00+02:00"}``) or of a plain ISO string; None when unspecified or not a date."""
    if isinstance(value, dict):
        value = value.get("datum") or value.get("datum_a_čas")
    return parse_iso_date(value)


def iso(day: date | None) -> str | None:
    """``date(2024, 2, 1)`` -> ``2024-02-01``; None stays None."""
    return day.isoformat() if day else None


def format_numeric_date(day: date, separator: str = ". ", zero_pad: bool = False) -> str:
    """The numeric form: ``1. 2. 2024`` (the Czech custom); ``separator="."`` -> ``1.2.2024``; ``zero_pad`` ->
    ``01.02.2024``; ``separator="/"`` with ``zero_pad`` -> ``01/02/2024``."""
    width = 2 if zero_pad else 1
    return separator.join((f"{day.day:0{width}d}", f"{day.month:0{width}d}", str(day.year)))


def numeric_from_iso(value: str | None, default: str = "") -> str:
    """An ISO date as Czech pages show it (``2024-02-01`` -> ``1. 2. 2024``); ``default`` when there is none."""
    day = parse_iso_date(value)
    return format_numeric_date(day) if day else default
