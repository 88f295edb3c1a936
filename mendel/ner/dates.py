"""DATE: Czech calendar dates normalised to ISO 8601.

Forms: ``12. března 2019``, ``12.3.2019``, ``12. 3. 2019``, ``2019-03-12`` -> ``2019-03-12``;
month and year ``březen 2024`` / ``v březnu 2024`` -> ``2024-03``; ranges joined only by a dash or
``až`` (``1.–3. března 2024``, ``1. 1. 2024 – 31. 12. 2024``) are one entity with an ISO interval
norm ``2024-03-01/2024-03-03``. A day and month without a year, a year alone, act numbers
(``89/2012 Sb.``), file numbers and phone numbers are not dates. Rules: ``ner_eval/GUIDELINES.md``.
"""

from __future__ import annotations

import re

from mendel.czech.dates import MONTH_BY_NAME, calendar_date, iso
from mendel.czech.dates import MONTH_NAME_PATTERN as MONTH_NAME
from mendel.ner.spans import whole_surface_norm

DATE = "DATE"

S = r"[ \t\u00a0\u202f]*(?:\n[ \t\u00a0\u202f]*)?"  # optional spacing, at most one line break
DAY = r"(?:0?[1-9]|[12][0-9]|3[01])"
MON = r"(?:0?[1-9]|1[0-2])"
YEAR = r"(?:1[89][0-9]{2}|2[01][0-9]{2})"
LEFT = r"(?<![\w.,/:\-–])"  # not inside a number, a file number or a version
RIGHT = r"(?![0-9/]|[.,][0-9]|\s*Sb\b)"
RANGE_SEP = rf"{S}(?:[-–—]|až){S}"

# one date: day, month (number or name), year; group names are prefixed so that two can share a pattern
NUM_DATE = rf"(?P<{{p}}d>{DAY})\.{S}(?P<{{p}}m>{MON})\.{S}(?P<{{p}}y>{YEAR})"
NAME_DATE = rf"(?P<{{p}}dn>{DAY})\.{S}(?P<{{p}}mn>{MONTH_NAME}){S}(?P<{{p}}yn>{YEAR})"


def _one(prefix: str) -> str:
    return "(?:" + NUM_DATE.replace("{p}", prefix) + "|" + NAME_DATE.replace("{p}", prefix) + ")"


FULL_RE = re.compile(LEFT + _one("a") + RIGHT)
FULL_RANGE_RE = re.compile(LEFT + _one("a") + RANGE_SEP + _one("b") + RIGHT)
# "1.–3. 3. 2024", "1. až 3. března 2024": the first day shares month and year
DAY_RANGE_RE = re.compile(
    rf"{LEFT}(?P<d1>{DAY})\.{RANGE_SEP}(?P<d2>{DAY})\.{S}(?:(?P<m>{MON})\.|(?P<mn>{MONTH_NAME})){S}(?P<y>{YEAR}){RIGHT}"
)
# "1. 3. – 5. 4. 2024", "1. března až 5. dubna 2024": the first date shares the year
DAYMONTH_RANGE_RE = re.compile(
    rf"{LEFT}(?P<d1>{DAY})\.{S}(?:(?P<m1>{MON})\.|(?P<mn1>{MONTH_NAME})){RANGE_SEP}"
    rf"(?P<d2>{DAY})\.{S}(?:(?P<m2>{MON})\.|(?P<mn2>{MONTH_NAME})){S}(?P<y>{YEAR}){RIGHT}"
)
ISO_RE = re.compile(rf"(?<![\w\-/.])(?P<y>{YEAR})-(?P<m>0[1-9]|1[0-2])-(?P<d>0[1-9]|[12][0-9]|3[01])(?![0-9\-/])")
MONTH_YEAR_RE = re.compile(
    rf"(?<![\w.])(?P<mn>{MONTH_NAME}){S}(?:roku{S})?(?P<y>{YEAR})(?![0-9/]|[.,][0-9])"
)  # "v červenci roku 2024"
# "30. 3 2023": the dot after the month left out, only in the spaced form with a four-digit year
NO_MONTH_DOT_RE = re.compile(rf"{LEFT}(?P<d>{DAY})\. (?P<m>{MON}) (?P<y>{YEAR}){RIGHT}")


def _iso(y: str | int, m: str | int, d: str | int) -> str | None:
    return iso(calendar_date(y, m, d))


def _month(num: str | None, name: str | None) -> int:
    return int(num) if num else MONTH_BY_NAME[name]


def _full_norm(m: re.Match, p: str) -> str | None:
    if m.group(p + "d") is not None:
        return _iso(m.group(p + "y"), m.group(p + "m"), m.group(p + "d"))
    return _iso(m.group(p + "yn"), MONTH_BY_NAME[m.group(p + "mn")], m.group(p + "dn"))


def _interval(a: str | None, b: str | None) -> str | None:
    if a and b and a < b:
        return f"{a}/{b}"
    return None


# every range has a day ("1."), a month ("března") or a year ("2024") before its separator and a day after it; a
# file number's list number ("99/2024-53") does not count. Most texts have none, and skip the three range patterns.
SEPARATOR_THEN_DAY_RE = re.compile(rf"(?:[-–—]|až){S}[0-9]")
BEFORE_SEPARATOR_RE = re.compile(rf"(?:(?<![/0-9])(?:[0-9]{{1,2}}\.|[0-9]{{4}})|{MONTH_NAME}){S}$")


def _may_hold_a_range(text: str) -> bool:
    return any(
        BEFORE_SEPARATOR_RE.search(text, max(0, m.start() - 40), m.start())
        for m in SEPARATOR_THEN_DAY_RE.finditer(text)
    )


def date_candidates(text: str):
    """Yield (start, end, DATE, norm)."""
    if _may_hold_a_range(text):
        yield from _range_candidates(text)
    yield from _single_candidates(text)


def _range_candidates(text: str):
    for m in FULL_RANGE_RE.finditer(text):
        norm = _interval(_full_norm(m, "a"), _full_norm(m, "b"))
        if norm:
            yield m.start(), m.end(), DATE, norm
    for m in DAY_RANGE_RE.finditer(text):
        month = _month(m.group("m"), m.group("mn"))
        norm = _interval(_iso(m.group("y"), month, m.group("d1")), _iso(m.group("y"), month, m.group("d2")))
        if norm:
            yield m.start(), m.end(), DATE, norm
    for m in DAYMONTH_RANGE_RE.finditer(text):
        y = m.group("y")
        norm = _interval(
            _iso(y, _month(m.group("m1"), m.group("mn1")), m.group("d1")),
            _iso(y, _month(m.group("m2"), m.group("mn2")), m.group("d2")),
        )
        if norm:
            yield m.start(), m.end(), DATE, norm


def _single_candidates(text: str):
    for m in FULL_RE.finditer(text):
        norm = _full_norm(m, "a")
        if norm:
            yield m.start(), m.end(), DATE, norm
    for m in NO_MONTH_DOT_RE.finditer(text):
        norm = _iso(m.group("y"), m.group("m"), m.group("d"))
        if norm:
            yield m.start(), m.end(), DATE, norm
    for m in ISO_RE.finditer(text):
        norm = _iso(m.group("y"), m.group("m"), m.group("d"))
        if norm:
            yield m.start(), m.end(), DATE, norm
    for m in MONTH_YEAR_RE.finditer(text):
        yield m.start(), m.end(), DATE, f"{m.group('y')}-{MONTH_BY_NAME[m.group('mn')]:02d}"


def normalize_date(surface: str) -> str | None:
    """ISO norm of a date given alone ("12. března 2019" -> "2019-03-12"), else None."""
    return whole_surface_norm(surface, date_candidates)
