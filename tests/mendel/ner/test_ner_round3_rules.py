"""The rules added for the third gold round: each row is a real snippet of the sample corpus (court CSVs,
OCR'd Blešno scans, Sbírka PDFs, the Constitution, NS decisions) with what it must and must not yield."""

import pytest

from mendel.ner import recognise_text
from mendel.ner.rules import DECISION_REF, LAW_REF
from tests.support.nightly import expected_entities as expected

L, D, T, M, I = LAW_REF, DECISION_REF, "DATE", "MONEY", "INSTITUTION"

POSITIVES = [
    # MONEY
    ("ve veci zaplaceni castky Kc 987 000", [("Kc 987 000", M, "987000 CZK")]),  # ASCII-folded "Kč"
    ("Pardubicky kraj - 100 951 000 Kc Kraj Vysocina", [("100 951 000 Kc", M, "100951000 CZK")]),
    ("díla vč. DPH: 266.143,52- Kč", [("266.143,52- Kč", M, "266143.52 CZK")]),
    (
        "6 2021| 1080 000 Kč 90 000 Kč\n7 2022| 1 080 000 Kč",
        [("90 000 Kč", M, "90000 CZK"), ("1 080 000 Kč", M, "1080000 CZK")],
    ),
    ("RAMET 185 369,00 Kč 24 330", [("185 369,00 Kč", M, "185369 CZK")]),  # the currency closes the amount
    ("dar 5 000 korun českých", [("5 000 korun českých", M, "5000 CZK")]),
    # DATE
    ("V doplnění ze dne 30. 3 2023 pak uvádějí", [("30. 3 2023", T, "2023-03-30")]),
    ("přesně nezjištěného dne v červenci roku 2024 v XY", [("červenci roku 2024", T, "2024-07")]),
    # DECISION_REF
    ("sp. zn. 8 Tdo1283/2009", [("8 Tdo1283/2009", D, "8 Tdo 1283/2009")]),
    ("c. j. KSOS 40 INS 27781/2016-B14", [("KSOS 40 INS 27781/2016-B14", D, "KSOS 40 INS 27781/2016")]),
    ("c. j. KSBR 28 INS 5238/2011-A-11", [("KSBR 28 INS 5238/2011-A-11", D, "KSBR 28 INS 5238/2011")]),
    (
        "43 Cad 113/2003-40; sp. zn. 35 D 2844/95; c. j. 10 K 24/96-47; Spr 3431/2003",
        [
            ("43 Cad 113/2003-40", D, "43 Cad 113/2003"),
            ("35 D 2844/95", D, "35 D 2844/1995"),
            ("10 K 24/96-47", D, "10 K 24/1996"),
            ("Spr 3431/2003", D, "Spr 3431/2003"),
        ],
    ),
    # INSTITUTION
    ("ConCo,NS 21 Cdo 2785/2014", [("NS", I, "Nejvyšší soud"), ("21 Cdo 2785/2014", D, "21 Cdo 2785/2014")]),
    ("Pavel Janko, místostarosta ZO Blešno", [("ZO Blešno", I, "Zastupitelstvo obce Blešno")]),
    ("VoIP: +420 491 110 974 Obec Blesno", [("Obec Blesno", I, "obec Blešno")]),
    (
        "Výsledky hlasování do zastupitelstva\nKrálovéhradeckého kraje 2020",
        [("zastupitelstva\nKrálovéhradeckého kraje", I, "Zastupitelstvo Královéhradeckého kraje")],
    ),
    (
        "ÚSTAVNÍ ZÁKON\nČeské národní rady\nČeská národní rada se usnesla",
        [("České národní rady", I, "Česká národní rada"), ("Česká národní rada", I, "Česká národní rada")],
    ),
    (
        "stezovatelka proti usneseni Nejvyssiho soudu CR c.j. 32 Odo 1156/2003-108",
        [("Nejvyssiho soudu CR", I, "Nejvyšší soud"), ("32 Odo 1156/2003-108", D, "32 Odo 1156/2003")],
    ),
    ("kolaudačního rozhodnutí Městského úřadu XY, odboru výstavby", [("Městského úřadu XY", I, "Městský úřad XY")]),
    # LAW_REF
    (
        "uzavřené dne 5. 9. 2017 podle ustanovení § 2586 a následujících občanského zákoníku č.\n\n89/2012 Sb., v",
        [
            ("5. 9. 2017", T, "2017-09-05"),
            ("§ 2586 a následujících občanského zákoníku č.\n\n89/2012 Sb.", L, "89/2012 Sb. § 2586"),
        ],
    ),
    ("dle přílohy č. 12\nk vyhlášce č. 428/2001 Sb.) přičemž", [("vyhlášce č. 428/2001 Sb.", L, "428/2001 Sb.")]),
    (
        "ve smyslu ustanovení § 12 odst. 3 ZVZ postupem mimo režim ZVZ",
        [("§ 12 odst. 3 ZVZ", L, "137/2006 Sb. § 12 odst. 3"), ("ZVZ", L, "137/2006 Sb.")],
    ),
    (
        "Usnesení podle § 114b odst. 1 o\u2024 s. ř. je právním prostředkem",
        [("§ 114b odst. 1 o\u2024 s. ř.", L, "99/1963 Sb. § 114b odst. 1")],
    ),
    (
        "podle čl. 4 bodu 18\nobecného nařízení o ochraně osobních údajů2), do výše",
        [("čl. 4 bodu 18\nobecného nařízení o ochraně osobních údajů", L, "nařízení (EU) 2016/679 čl. 4 bod 18")],
    ),
    (
        "(§ 243g odst. 1 část věty první za středníkem, § 226 o. s. ř.)",
        [("§ 243g odst. 1 část věty první za středníkem, § 226 o. s. ř.", L, "99/1963 Sb. § 243g odst. 1")],
    ),
    (
        "§ 83 odst. 4 písm. a) zákona o nemocenském pojištění obdobně",
        [("§ 83 odst. 4 písm. a) zákona o nemocenském pojištění", L, "187/2006 Sb. § 83 odst. 4 písm. a)")],
    ),
]


@pytest.mark.parametrize("text,items", POSITIVES, ids=[t[:40] for t, _ in POSITIVES])
def test_positive(text, items):
    assert recognise_text(text) == expected(text, items)


NEGATIVES = [
    # (text, labels that must not appear)
    ("Čl. 33\n(1) Dojde-li k rozpuštění Poslanecké sněmovny", {L}),  # an article heading before "(1)"
    ("93. § 64 včetně nadpisu zní:\n„§ 64\nPřestupek na úseku voleb", None),  # a quoted heading: one entity only
    ("v rámci článku IV. odst. IV.1 smlouvy, dohodly", {L}),  # a contract's article
    ("Drápal, Ljubomír, Bureš, Jaroslav a kol. Občanský soudní řád I, 1. vydání. Praha", {L}),  # a book title
    (
        "Sbirka nalezu a usneseni Ustavniho soudu svazek c. 23; publikovany ve Sbirce nalezu a usneseni "
        "Ustavniho soudu svazek 54",
        {I},
    ),  # a collection's title names no authority
    ("rozhodnuti ESLP ve veci Volesky proti Ceske republice Prehled rozsudku ESLP c. 5/2004", None),
    ("Rozsudek Okresního soudu pro okres Harford ( The Circuit Court for Harford County )", {I}),  # a foreign court
    ("1 2016| 1020000 Kč 85 000 Kč\n2 2017| 1020 000 Kč 85 000 Kč", None),  # no "000 Kč" nor "Kč 85 000"
    ("Svozový plán pro rok 2019\n1. 3.1. žlutá\n2. 9.1. červená\n5. 30.1. žlutá", {T, L}),  # no year: no date
    ("sp. zn. VV/41668/01/R 1850/Kc/01; ČS a.s., č. účtu: 1080855379/0800", {M, D}),
]


@pytest.mark.parametrize("text,labels", NEGATIVES, ids=[t[:30] for t, _ in NEGATIVES])
def test_negative(text, labels):
    entities = recognise_text(text)
    if labels:
        assert not [e for e in entities if e.label in labels], entities
    elif text.startswith("93."):
        assert [(e.text, e.norm) for e in entities] == [("§ 64", "§ 64")]
    elif "ESLP" in text:
        assert [e.text for e in entities if e.label == I] == ["ESLP"]  # the court, not the collection's title
    else:
        assert [(e.text, e.norm) for e in entities] == [
            ("1020000 Kč", "1020000 CZK"),
            ("85 000 Kč", "85000 CZK"),
            ("85 000 Kč", "85000 CZK"),
        ]
