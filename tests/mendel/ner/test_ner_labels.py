"""DATE, MONEY and INSTITUTION: table-driven positives, hard negatives, offsets, normalisers, data tables."""

import json

import pytest

from mendel.ner import recognise_text
from mendel.ner.dates import DATE, normalize_date
from mendel.ner.institutions import INSTITUTION, decline, load_gazetteer, normalize_institution
from mendel.ner.money import MONEY, normalize_money
from mendel.ner.patterns import build_patterns, bundled_patterns_path, patterns_filename, render_patterns
from mendel.ner.rules import DECISION_REF, LAW_REF
from tests.support.nightly import expected_entities

L, D, T, M, I = LAW_REF, DECISION_REF, DATE, MONEY, INSTITUTION


expected = expected_entities


def only(labels, ents):
    return [e for e in ents if e.label in labels]


DATE_POSITIVES = [
    ("dne 12. března 2019 rozhodl", [("12. března 2019", T, "2019-03-12")]),
    ("dne 12.3.2019 a 12. 3. 2019", [("12.3.2019", T, "2019-03-12"), ("12. 3. 2019", T, "2019-03-12")]),
    ("od 1. ledna 2024", [("1. ledna 2024", T, "2024-01-01")]),
    ("usnesení ze dne 6. března 2024, sp. zn.", [("6. března 2024", T, "2024-03-06")]),
    ("Nájemné za březen 2024 a v dubnu 2024", [("březen 2024", T, "2024-03"), ("dubnu 2024", T, "2024-04")]),
    ("Výcvik -  únor 2025", [("únor 2025", T, "2025-02")]),
    ("vyhlášky ze dne 09.10.2020", [("09.10.2020", T, "2020-10-09")]),
    ("před 1. říjnem 2026,", [("1. říjnem 2026", T, "2026-10-01")]),
    ('"decision_date": "2024-12-19"', [("2024-12-19", T, "2024-12-19")]),
    ("ve dnech 1.–3. března 2024 proběhne", [("1.–3. března 2024", T, "2024-03-01/2024-03-03")]),
    ("ve dnech 1. až 3. 3. 2024", [("1. až 3. 3. 2024", T, "2024-03-01/2024-03-03")]),
    ("období 1. 1. 2024 – 31. 12. 2024", [("1. 1. 2024 – 31. 12. 2024", T, "2024-01-01/2024-12-31")]),
    ("od 1. března až 5. dubna 2024", [("1. března až 5. dubna 2024", T, "2024-03-01/2024-04-05")]),
    ("od 1. dubna 2026 do 30. června 2026", [("1. dubna 2026", T, "2026-04-01"), ("30. června 2026", T, "2026-06-30")]),
    ("ze dne 12.\n3. 2019", [("12.\n3. 2019", T, "2019-03-12")]),
]

MONEY_POSITIVES = [
    ("pokuta 1 500 Kč", [("1 500 Kč", M, "1500 CZK")]),
    ("částka 1 500,50 Kč", [("1 500,50 Kč", M, "1500.50 CZK")]),
    ("náklad 1,5 mil. Kč a 2 mld. Kč", [("1,5 mil. Kč", M, "1500000 CZK"), ("2 mld. Kč", M, "2000000000 CZK")]),
    ("EUR 300 nebo 300 EUR", [("EUR 300", M, "300 EUR"), ("300 EUR", M, "300 EUR")]),
    ("cena 1.500.000,- Kč", [("1.500.000,- Kč", M, "1500000 CZK")]),
    ("Kč 1 500 celkem", [("Kč 1 500", M, "1500 CZK")]),
    ("pro 3767,98 Kč s příslušenstvím", [("3767,98 Kč", M, "3767.98 CZK")]),
    ("23.401,40 Kč do tří dnů", [("23.401,40 Kč", M, "23401.40 CZK")]),
    ("platba = 48,-Kč +", [("48,-Kč", M, "48 CZK")]),
    ("cena je 629,-\nKč).", [("629,-\nKč", M, "629 CZK")]),
    ("pokutu od10000Kč do 100 000 Kč", [("10000Kč", M, "10000 CZK"), ("100 000 Kč", M, "100000 CZK")]),
    ("stočné 45,51 Kč/m3", [("45,51 Kč", M, "45.51 CZK")]),
    ("155 Kč až 185 Kč", [("155 Kč", M, "155 CZK"), ("185 Kč", M, "185 CZK")]),
    ("10 000 000 EUR a 100 tis. Kč", [("10 000 000 EUR", M, "10000000 EUR"), ("100 tis. Kč", M, "100000 CZK")]),
    ("Nájemné za duben 2020 0 Kč", [("duben 2020", T, "2020-04"), ("0 Kč", M, "0 CZK")]),
    ("dar 5 000 korun českých", [("5 000 korun českých", M, "5000 CZK")]),
]

INSTITUTION_POSITIVES = [
    ("Nejvyšší soud zrušil rozsudek", [("Nejvyšší soud", I, "Nejvyšší soud")]),
    (
        "usnesení Nejvyššího soudu a nález Ústavního soudu",
        [("Nejvyššího soudu", I, "Nejvyšší soud"), ("Ústavního soudu", I, "Ústavní soud")],
    ),
    ("rozsudek NSS 2 Ads 16/2003", [("NSS", I, "Nejvyšší správní soud"), ("2 Ads 16/2003", D, "2 Ads 16/2003")]),
    ("Nejvyššího správního soudu", [("Nejvyššího správního soudu", I, "Nejvyšší správní soud")]),
    (
        "proti rozsudku Krajského soudu v Ústí nad Labem",
        [("Krajského soudu v Ústí nad Labem", I, "Krajský soud v Ústí nad Labem")],
    ),
    (
        "u Okresního soudu v Chomutově a Vrchním soudem v Praze",
        [
            ("Okresního soudu v Chomutově", I, "Okresní soud v Chomutově"),
            ("Vrchním soudem v Praze", I, "Vrchní soud v Praze"),
        ],
    ),
    ("vedené u Obvodního soudu pro Prahu 8", [("Obvodního soudu pro Prahu 8", I, "Obvodní soud pro Prahu 8")]),
    ("u Okresního soudu Plzeň-jih", [("Okresního soudu Plzeň-jih", I, "Okresní soud Plzeň-jih")]),
    (
        "rozsudek Okresniho soudu v Usti nad Labem",
        [("Okresniho soudu v Usti nad Labem", I, "Okresní soud v Usti nad Labem")],
    ),
    ("příslušným soudem je okresní soud", [("okresní soud", I, "okresní soud")]),
    (
        "Soudní dvůr Evropské unie a ESLP",
        [("Soudní dvůr Evropské unie", I, "Soudní dvůr Evropské unie"), ("ESLP", I, "Evropský soud pro lidská práva")],
    ),
    (
        "Ministerstvem financí, Ministerstva vnitra ČR a MŠMT",
        [
            ("Ministerstvem financí", I, "Ministerstvo financí"),
            ("Ministerstva vnitra ČR", I, "Ministerstvo vnitra"),
            ("MŠMT", I, "Ministerstvo školství, mládeže a tělovýchovy"),
        ],
    ),
    (
        "Ministerstvo práce a sociálních věcí stanoví",
        [("Ministerstvo práce a sociálních věcí", I, "Ministerstvo práce a sociálních věcí")],
    ),
    (
        "Česká národní banka, České národní bance, ČNB",
        [
            ("Česká národní banka", I, "Česká národní banka"),
            ("České národní bance", I, "Česká národní banka"),
            ("ČNB", I, "Česká národní banka"),
        ],
    ),
    (
        "Finančnímu úřadu pro Ústecký kraj a Generálnímu finančnímu ředitelství",
        [
            ("Finančnímu úřadu pro Ústecký kraj", I, "Finanční úřad pro Ústecký kraj"),
            ("Generálnímu finančnímu ředitelství", I, "Generální finanční ředitelství"),
        ],
    ),
    (
        "Katastrální úřad pro Ústecký kraj a ČÚZK",
        [
            ("Katastrální úřad pro Ústecký kraj", I, "Katastrální úřad pro Ústecký kraj"),
            ("ČÚZK", I, "Český úřad zeměměřický a katastrální"),
        ],
    ),
    (
        "Českého úřadu zeměměřického a katastrálního",
        [("Českého úřadu zeměměřického a katastrálního", I, "Český úřad zeměměřický a katastrální")],
    ),
    (
        "stížnost k Úřadu pro ochranu osobních údajů",
        [("Úřadu pro ochranu osobních údajů", I, "Úřad pro ochranu osobních údajů")],
    ),
    (
        "volby do Poslanecké sněmovny a do Senátu",
        [("Poslanecké sněmovny", I, "Poslanecká sněmovna"), ("Senátu", I, "Senát")],
    ),
    ("stanoví vláda nařízením", [("vláda", I, "vláda")]),
    (
        "na obecním úřadu; Zastupitelstvo obce Blešno",
        [("obecním úřadu", I, "obecní úřad"), ("Zastupitelstvo obce Blešno", I, "Zastupitelstvo obce Blešno")],
    ),
    ("Město Kadaň - MÚ - odbor dopravy", [("Město Kadaň", I, "město Kadaň"), ("MÚ", I, "městský úřad")]),
    ("z rozpočtu města Kadaně", [("města Kadaně", I, "město Kadaň")]),
    ("Statutární město Kladno - Veřejná vyhláška", [("Statutární město Kladno", I, "statutární město Kladno")]),
    (
        "KÚÚK - zasedání Zastupitelstva Ústeckého kraje",
        [
            ("KÚÚK", I, "Krajský úřad Ústeckého kraje"),
            ("Zastupitelstva Ústeckého kraje", I, "Zastupitelstvo Ústeckého kraje"),
        ],
    ),
    ("Újezdní úřad Hradiště", [("Újezdní úřad Hradiště", I, "Újezdní úřad Hradiště")]),
    ("ZO rozhodlo zavést", [("ZO", I, "zastupitelstvo obce")]),
]


@pytest.mark.parametrize(
    "text,items",
    DATE_POSITIVES + MONEY_POSITIVES + INSTITUTION_POSITIVES,
    ids=[t[:40] for t, _ in DATE_POSITIVES + MONEY_POSITIVES + INSTITUTION_POSITIVES],
)
def test_positive(text, items):
    assert recognise_text(text) == expected(text, items)


HARD_NEGATIVES = [
    # (text, labels that must not appear)
    ("zákon č. 89/2012 Sb. a vyhláška č. 12/2019 Sb.", {T, M}),  # act numbers are not dates or amounts
    ("sp. zn. 22 Cdo 2191/2002 a 29 NSČR 51/2013", {T, M}),  # file numbers
    ("103/05/2020 schvaluje; rozpočtové opatření č. 1/2023", {T}),  # resolution numbers
    ("telefonicky na čísle 495 428 270 nebo +420 777 123 456, PSČ 110 00", {T, M}),  # phone numbers
    ("IČO 25788001, parcely č. 913/11", {T, M}),
    ("na rok 2020, za rok 2021, Střednědobý výhled 2023-2024", {T}),  # a year alone
    ("do 31. prosince a 12. 3.", {T}),  # no year: no ISO date
    ("dne 31. 2. 2020 a 32.1.2020", {T}),  # impossible dates
    ("verze 1.2.2020.1 a bod 3.2.2020.5", {T}),  # numbering, not dates
    ("2002-26 Cdo 560/2000", {T}),
    ("10.000 bez DPH; ve výši 5 procent; 36m3 /12", {M}),  # no currency
    ("č. j. ČTÚ-31 966/2025-631/SzS", {I, M}),  # an authority's č. j. prefix is not the authority
    ("726/2005 Sb. NSS", {I}),  # the court's collection
    ("v senátě složeném z předsedy; soud prvního stupně; odvolací soud; dovolací soud", {I}),
    ("v obci Blešno, do obce Útočiště, mimo hlavní město Prahu, na území hlavního města Prahy", {I}),
    ("Exekutorský úřad Praha 6; ministerstvo stanoví vyhláškou", {I}),
]


@pytest.mark.parametrize("text,labels", HARD_NEGATIVES, ids=[t[:30] for t, _ in HARD_NEGATIVES])
def test_hard_negatives(text, labels):
    assert only(labels, recognise_text(text)) == []


def test_cj_versus_c():
    text = "č. j. 206 ICm 1324/2022-13 a zákon č. 89/2012 Sb. ze dne 3. února 2012"
    assert [(e.text, e.label, e.norm) for e in recognise_text(text)] == [
        ("206 ICm 1324/2022-13", D, "206 ICm 1324/2022"),
        ("zákon č. 89/2012 Sb.", L, "89/2012 Sb."),
        ("3. února 2012", T, "2012-02-03"),
    ]


def test_explicit_offsets_across_labels():
    text = "Nejvyšší soud dne 12. 3. 2019 přiznal 1 500 Kč podle § 5 zákona č. 89/2012 Sb."
    ents = recognise_text(text)
    assert [(e.start, e.end, e.label, e.norm) for e in ents] == [
        (0, 13, I, "Nejvyšší soud"),
        (18, 29, T, "2019-03-12"),
        (38, 46, M, "1500 CZK"),
        (53, 78, L, "89/2012 Sb. § 5"),
    ]
    assert all(text[e.start : e.end] == e.text for e in ents)


def test_dates_and_amounts_inside_law_refs_do_not_overlap():
    text = "nařízení Evropského parlamentu a Rady (EU) 2016/679 ze dne 27. dubna 2016 a vyhlášky Ministerstva zemědělství č. 428/2001 Sb."
    ents = recognise_text(text)
    assert [(e.label, e.text) for e in ents] == [
        (L, "nařízení Evropského parlamentu a Rady (EU) 2016/679"),
        (T, "27. dubna 2016"),
        (L, "vyhlášky Ministerstva zemědělství č. 428/2001 Sb."),
    ]


@pytest.mark.parametrize(
    "surface,norm",
    [
        ("12. března 2019", "2019-03-12"),
        (" 12.3.2019 ", "2019-03-12"),
        ("březen 2024", "2024-03"),
        ("1.–3. března 2024", "2024-03-01/2024-03-03"),
        ("2024-02-29", "2024-02-29"),
        ("2023-02-29", None),
        ("89/2012", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_date(surface, norm):
    assert normalize_date(surface) == norm


@pytest.mark.parametrize(
    "surface,norm",
    [
        ("1 500 Kč", "1500 CZK"),
        ("1 500,50 Kč", "1500.50 CZK"),
        ("1,5 mil. Kč", "1500000 CZK"),
        ("2 mld. Kč", "2000000000 CZK"),
        ("EUR 300", "300 EUR"),
        ("300 EUR", "300 EUR"),
        ("1.500.000,- Kč", "1500000 CZK"),
        ("Kč 1 500", "1500 CZK"),
        ("1 500", None),
        ("Kč", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_money(surface, norm):
    assert normalize_money(surface) == norm


@pytest.mark.parametrize(
    "surface,norm",
    [
        ("Nejvyššího soudu", "Nejvyšší soud"),
        ("Ministerstvem financí", "Ministerstvo financí"),
        ("Českou národní bankou", "Česká národní banka"),
        ("krajského soudu", "krajský soud"),
        ("Krajským soudem v Brně", "Krajský soud v Brně"),
        ("města Kadaně", "město Kadaň"),
        ("soud", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_institution(surface, norm):
    assert normalize_institution(surface) == norm


def test_declension():
    assert decline("Nejvyšší správní soud")[:3] == [
        "Nejvyšší správní soud",
        "Nejvyššího správního soudu",
        "Nejvyššímu správnímu soudu",
    ]
    assert "České národní bance" in decline("Česká národní banka")
    assert "Poslaneckou sněmovnou" in decline("Poslanecká sněmovna")
    assert "Ministerstvem pro místní rozvoj" in decline("Ministerstvo pro místní rozvoj")
    assert "Generálním finančním ředitelstvím" in decline("Generální finanční ředitelství")


def test_gazetteer_covers_the_issue_list():
    gaz = load_gazetteer()
    names = {inst.name for inst in gaz.institutions}
    ministries = {n for n in names if n.startswith("Ministerstvo")}
    assert len(ministries) >= 14
    for name in (
        "Nejvyšší soud",
        "Ústavní soud",
        "Nejvyšší správní soud",
        "Krajský soud",
        "Okresní soud",
        "Městský soud",
        "Soudní dvůr Evropské unie",
        "Česká národní banka",
        "Finanční úřad",
        "Generální finanční ředitelství",
        "Český úřad zeměměřický a katastrální",
        "Katastrální úřad",
        "Úřad pro ochranu osobních údajů",
        "Poslanecká sněmovna",
        "Senát",
        "vláda",
        "Obecní úřad",
        "Městský úřad",
        "zastupitelstvo obce",
    ):
        assert name in names, name
    assert {"Blešno", "Kadaň", "Děčany"} <= set(gaz.municipalities)


def test_pattern_file_is_generated_from_the_gazetteer():
    path = bundled_patterns_path()
    assert path.name == patterns_filename() == f"institutions.v{load_gazetteer().version}.jsonl"
    assert path.read_text(encoding="utf-8") == render_patterns(), "run: python -m mendel.ner.patterns"
    patterns = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert patterns == build_patterns()
    by_text = {p["pattern"]: p["id"] for p in patterns}
    assert by_text["Nejvyššího soudu"] == "Nejvyšší soud" and by_text["Magistrátu"] == "Magistrát"
    assert "ČNB" not in by_text  # abbreviations are literal: read from the yaml table
    assert all(p["label"] == INSTITUTION for p in patterns)
    names = [inst.name for inst in load_gazetteer().institutions]
    assert len(set(names)) == len(names)  # the pattern id names one institution
    assert [p["id"] for p in patterns] == sorted((p["id"] for p in patterns), key=names.index)  # gazetteer order


def test_institution_forms_across_line_breaks():
    # PDF text breaks lines inside names; the norm must still come out single-spaced (regression: KeyError).
    text = "Rozhodl Magistrát hlavního\nměsta Prahy, o čemž zastupitelstvo hlavního\nměsta Prahy ví."
    found = [(e.text, e.norm) for e in recognise_text(text) if e.label == "INSTITUTION"]
    assert ("Magistrát hlavního\nměsta Prahy", "Magistrát hlavního města Prahy") in found
    assert all("\n" not in norm for _, norm in found)
