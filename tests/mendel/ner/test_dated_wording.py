"""A shared name or abbreviation of a code in a wording dated before the code took effect, or in a decision decided
before then, names the code it replaced."""

from __future__ import annotations

import datetime as dt

import pytest

from mendel.ner import recognise, recognise_text
from mendel.ner.dated_wording import act_in_force, successions, wording_date
from mendel.ner.document_acts import DocumentActs


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
    "text, decided, norms",
    [
        # a form both codes go by, in a decision decided before the successor took effect: the code it replaced
        ("Podle § 134 obč. zák. je smlouva neplatná.", dt.date(2005, 3, 1), ["40/1964 Sb. § 134"]),
        ("§ 3 odst. 1 občanského zákoníku", dt.date(2013, 12, 31), ["40/1964 Sb. § 3 odst. 1"]),
        ("podle § 36 tr. zák. soud uložil", dt.date(2009, 12, 31), ["140/1961 Sb. § 36"]),
        ("v rozporu s občanským zákoníkem", dt.date(2001, 1, 1), ["40/1964 Sb."]),
        ("podle § 190 odst. 1 zák. práce", dt.date(2005, 6, 1), ["65/1965 Sb. § 190 odst. 1"]),
        ("podle § 52 zákoníku práce", dt.date(2006, 12, 31), ["65/1965 Sb. § 52"]),
        ("podle § 52 zákoníku práce", dt.date(2007, 1, 1), ["262/2006 Sb. § 52"]),
        # decided on or after the day it took effect, or no date: the successor
        ("Podle § 134 obč. zák. je smlouva neplatná.", dt.date(2014, 1, 1), ["89/2012 Sb. § 134"]),
        ("podle § 36 tr. zák. soud uložil", dt.date(2010, 1, 1), ["40/2009 Sb. § 36"]),
        ("podle § 36 tr. zák. soud uložil", None, ["40/2009 Sb. § 36"]),
        # a form of the newer code alone, a number, a dated wording: as written, whatever the decision's date
        ("podle § 205 tr. zákoníku", dt.date(2009, 6, 1), ["40/2009 Sb. § 205"]),
        ("podle nového občanského zákoníku", dt.date(2013, 6, 1), ["89/2012 Sb."]),
        ("§ 5 zákona č. 89/2012 Sb.", dt.date(2013, 6, 1), ["89/2012 Sb. § 5"]),
        ("§ 150 obč. zák. ve znění účinném od 1. 1. 2014", dt.date(2005, 3, 1), ["89/2012 Sb. § 150"]),
        ("podle § 66 ZOK", dt.date(2005, 3, 1), ["90/2012 Sb. § 66"]),
    ],
)
def test_a_decision_names_the_code_in_force_when_it_was_decided(text, decided, norms):
    entities = recognise([text], documents=[DocumentActs(decided=decided)])[0]
    assert [norm for e in entities if e.label == "LAW_REF" for norm in e.norms] == norms


def test_a_form_the_document_bound_keeps_its_act_whatever_the_date():
    text = "zákona č. 89/2012 Sb., občanský zákoník (dále jen „OZ“). Podle § 3 OZ platí."
    entities = recognise([text], documents=[DocumentActs(decided=dt.date(2013, 6, 1))])[0]
    assert "89/2012 Sb. § 3" in [norm for e in entities if e.label == "LAW_REF" for norm in e.norms]


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
        "262/2006 Sb.": ("65/1965 Sb.", "2007-01-01"),
    }
    assert act_in_force("99/1963 Sb.", " ve znění od 1. 1. 1990", 0) == "99/1963 Sb."
