import random
import time

import pytest

from mendel.ner import recognise_text
from mendel.ner.rules import DECISION_REF, LAW_REF, eli_for
from tests.support.nightly import expected_entities

L, D = LAW_REF, DECISION_REF


expected = expected_entities


POSITIVES = [
    # provision chains
    ("podle § 7 odst. 3 až 5 a § 19 odst. 5 platí", [("§ 7 odst. 3 až 5 a § 19 odst. 5", L, "§ 7 odst. 3")]),
    ("viz §24 odst.3 písm. a/", [("§24 odst.3 písm. a/", L, "§ 24 odst. 3 písm. a)")]),
    (
        "v § 88 odst. 2 písm. b) bodech 1 až 6,",
        [("§ 88 odst. 2 písm. b) bodech 1 až 6", L, "§ 88 odst. 2 písm. b) bod 1")],
    ),
    ("V § 53 odst. 1 větě poslední se", [("§ 53 odst. 1 větě poslední", L, "§ 53 odst. 1")]),
    ("čl. I bodů 2 až 11, se použijí", [("čl. I bodů 2 až 11", L, "čl. I bod 2")]),
    (
        "V § 40 odst. 2, § 83 odst. 1 písm. d) a v § 86 odst. 1 písm. d) se",
        [
            ("§ 40 odst. 2, § 83 odst. 1 písm. d)", L, "§ 40 odst. 2"),
            ("§ 86 odst. 1 písm. d)", L, "§ 86 odst. 1 písm. d)"),
        ],
    ),
    ("podle §§ 5 a násl.", [("§§ 5 a násl.", L, "§ 5")]),
    ("3. V§122odst. 3 větě první se", [("§122odst. 3 větě první", L, "§ 122 odst. 3")]),
    # provision + act
    (
        "§ 2358 odst. 1 zákona č. 89/2012 Sb., občanský zákoník, stanoví",
        [("§ 2358 odst. 1 zákona č. 89/2012 Sb., občanský zákoník", L, "89/2012 Sb. § 2358 odst. 1")],
    ),
    ("podle § 11 odst. 3 o. s. ř. jde-li", [("§ 11 odst. 3 o. s. ř.", L, "99/1963 Sb. § 11 odst. 3")]),
    (
        "§ 228 odst. 1, odst. 3 písm. b) tr. zákoníku",
        [("§ 228 odst. 1, odst. 3 písm. b) tr. zákoníku", L, "40/2009 Sb. § 228 odst. 1")],
    ),
    (
        "čl. 36 odst. 1 Listiny a čl. 90 Ústavy",
        [("čl. 36 odst. 1 Listiny", L, "2/1993 Sb. čl. 36 odst. 1"), ("čl. 90 Ústavy", L, "1/1993 Sb. čl. 90")],
    ),
    ("§ 95 (občanského soudního řádu) (1) Žalobce", [("§ 95 (občanského soudního řádu)", L, "99/1963 Sb. § 95")]),
    ("podle § 5 OZ a § 52 ZP", [("§ 5 OZ", L, "89/2012 Sb. § 5"), ("§ 52 ZP", L, "262/2006 Sb. § 52")]),
    (
        "§ 158 odst. 3 věty třetí zákoníku práce činí",
        [("§ 158 odst. 3 věty třetí zákoníku práce", L, "262/2006 Sb. § 158 odst. 3")],
    ),
    ("§ 16\nzákona č.254/2001 Sb..", [("§ 16\nzákona č.254/2001 Sb.", L, "254/2001 Sb. § 16")]),
    (
        "čl. 6 odst. 1 písm. f) nařízení (EU) 2016/679",
        [("čl. 6 odst. 1 písm. f) nařízení (EU) 2016/679", L, "nařízení (EU) 2016/679 čl. 6 odst. 1 písm. f)")],
    ),
    # act citations
    ("ve znění zákona č. 586/1992 Sb.", [("zákona č. 586/1992 Sb.", L, "586/1992 Sb.")]),
    ("zákon č. 89/2012 Sb., občanský zákoník", [("zákon č. 89/2012 Sb., občanský zákoník", L, "89/2012 Sb.")]),
    (
        "nařízení vlády č. 361/2007 Sb., vyhlášky č. 500/2002 Sb. a ústavního zákona č. 1/1993 Sb.",
        [
            ("nařízení vlády č. 361/2007 Sb.", L, "361/2007 Sb."),
            ("vyhlášky č. 500/2002 Sb.", L, "500/2002 Sb."),
            ("ústavního zákona č. 1/1993 Sb.", L, "1/1993 Sb."),
        ],
    ),
    (
        "zákona České národní rady č. 586/1992 Sb., o daních z příjmů",
        [("zákona České národní rady č. 586/1992 Sb.", L, "586/1992 Sb.")],
    ),
    (
        "(atomový zákon č.18/97 Sb., vyhl.č.48/2014 Sb.)",
        [("zákon č.18/97 Sb.", L, "18/1997 Sb."), ("vyhl.č.48/2014 Sb.", L, "48/2014 Sb.")],
    ),
    (
        "zákona č. 320/\n/2015 Sb., zákona č. 274/2001 Sb (paušál)",
        [("zákona č. 320/\n/2015 Sb.", L, "320/2015 Sb."), ("zákona č. 274/2001 Sb", L, "274/2001 Sb.")],
    ),
    ("vyhlášeného pod č. 259/2013 Sb.", [("č. 259/2013 Sb.", L, "259/2013 Sb.")]),
    (
        "zákon č. 141/1961 Sb., o trestním řízení soudním (trestní řád), ve znění",
        [("zákon č. 141/1961 Sb.", L, "141/1961 Sb.")],
    ),
    ("obchodním zákoníkem č. 513/1991 Sb. a", [("obchodním zákoníkem č. 513/1991 Sb.", L, "513/1991 Sb.")]),
    ("dle vyhlášky MZe č. 428/2001 Sb., kterou", [("vyhlášky MZe č. 428/2001 Sb.", L, "428/2001 Sb.")]),
    (
        "zákona č. 326/2009 Sb., zákona\nAkt č. 176 / 2025 Sb. Strana 9\nč. 118/2010 Sb.",
        [
            ("zákona č. 326/2009 Sb.", L, "326/2009 Sb."),
            ("Akt č. 176 / 2025 Sb.", L, "176/2025 Sb."),
            ("č. 118/2010 Sb.", L, "118/2010 Sb."),
        ],
    ),
    (
        "podle § 38 odst. 1 a 2, nebo\nb) místního; § 5 písm. a), b) a c) tr. ř.",
        [("§ 38 odst. 1 a 2", L, "§ 38 odst. 1"), ("§ 5 písm. a), b) a c) tr. ř.", L, "141/1961 Sb. § 5 písm. a)")],
    ),
    # EU acts
    (
        "směrnice 2014/65/EU a nařízení Evropského parlamentu a Rady (EU) 2016/679",
        [
            ("směrnice 2014/65/EU", L, "směrnice 2014/65/EU"),
            ("nařízení Evropského parlamentu a Rady (EU) 2016/679", L, "nařízení (EU) 2016/679"),
        ],
    ),
    (
        "nařízení (EHS)\nč. 1612/68 a o zrušení směrnic 64/221/EHS, 68/360/EHS",
        [
            ("nařízení (EHS)\nč. 1612/68", L, "nařízení (EHS) 1612/68"),
            ("směrnic 64/221/EHS", L, "směrnice 64/221/EHS"),
            ("68/360/EHS", L, "směrnice 68/360/EHS"),
        ],
    ),
    (
        "mění směrnice Evrop-\nského parlamentu a Rady 2013/34/EU",
        [("směrnice Evrop-\nského parlamentu a Rady 2013/34/EU", L, "směrnice 2013/34/EU")],
    ),
    # named acts
    (
        "Občanský zákoník, zákoník práce, OSŘ, ZDP, Listina, Ústava",
        [
            ("Občanský zákoník", L, "89/2012 Sb."),
            ("zákoník práce", L, "262/2006 Sb."),
            ("OSŘ", L, "99/1963 Sb."),
            ("ZDP", L, "586/1992 Sb."),
            ("Listina", L, "2/1993 Sb."),
            ("Ústava", L, "1/1993 Sb."),
        ],
    ),
    (
        "podle občanského soudního řádu, daňového řádu, zákona o daních z příjmů a trestního zákoníku",
        [
            ("občanského soudního řádu", L, "99/1963 Sb."),
            ("daňového řádu", L, "280/2009 Sb."),
            ("zákona o daních z příjmů", L, "586/1992 Sb."),
            ("trestního zákoníku", L, "40/2009 Sb."),
        ],
    ),
    (
        "správní řád, stavební zákon a občanský soudní řád",
        [
            ("správní řád", L, "500/2004 Sb."),
            ("stavební zákon", L, "283/2021 Sb."),
            ("občanský soudní řád", L, "99/1963 Sb."),
        ],
    ),
    ("postup dle ZP je jiný", [("ZP", L, "262/2006 Sb.")]),
    # decisions
    (
        "nálezy sp. zn. IV. ÚS 2265/13 a Pl. ÚS 5/01",
        [("IV. ÚS 2265/13", D, "IV. ÚS 2265/13"), ("Pl. ÚS 5/01", D, "Pl. ÚS 5/01")],
    ),
    (
        "I.US 625/03; IV. US 2127/12; II US 361/96; Pl. US23/06; 1. US 21/94",
        [
            ("I.US 625/03", D, "I. ÚS 625/03"),
            ("IV. US 2127/12", D, "IV. ÚS 2127/12"),
            ("II US 361/96", D, "II. ÚS 361/96"),
            ("Pl. US23/06", D, "Pl. ÚS 23/06"),
            ("1. US 21/94", D, "I. ÚS 21/94"),
        ],
    ),
    (
        "Pl. US - st. 21/05 a Pl. ÚS-st. 1/96",
        [("Pl. US - st. 21/05", D, "Pl. ÚS-st. 21/05"), ("Pl. ÚS-st. 1/96", D, "Pl. ÚS-st. 1/96")],
    ),
    (
        "sp. zn. 22 Cdo 2191/2002, 29 NSČR 123/2020, 29 NSCR 51/2013",
        [
            ("22 Cdo 2191/2002", D, "22 Cdo 2191/2002"),
            ("29 NSČR 123/2020", D, "29 NSČR 123/2020"),
            ("29 NSCR 51/2013", D, "29 NSČR 51/2013"),
        ],
    ),
    (
        "č. j. 2 As 78/2006-60 a 9  Afs  88/2012  -  43",
        [("2 As 78/2006-60", D, "2 As 78/2006"), ("9  Afs  88/2012  -  43", D, "9 Afs 88/2012")],
    ),
    (
        "MSPH 88 INS 6424/2021, 101 VSPH 73/2024-43, Cpjn 206/2010, 11Tdo 392/2008",
        [
            ("MSPH 88 INS 6424/2021", D, "MSPH 88 INS 6424/2021"),
            ("101 VSPH 73/2024-43", D, "101 VSPH 73/2024"),
            ("Cpjn 206/2010", D, "Cpjn 206/2010"),
            ("11Tdo 392/2008", D, "11 Tdo 392/2008"),
        ],
    ),
    (
        "(ECLI:CZ:NS:2024:29.ND.461.2024.1).",
        [("ECLI:CZ:NS:2024:29.ND.461.2024.1", D, "ECLI:CZ:NS:2024:29.ND.461.2024.1")],
    ),
    ("ecli:cz:us:2013:4.us.2265.13.1", [("ecli:cz:us:2013:4.us.2265.13.1", D, "ECLI:CZ:US:2013:4.US.2265.13.1")]),
    ("věci C-92/09 a C-93/09", [("C-92/09", D, "C-92/09"), ("C-93/09", D, "C-93/09")]),
]


@pytest.mark.parametrize("text,items", POSITIVES, ids=[t[:40] for t, _ in POSITIVES])
def test_positive(text, items):
    assert recognise_text(text) == expected(text, items)


def test_explicit_offsets():
    text = "Podle § 2358 odst. 1 zákona č. 89/2012 Sb. a sp. zn. 22 Cdo 2191/2002."
    ents = recognise_text(text)
    assert [(e.start, e.end, e.label, e.norm) for e in ents] == [
        (6, 42, L, "89/2012 Sb. § 2358 odst. 1"),
        (53, 69, D, "22 Cdo 2191/2002"),
    ]
    assert ents[0].to_dict() == {
        "start": 6,
        "end": 42,
        "label": L,
        "text": text[6:42],
        "norm": "89/2012 Sb. § 2358 odst. 1",
    }


@pytest.mark.parametrize(
    "text,default_act,norm",
    [
        ("podle § 24 odst. 3 platí", "563/1991 Sb.", "563/1991 Sb. § 24 odst. 3"),
        ("podle § 24 odst. 3 platí", None, "§ 24 odst. 3"),
        ("podle § 24 odst. 3 zákona č. 586/1992 Sb.", "563/1991 Sb.", "586/1992 Sb. § 24 odst. 3"),
    ],
)
def test_default_act(text, default_act, norm):
    (ent,) = recognise_text(text, default_act=default_act)
    assert ent.norm == norm


NEGATIVES = [
    "Usnesením ze dne 12. 3. 2019 a dne 29. července 2019 rozhodl soud.",
    "telefonicky na čísle 495 428 270 nebo +420 777 123 456, IČO 25788001, PSČ 110 00",
    "náměstí Junkových 2808/2, parcely č. 913/11, č.p. 32, 103/05/2020 schvaluje",
    "rozhodnutí č. j. ČTÚ-31 966/2025-631/SzS ze dne 10. 11. 2025",
    "uveřejněné pod č. 4/2013 Sbírky soudních rozhodnutí a stanovisek",
    "uveřejněného pod číslem 31/2020 Sb. rozh. obč. a 726/2005 Sb. NSS",
    "řádů - částka16/1975 Sb. (Směrnice uveřejněná ve věstníku)",
    "sp. zn. 236 EX 00341/07, sp. zn. NZ 1602/2025, N 2141/2025, sp. zn. C-12-FM-24-001884",
    "stiznost c. 17056/06, US sv. 22 nalez c. 79, 31 Cdo / 2, rozhodnuti-30_Cdo_85_2005.txt",
    "může být pokutováno dle čl.VIII. smlouvy; čl. 6.2.5. Směrnice se použije obdobně.",
    "§ 1\nPředmět úpravy\n(1) Tento zákon upravuje",
    "Čl. I\nPřechodné ustanovení",
    "OZ a ZP jsou zkratky; listina byla doručena; ústava obce",
    "k provoznímu řádu střelnice, kanalizační řád a podle odstavce 1 písm. a)",
    "zákona č. 99/1963 Sb. (dále jen „o. s. ř.“)",
    "zákona č. 120/2001 Sb., o soudních exekutorech a exekuční činnosti /exekuční řád/ (dále jen „o. s. ř.“)",
]


@pytest.mark.parametrize("text", NEGATIVES, ids=[t[:30] for t in NEGATIVES])
def test_hard_negatives(text):
    ents = [e for e in recognise_text(text) if e.label in (L, D)]  # dates etc. are other labels
    if "(dále jen" in text:  # only the citation, not the title's short name nor the abbreviation being defined
        assert [e.text for e in ents] == [text[: text.index(" Sb.") + 4]]
    else:
        assert ents == []


def test_act_numbers_are_not_decisions():
    ents = recognise_text("zákon č. 89/2012 Sb. a 22 Cdo 2191/2002")
    assert [(e.text, e.label) for e in ents] == [("zákon č. 89/2012 Sb.", L), ("22 Cdo 2191/2002", D)]


def test_title_short_name_not_marked_separately():
    text = (
        "§ 241 zákona č. 182/2006 Sb., o úpadku a způsobech jeho řešení (insolvenčního zákona), "
        "ustanovení insolvenčního zákona"
    )
    assert [e.text for e in recognise_text(text)] == ["§ 241 zákona č. 182/2006 Sb.", "insolvenčního zákona"]


@pytest.mark.parametrize(
    "citation,eli",
    [
        ("89/2012 Sb.", "/eli/cz/sb/2012/89"),
        ("586/1992 Sb.", "/eli/cz/sb/1992/586"),
        ("18/97 Sb.", "/eli/cz/sb/1997/18"),
        ("89/2012 Sb. § 2358 odst. 1", "/eli/cz/sb/2012/89"),
        ("10/2001 Sb. m. s.", "/eli/cz/sm/2001/10"),
        ("nařízení (EU) 2016/679", "http://data.europa.eu/eli/reg/2016/679/oj"),
        ("§ 5", None),
        ("", None),
    ],
)
def test_eli_for(citation, eli):
    assert eli_for(citation) == eli


def test_every_gazetteer_norm_has_an_eli():
    from mendel.ner.acts import NAMED_ACTS

    for act in NAMED_ACTS:
        assert act.eli and eli_for(act.citation) == act.eli


def test_invariants_on_corpus_like_text():
    text = (
        "Podle § 105 odst. 2 zákona č. 99/1963 Sb., občanský soudní řád, dále též jen „o. s. ř.“, "
        "a § 11 odst. 3 o. s. ř. (sp. zn. 31 Nd 316/2013, nález IV. ÚS 3085/15) "
    ) * 50
    ents = recognise_text(text)
    assert len(ents) == 4 * 50
    assert all(text[e.start : e.end] == e.text for e in ents)
    assert all(a.end <= b.start for a, b in zip(ents, ents[1:]))


def test_never_crashes_on_arbitrary_unicode():
    rng = random.Random(7)
    alphabet = "§čl.odstpísmbodaž ()/-–,0123456789SbÚSUSCdoECLI:\n\u00a0\u00ad\u200b“„ěščřžýáíéůú𝔘٣" + "".join(
        chr(rng.randrange(0x20, 0x2FFF)) for _ in range(200)
    )
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        for ent in recognise_text(text):
            assert text[ent.start : ent.end] == ent.text
    assert recognise_text("") == []
    assert recognise_text(None) == []  # type: ignore[arg-type]


def test_is_fast_on_long_adversarial_input():
    chunks = [
        "§ 1 odst. 2, " * 2000,
        "zákona o " + "slovo " * 3000,
        "1/2 " * 5000,
        "I. " * 5000,
        "písm. a) a " * 3000,
        "Evropského parlamentu a Rady " * 1000,
    ]
    start = time.perf_counter()
    for chunk in chunks:
        recognise_text(chunk)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize(
    "norm, expected",
    [
        ("89/2012 Sb. § 2079 odst. 1", ("89/2012 Sb.", "§ 2079 odst. 1")),
        ("2/1993 Sb. čl. 10", ("2/1993 Sb.", "čl. 10")),
        ("§ 24 odst. 3", (None, "§ 24 odst. 3")),
        ("586/1992 Sb.", ("586/1992 Sb.", None)),
        ("směrnice (EU) 2023/2775", ("směrnice (EU) 2023/2775", None)),
    ],
)
def test_split_law_ref_norm(norm, expected):
    from mendel.ner.rules import split_law_ref_norm

    assert split_law_ref_norm(norm) == expected
