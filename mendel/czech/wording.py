"""Dates, counts, numbers and postcodes written the Czech way, for text generated from records."""

from __future__ import annotations

from datetime import date

from mendel.czech.dates import MONTH_FORMS, parse_iso_date

_MONTH_GENITIVE = {number: forms[0] if number == 9 else forms[1] for number, forms in MONTH_FORMS.items()}


def worded_date(value) -> str:
    """``2026-01-01`` → ``1. ledna 2026``."""
    day = value if isinstance(value, date) else parse_iso_date(value)
    if day is None:
        return ""
    return f"{day.day}. {_MONTH_GENITIVE[day.month]} {day.year}"


def numeric_date(value) -> str:
    day = value if isinstance(value, date) else parse_iso_date(value)
    return f"{day.day}. {day.month}. {day.year}" if day else ""


def both_dates(value) -> str:
    """``1. ledna 2026 (1. 1. 2026)``: people ask either way."""
    return f"{worded_date(value)} ({numeric_date(value)})" if value else ""


def plural(count: int, one: str, few: str, many: str) -> str:
    """``1 adresní místo``, ``3 adresní místa``, ``221 adresních míst``."""
    form = one if count == 1 else few if 2 <= count <= 4 else many
    return f"{number(count)} {form}"


def number(count: int) -> str:
    """``4321`` → ``4 321`` (Czech digit grouping)."""
    return f"{count:,}".replace(",", " ")


def postcode(value: str) -> str:
    """``41115`` → ``411 15 (41115)``: written the Czech way and as the register holds it."""
    digits = (value or "").strip()
    return f"{digits[:3]} {digits[3:]} ({digits})" if len(digits) == 5 and digits.isdigit() else digits


def full_stop(text: str) -> str:
    """``text`` ended as a sentence: one full stop, none added after one it ends with already ("… 175/2026 Sb.")."""
    return text if text.rstrip().endswith((".", "?", "!")) else text + "."
