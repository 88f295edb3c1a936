"""A shared name or abbreviation of a code in a wording dated before the code took effect names the code it
replaced."""

from __future__ import annotations

import datetime as dt

import pytest

from mendel.ner import recognise_text
from mendel.ner.dated_wording import act_in_force, successions, wording_date


def law_norms(text: str) -> list[str]:
    return [norm for e in recognise_text(text) if e.label == "LAW_REF" for norm in e.norms]


@pytest.mark.parametrize(
    "text, norms",
    [
        # dated before the successor took effect: the code it replaced
        ("§ 150 odst. 4 obč. zák. ve znění od 01.08.1998", ["40/1964 Sb. § 150 odst. 4"]),
        ("§ 134 obč. zák. ve znění účinném do 31. 12. 2013", ["40/1964 Sb. § 134"]),
        ("§ 39 a 41 obč. zák., ve znění platném ke dni 1. 6. 2005", ["40/1964 Sb. § 39", "40/1964 Sb. § 41"]),
        ("§ 250 tr. zák. ve znění účinném do 31. prosince 2009", ["140/1961 Sb. § 250"]),
        ("§ 66 ZOK ve znění účinném k 1. 1. 2013", ["513/1991 Sb. § 66"]),
        ("podle obč. zák. ve znění od 1. 8. 1998 platí", ["40/1964 Sb."]),
        # dated on or after the day it took effect, or not dated: the successor
        ("§ 2395 obč. zák. ve znění účinném od 1. 1. 2014", ["89/2012 Sb. § 2395"]),
        ("§ 209 tr. zák. ve znění účinném do 31. 12. 2010", ["40/2009 Sb. § 209"]),
        ("§ 2395 obč. zák. ve znění pozdějších předpisů", ["89/2012 Sb. § 2395"]),
        ("§ 2395 obč. zák. platí", ["89/2012 Sb. § 2395"]),
        # a number written is the act whatever the date; an act without a successor keeps its citation
        ("§ 2395 zákona č. 89/2012 Sb. ve znění do 31. 12. 2013", ["89/2012 Sb. § 2395"]),
        ("§ 142 o. s. ř. ve znění účinném do 31. 12. 2013", ["99/1963 Sb. § 142"]),
    ],
)
def test_a_dated_wording_names_the_code_in_force_then(text, norms):
    assert law_norms(text) == norms


@pytest.mark.parametrize(
    "after, date",
    [
        (" ve znění od 01.08.1998", dt.date(1998, 8, 1)),
        (", ve znění účinném do 31. 12. 2013", dt.date(2013, 12, 31)),
        (" (ve znění platném a účinném k 1. lednu 2010)", dt.date(2010, 1, 1)),
        (" v tehdy účinném znění ke dni 1. června 2005", dt.date(2005, 6, 1)),
        (" ve znění pozdějších předpisů", None),
        (" ve znění zákona č. 367/2000 Sb.", None),
        (" platí od 1. 1. 2010", None),
    ],
)
def test_the_date_of_a_wording(after, date):
    assert wording_date("obč. zák." + after, len("obč. zák.")) == date


def test_the_table_pairs_each_successor_with_the_code_it_replaced():
    table = successions()
    assert {c: (s.predecessor, s.effective.isoformat()) for c, s in table.items()} == {
        "89/2012 Sb.": ("40/1964 Sb.", "2014-01-01"),
        "90/2012 Sb.": ("513/1991 Sb.", "2014-01-01"),
        "40/2009 Sb.": ("140/1961 Sb.", "2010-01-01"),
    }
    assert act_in_force("99/1963 Sb.", " ve znění od 1. 1. 1990", 0) == "99/1963 Sb."
