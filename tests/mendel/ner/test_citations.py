"""Acts as texts cite them: the writing variants of court decisions and the acts table's names in every case."""

from __future__ import annotations

import pytest

from mendel.ner import recognise_text


def law_refs(text: str) -> list[tuple[str, str]]:
    return [(e.text, e.norm) for e in recognise_text(text) if e.label == "LAW_REF"]


@pytest.mark.parametrize(
    "text, found",
    [
        ("§ 142 z. č. 99/1963 Sb.", [("§ 142 z. č. 99/1963 Sb.", "99/1963 Sb. § 142")]),
        ("podle zák. č. 262/2006 Sb. a", [("zák. č. 262/2006 Sb.", "262/2006 Sb.")]),
        ("dle vyhl. č. 177/1996 Sb.", [("vyhl. č. 177/1996 Sb.", "177/1996 Sb.")]),
        ("zákona č. 89/2012 sb., občanský", [("zákona č. 89/2012 sb.", "89/2012 Sb.")]),
        ("zákona 235/2004 Sbírky, o této dani", [("zákona 235/2004 Sbírky", "235/2004 Sb.")]),
        ("zákona číslo 89/2012 Sb., občanského", [("zákona číslo 89/2012 Sb.", "89/2012 Sb.")]),
        ("§ 2 nařízení vlády číslo 351/2013 Sb.", [("§ 2 nařízení vlády číslo 351/2013 Sb.", "351/2013 Sb. § 2")]),
        ("§ 2 vládního nařízení č. 351/2013 Sb.", [("§ 2 vládního nařízení č. 351/2013 Sb.", "351/2013 Sb. § 2")]),
        ("§ 2 NV č. 351/2013 Sb. (v platném", [("§ 2 NV č. 351/2013 Sb.", "351/2013 Sb. § 2")]),
        (
            "§ 2 prováděcího nařízení vlády č. 351/2013 Sb.",
            [("§ 2 prováděcího nařízení vlády č. 351/2013 Sb.", "351/2013 Sb. § 2")],
        ),
        ("zákona č. 89/2012, Sb. Občanského", [("zákona č. 89/2012, Sb.", "89/2012 Sb.")]),
        ("zákona č. 321/2001 o spotřebitelském úvěru", [("zákona č. 321/2001", "321/2001 Sb.")]),
        (
            "§ 49 odst. 3 vyhlášky Ministerstva dopravy a spojů č. 175/2000 Sb.",
            [("§ 49 odst. 3 vyhlášky Ministerstva dopravy a spojů č. 175/2000 Sb.", "175/2000 Sb. § 49 odst. 3")],
        ),
        ("podle o.s.ř.6. O lhůtě", [("o.s.ř.", "99/1963 Sb.")]),
        # an appositive short name the table gives another act is this act's own title
        (
            "zákona č. 40/1964 Sb., občanský zákoník, ve znění",
            [("zákona č. 40/1964 Sb., občanský zákoník", "40/1964 Sb.")],
        ),
        ("§ 149 odst. 1 o. s. ř.6. O lhůtě", [("§ 149 odst. 1 o. s. ř.", "99/1963 Sb. § 149 odst. 1")]),
    ],
)
def test_writing_variants(text, found):
    assert law_refs(text) == found


@pytest.mark.parametrize(
    "text, citation",
    [
        ("advokátního tarifu", "177/1996 Sb."),
        ("advokátním tarifem", "177/1996 Sb."),
        ("zákona o soudních poplatcích", "549/1991 Sb."),
        ("zákonem o soudních poplatcích", "549/1991 Sb."),
        ("občanského soudního řádu", "99/1963 Sb."),
        ("občanským soudním řádem", "99/1963 Sb."),
        ("trestního řádu", "141/1961 Sb."),
        ("insolvenčního zákona", "182/2006 Sb."),
        ("exekučním řádem", "120/2001 Sb."),
        ("zákoníkem práce", "262/2006 Sb."),
        ("soudního řádu správního", "150/2002 Sb."),
        ("trestním zákoníkem", "40/2009 Sb."),
        ("zákona o obchodních korporacích", "90/2012 Sb."),
        ("správního řádu", "500/2004 Sb."),
        ("zákona o odpovědnosti za přestupky a řízení o nich", "250/2016 Sb."),
        ("zákona o silničním provozu", "361/2000 Sb."),
        ("daňového řádu", "280/2009 Sb."),
        ("zákona o dani z přidané hodnoty", "235/2004 Sb."),
        ("zákona o pojistné smlouvě", "37/2004 Sb."),
        ("zákona o zvláštních řízeních soudních", "292/2013 Sb."),
        ("obchodního zákoníku", "513/1991 Sb."),
        ("Úmluvy o ochraně lidských práv a základních svobod", "209/1992 Sb."),
    ],
)
def test_acts_by_title_in_any_case(text, citation):
    assert law_refs(f"podle {text} platí") == [(text, citation)]


def test_an_adjective_before_a_cited_act_stays_outside():
    assert law_refs("(atomový zákon č.18/97 Sb.)") == [("zákon č.18/97 Sb.", "18/1997 Sb.")]


def test_a_defined_abbreviation_is_not_marked_where_it_is_defined():
    assert law_refs("(dále jen „o. s. ř.“)") == []


@pytest.mark.parametrize(
    "text, found",
    [
        # the number mark as typed: doubled, or without its dot
        (
            "Dle § 3028 odst. 3 z. č. č. 89/2012 Sb. účinného",
            [("§ 3028 odst. 3 z. č. č. 89/2012 Sb.", "89/2012 Sb. § 3028 odst. 3")],
        ),
        ("Podle § 47 zák.č 91/2012 Sb. nestanoví-li", [("§ 47 zák.č 91/2012 Sb.", "91/2012 Sb. § 47")]),
        ("dle vyhlášky č 254/2015 Sb. (a to", [("vyhlášky č 254/2015 Sb.", "254/2015 Sb.")]),
        # an issuer the anonymiser took for a party, right before the number mark
        (
            "Podle § 5 vyhlášky , právnická osoba,  č. 69/2024 Sb. denní",
            [("§ 5 vyhlášky , právnická osoba,  č. 69/2024 Sb.", "69/2024 Sb. § 5")],
        ),
        ("§ 2a vyhlášky výše nákladů , právnická osoba, spojených", [("§ 2a", "§ 2a")]),
        # a "č" is no number mark by itself, nor before a word
        ("položka č 5 a č. 6", []),
        ("zákona čl. 5/2000", []),
    ],
)
def test_the_number_mark_as_typed_and_an_anonymised_issuer(text, found):
    assert law_refs(text) == found


@pytest.mark.parametrize(
    "text, found",
    [
        # an abbreviation of two or more dotted parts typed without its last dot, as a whole token
        ("ve smyslu § 118a o. s. ř, když", [("§ 118a o. s. ř", "99/1963 Sb. § 118a")]),
        ("podle § 132 o.s.ř byl", [("§ 132 o.s.ř", "99/1963 Sb. § 132")]),
        ("§ 2395 a násl. o. z a § 104", [("§ 2395 a násl. o. z", "89/2012 Sb. § 2395"), ("§ 104", "§ 104")]),
        ("podle tr. ř, a", [("tr. ř", "141/1961 Sb.")]),
        # not inside a longer word, and a strict one stays strict
        ("o. s. řízení", []),
        ("dopis o. z a", []),
    ],
)
def test_an_abbreviation_without_its_last_dot(text, found):
    assert law_refs(text) == found
