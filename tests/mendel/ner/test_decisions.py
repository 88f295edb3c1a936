"""DECISION_REF in its canonical form, one row per form courts write; ECLI and file number both ways."""

from __future__ import annotations

import pytest

from mendel.law.identifiers import FileNumber
from mendel.ner import recognise_text
from mendel.ner.decisions import canonical, ecli_of_file_number, file_number_of_ecli


def decision_refs(text: str) -> list[tuple[str, str]]:
    return [(e.text, e.norm) for e in recognise_text(text) if e.label == "DECISION_REF"]


@pytest.mark.parametrize(
    "text, surface, norm",
    [
        # Ústavní soud: two-digit years, four-digit years, plenary, opinions, spellings
        ("nález sp. zn. IV. ÚS 2127/12 ze dne", "IV. ÚS 2127/12", "IV. ÚS 2127/12"),
        ("usnesení IV. US 136/2005", "IV. US 136/2005", "IV. ÚS 136/05"),
        ("II.ÚS 866/16", "II.ÚS 866/16", "II. ÚS 866/16"),
        ("I US 185/2005", "I US 185/2005", "I. ÚS 185/05"),
        ("III. ÚS 729/2000", "III. ÚS 729/2000", "III. ÚS 729/00"),
        ("III. ÚS 35/00", "III. ÚS 35/00", "III. ÚS 35/00"),
        ("Pl. ÚS 24/10", "Pl. ÚS 24/10", "Pl. ÚS 24/10"),
        ("Pl. US 6/2005", "Pl. US 6/2005", "Pl. ÚS 6/05"),
        ("Pl US 56/2005", "Pl US 56/2005", "Pl. ÚS 56/05"),
        ("Pl. ÚS-st. 21/05", "Pl. ÚS-st. 21/05", "Pl. ÚS-st. 21/05"),
        ("Pl. US - st. 23/06", "Pl. US - st. 23/06", "Pl. ÚS-st. 23/06"),
        ("1. US 21/94", "1. US 21/94", "I. ÚS 21/94"),
        ("4 US 382/02", "4 US 382/02", "IV. ÚS 382/02"),
        # Nejvyšší soud: four digits; prefixes stay outside
        ("sp. zn. 30 Cdo 85/2005", "30 Cdo 85/2005", "30 Cdo 85/2005"),
        ("sp. zn. 20 Cdo 1643/05", "20 Cdo 1643/05", "20 Cdo 1643/2005"),
        ("20 Cdo 1827/99", "20 Cdo 1827/99", "20 Cdo 1827/1999"),
        ("20 Cdo 1827/1999", "20 Cdo 1827/1999", "20 Cdo 1827/1999"),
        ("č. j. 29 NSČR 123/2024-45", "29 NSČR 123/2024-45", "29 NSČR 123/2024"),
        ("29 NSCR 12/2010", "29 NSCR 12/2010", "29 NSČR 12/2010"),
        ("Cpjn 206/2010", "Cpjn 206/2010", "Cpjn 206/2010"),
        ("11Tdo 392/2008", "11Tdo 392/2008", "11 Tdo 392/2008"),
        # Nejvyšší správní soud: senate marks
        ("č. j. 7 Afs 41/2013-8", "7 Afs 41/2013-8", "7 Afs 41/2013"),
        ("2 As 78/2006-60", "2 As 78/2006-60", "2 As 78/2006"),
        ("4 Ads 35/2013-37", "4 Ads 35/2013-37", "4 Ads 35/2013"),
        ("5 Azs 12/2019-30", "5 Azs 12/2019-30", "5 Azs 12/2019"),
        ("9  Afs  88/2012  -  43", "9  Afs  88/2012  -  43", "9 Afs 88/2012"),
        ("11 Na 112/2006", "11 Na 112/2006", "11 Na 112/2006"),
        ("11 Kseo 5/2009-99", "11 Kseo 5/2009-99", "11 Kseo 5/2009"),
        ("Konf 4/2003 - 16", "Konf 4/2003 - 16", "Konf 4/2003"),
        # other courts
        ("č. j. 52 C 99/2024-53", "52 C 99/2024-53", "52 C 99/2024"),
        ("2119 C 14/2023-419", "2119 C 14/2023-419", "2119 C 14/2023"),
        ("KSOS 40 INS 27781/2016-B14", "KSOS 40 INS 27781/2016-B14", "KSOS 40 INS 27781/2016"),
        ("10 K 24/96-47", "10 K 24/96-47", "10 K 24/1996"),
        # a cut year stays as written
        ("32 Cdo 4176/201", "32 Cdo 4176/201", "32 Cdo 4176/201"),
        # ECLI keeps its own form
        ("(ECLI:CZ:NS:2024:29.ND.461.2024.1).", "ECLI:CZ:NS:2024:29.ND.461.2024.1", "ECLI:CZ:NS:2024:29.ND.461.2024.1"),
    ],
)
def test_every_court_form_is_canonical(text, surface, norm):
    assert decision_refs(text) == [(surface, norm)]


@pytest.mark.parametrize("text", ["5 C 12", "parcela č. 913/11", "236 EX 00341/07", "89/2012 Sb.", "NZ 1602/2025"])
def test_what_is_no_file_number(text):
    assert decision_refs(text) == []


@pytest.mark.parametrize(
    "ecli, number, court, year, ordinal",
    [
        ("ECLI:CZ:MSBR:2025:52.C.99.2024.1", "52 C 99/2024", "MSBR", 2025, "1"),
        ("ECLI:CZ:OSUL:2025:33.C.209.2024.24", "33 C 209/2024", "OSUL", 2025, "24"),
        ("ECLI:CZ:KSCB:2024:19.Co.814.2024.1", "19 Co 814/2024", "KSCB", 2024, "1"),
        ("ECLI:CZ:NS:2024:29.ND.461.2024.1", "29 Nd 461/2024", "NS", 2024, "1"),
        ("ECLI:CZ:NS:2021:32.CDO.3172.2020.1", "32 Cdo 3172/2020", "NS", 2021, "1"),
        ("ECLI:CZ:US:2013:4.US.2265.13.1", "IV. ÚS 2265/13", "US", 2013, "1"),
        ("ECLI:CZ:US:2010:Pl.US.24.10.1", "Pl. ÚS 24/10", "US", 2010, "1"),
    ],
)
def test_ecli_and_file_number_both_ways(ecli, number, court, year, ordinal):
    parsed = file_number_of_ecli(ecli)
    assert parsed is not None and parsed.text == number
    assert ecli_of_file_number(parsed, court, year, ordinal) == ecli


def test_an_ecli_of_another_country_or_form_has_no_file_number():
    assert file_number_of_ecli("ECLI:EU:C:2019:123") is None
    assert file_number_of_ecli("ECLI:CZ:NS:2024:XYZ") is None


def test_years_by_court():
    assert canonical(FileNumber("ÚS", 1, "2000", "I")) == "I. ÚS 1/00"
    years = [canonical(FileNumber("Cdo", 1, y, "20")).rsplit("/")[1] for y in ("05", "2005", "99", "1999", "201")]
    assert years == ["2005", "2005", "1999", "1999", "201"]
