"""mendel.law.identifiers: acts (citation, ELI, stale URL), court file numbers and ECLI, table by table."""

import pytest

from mendel.law.identifiers import (
    ActId,
    FileNumber,
    act_citation,
    act_eli,
    citation_for_eli,
    citation_mark,
    constitutional_ecli,
    eli_for_citation,
    file_number,
    find_ecli,
    full_year,
    parse_act_path,
    parse_citation,
    parse_ecli,
    parse_file_number,
    parse_stale_url,
    reference_number,
)


@pytest.mark.parametrize(
    "year,full", [("2012", 2012), (2025, 2025), ("97", 1997), ("45", 1945), ("44", 2044), ("05", 2005)]
)
def test_full_year(year, full):
    assert full_year(year) == full


@pytest.mark.parametrize(
    "written,mark",
    [
        ("Sb", "Sb."),
        ("Sb.", "Sb."),
        ("Sb.m.s.", "Sb. m. s."),
        ("Sb. m.  s.", "Sb. m. s."),
        ("Sb. z. a n.", "Sb. z. a n."),
    ],
)
def test_citation_mark(written, mark):
    assert citation_mark(written) == mark


@pytest.mark.parametrize(
    "args,citation",
    [((573, 2025), "573/2025 Sb."), (("018", "97"), "18/1997 Sb."), ((2, 1993, "Sb. m. s."), "2/1993 Sb. m. s.")],
)
def test_act_citation(args, citation):
    assert act_citation(*args) == citation


@pytest.mark.parametrize(
    "args,eli",
    [
        ((2025, 573), "/eli/cz/sb/2025/573"),
        ((2025, 573, "sb", "2026-06-01"), "/eli/cz/sb/2025/573/2026-06-01"),
        (("1993", "2", "sm"), "/eli/cz/sm/1993/2"),
    ],
)
def test_act_eli(args, eli):
    assert act_eli(*args) == eli


def test_act_id_forms():
    act = ActId("sb", 2025, 573, "2026-06-01", "par_5-odst_1")
    assert (act.eli, act.versioned_eli, act.stale_url, act.citation) == (
        "/eli/cz/sb/2025/573",
        "/eli/cz/sb/2025/573/2026-06-01",
        "/sb/2025/573/2026-06-01",
        "573/2025 Sb.",
    )
    plain = ActId("sm", 1993, 2)
    assert (plain.versioned_eli, plain.stale_url, plain.citation) == (
        "/eli/cz/sm/1993/2",
        "/sm/1993/2",
        "2/1993 Sb. m. s.",
    )


@pytest.mark.parametrize(
    "text,act",
    [
        ("89/2012 Sb.", ActId("sb", 2012, 89)),
        ("89/2012 Sb. § 2079 odst. 1", ActId("sb", 2012, 89)),
        (" 18 / 97 Sb", ActId("sb", 1997, 18)),
        ("2/1993 Sb. m. s.", ActId("sm", 1993, 2)),
        ("1/1920 Sb. z. a n.", ActId("sb", 1920, 1)),
        ("nařízení (EU) 2016/679", None),
        ("89/2012", None),
        ("", None),
        (None, None),
        (89, None),
    ],
)
def test_parse_citation(text, act):
    assert parse_citation(text) == act


@pytest.mark.parametrize(
    "path,found",
    [
        ("/eli/cz/sb/2024/87", (ActId("sb", 2024, 87), "")),
        (
            "/eli/cz/sb/2024/87/2024-04-16/dokument/norma/par_2",
            (ActId("sb", 2024, 87, "2024-04-16"), "/dokument/norma/par_2"),
        ),
        ("/sb/2024/87/fragmenty", (ActId("sb", 2024, 87), "/fragmenty")),
        ("/sb/2024/87/2024-04-16/odkazy-ke-stazeni", (ActId("sb", 2024, 87, "2024-04-16"), "/odkazy-ke-stazeni")),
        ("/eli/cz/sb/24/87", None),
        ("https://example.org/x", None),
        (None, None),
    ],
)
def test_parse_act_path(path, found):
    assert parse_act_path(path) == found


@pytest.mark.parametrize(
    "value,act",
    [
        ("/sb/2024/87", ActId("sb", 2024, 87)),
        ("/sb/2012/89/2026-01-01#par_2079", ActId("sb", 2012, 89, "2026-01-01", "par_2079")),
        ("/sb/2024/87#par_5-odst_1", ActId("sb", 2024, 87, "", "par_5-odst_1")),
        ("/eli/cz/sb/2024/87", None),
        ("/sb/2024/87/fragmenty", None),
        ("https://example.org/x", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_stale_url(value, act):
    assert parse_stale_url(value) == act


@pytest.mark.parametrize(
    "citation,eli",
    [
        ("89/2012 Sb.", "/eli/cz/sb/2012/89"),
        ("99/1963 Sb. § 237", "/eli/cz/sb/1963/99"),
        ("2/1993 Sb. m. s.", "/eli/cz/sm/1993/2"),
        ("zákon", None),
        (None, None),
    ],
)
def test_eli_for_citation(citation, eli):
    assert eli_for_citation(citation) == eli


@pytest.mark.parametrize("citation", ["89/2012 Sb.", "2/1993 Sb. m. s.", "573/2025 Sb."])
def test_citation_and_eli_round_trip(citation):
    assert citation_for_eli(eli_for_citation(citation)) == citation


@pytest.mark.parametrize(
    "eli,citation",
    [
        ("/eli/cz/sb/2025/573/2026-06-01", "573/2025 Sb."),
        ("/eli/cz/sb/2024/90/dokument/norma", "90/2024 Sb."),
        ("/sb/2024/90", None),
        ("http://data.europa.eu/eli/reg/2016/679/oj", None),
    ],
)
def test_citation_for_eli(eli, citation):
    assert citation_for_eli(eli) == citation


@pytest.mark.parametrize(
    "text,parsed",
    [
        ("II.ÚS 866/16", FileNumber("ÚS", 866, "16", "II")),
        ("Pl.ÚS-st. 27/09", FileNumber("ÚS-st.", 27, "09", "Pl")),
        ("1. US 21/94", FileNumber("ÚS", 21, "94", "I")),
        ("IV. ÚS 393/2000", FileNumber("ÚS", 393, "2000", "IV")),
        ("III. US166/95", FileNumber("ÚS", 166, "95", "III")),
        ("7 Afs 41/2013 - 8", FileNumber("Afs", 41, "2013", "7", "", "8")),
        ("29\u00a0NSCR 123/2024", FileNumber("NSČR", 123, "2024", "29")),
        ("MSPH 88 INS 6424/2021-A-11", FileNumber("INS", 6424, "2021", "88", "MSPH", "A-11")),
        ("Konf 4/2003 - 16", FileNumber("Konf", 4, "2003", "", "", "16")),
        ("89/2012 Sb.", None),
        ("sp. zn. 7 Afs 41/2013", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_file_number(text, parsed):
    assert parse_file_number(text) == parsed


@pytest.mark.parametrize(
    "text,number,reference",
    [
        ("II.ÚS 866/16", "II. ÚS 866/16", "II.ÚS 866/16"),
        ("Pl.ÚS-st. 27/09", "Pl. ÚS-st. 27/09", "Pl.ÚS-st. 27/09"),
        ("7 Afs 41/2013 - 8", "7 Afs 41/2013", "7 Afs 41/2013-8"),
        ("9  Afs  88/2012  -  43", "9 Afs 88/2012", "9 Afs 88/2012-43"),
        ("čj. neznámé", "čj. neznámé", "čj. neznámé"),
    ],
)
def test_file_number_and_reference_number(text, number, reference):
    assert file_number(text) == number
    assert reference_number(text) == reference


def test_file_number_forms():
    assert FileNumber("Afs", 41, "2013", "7", list_number="8").reference == "7 Afs 41/2013-8"
    assert FileNumber("INS", 6424, "2021", "88", "MSPH").text == "MSPH 88 INS 6424/2021"
    assert FileNumber("ÚS-st.", 21, "05", "Pl").text == "Pl. ÚS-st. 21/05"
    assert FileNumber("ÚS", 2127, "12", "IV").is_constitutional
    assert not FileNumber("Cdo", 1, "2024", "22").is_constitutional


@pytest.mark.parametrize(
    "number,decided,ordinal,ecli",
    [
        (FileNumber("ÚS", 24, "10", "Pl"), 2011, 1, "ECLI:CZ:US:2011:Pl.US.24.10.1"),
        (FileNumber("ÚS", 2265, "13", "IV"), 2013, 1, "ECLI:CZ:US:2013:4.US.2265.13.1"),
        (FileNumber("ÚS", 866, "16", "II"), 2016, 2, "ECLI:CZ:US:2016:2.US.866.16.2"),
        (FileNumber("ÚS", 393, "2000", "IV"), 2000, 1, "ECLI:CZ:US:2000:4.US.393.00.1"),
        (FileNumber("ÚS-st.", 27, "09", "Pl"), 2009, 1, None),
        (FileNumber("Cdo", 1021, "2026", "22"), 2026, 1, None),
    ],
)
def test_constitutional_ecli(number, decided, ordinal, ecli):
    assert constitutional_ecli(number, decided, ordinal) == ecli
    if ecli:
        assert parse_ecli(ecli).text == ecli


@pytest.mark.parametrize(
    "text,parts",
    [
        ("ECLI:CZ:NS:2024:29.ND.461.2024.1", ("CZ", "NS", 2024, "29.ND.461.2024.1")),
        ("ecli:cz:us:2011:Pl.US.24.10.1", ("CZ", "US", 2011, "Pl.US.24.10.1")),
        ("ECLI:CZ:NS:24:29.ND.461.2024.1", None),
        ("CZ:NS:2024:1", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_ecli(text, parts):
    parsed = parse_ecli(text)
    assert (None if parsed is None else (parsed.country, parsed.court, parsed.year, parsed.number)) == parts


@pytest.mark.parametrize(
    "text,court,ecli",
    [
        ("Rozsudek ECLI:CZ:NSS:2013:7.AFS.41.2013.8.", None, "ECLI:CZ:NSS:2013:7.AFS.41.2013.8"),
        ("II.ÚS 866/16 #2 ECLI:CZ:US:2016:2.US.866.16.2 24. 11. 2016", "US", "ECLI:CZ:US:2016:2.US.866.16.2"),
        ("ECLI:CZ:NS:2024:29.ND.461.2024.1", "NSS", None),
        ("xECLI:CZ:NS:2024:1", None, None),
        ("", None, None),
    ],
)
def test_find_ecli(text, court, ecli):
    assert find_ecli(text, court) == ecli
