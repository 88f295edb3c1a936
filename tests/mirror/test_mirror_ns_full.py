"""The mirror's Nejvyšší soud site at size: the 954 + 3 decisions of ``courts/ns_full/`` served as decision pages with
every header field of their files, an ECLI only where the file gives one."""

from __future__ import annotations

from collections import Counter

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mirror.courts import NsoudSite, search
from mirror.ns_full import read_full_text

FULL = sorted((SAMPLE_CORPUS / "courts" / "ns_full").glob("*.txt"))


@pytest.fixture(scope="module")
def site() -> NsoudSite:
    return NsoudSite(SAMPLE_CORPUS)


def test_every_file_is_a_decision_with_its_header():
    read = {path.name: read_full_text(path) for path in FULL}
    assert len(read) == 957 and all(read.values())
    records = [record for record, _ in read.values()]
    assert Counter(r["court"] for r in records)["Nejvyšší soud"] == 952  # 949 + the three of the Sbírka
    assert sum(1 for r in records if not r["decision_date"]) == 8  # the files give no date
    assert {r["ecli"] for r in records} - {None} == {
        "ECLI:CZ:NS:2021:32.CDO.3172.2020.1",
        "ECLI:CZ:NS:2022:27.CDO.935.2022.1",
        "ECLI:CZ:NS:2024:23.CDO.2700.2023.1",
    }  # never built from a file number
    labels = Counter(label for r in records for label, _ in r["header"])
    # (grep finds one more of each: 4 Tz 296/2000 has a second decision with its own header in its text)
    assert labels["Dotčené předpisy"] == 317 and labels["Heslo"] == 260 and labels["Kategorie rozhodnutí"] == 366
    assert all(len(r["full_text"]) > 200 for r in records)
    assert len({unid for _, unid in read.values()}) == 957


@pytest.mark.parametrize(
    ("name", "label", "value"),
    [
        (
            "rozhodnuti-13_Cmo_115_2002.txt",
            "Dotčené předpisy",
            "§ 59 písm. a) předpisu č. 328/1991Sb., § 60 předpisu č. 328/1991Sb.",
        ),
        (
            "rozhodnuti-13_Cmo_115_2002.txt",
            "Název judikátu",
            "Vyrovnání. Incidenční spory. Popření nevykonatelné pohledávky dlužníkem.",
        ),
        ("rozhodnuti-4_Tz_13_2019.txt", "Název judikátu", "Maření výkonu úředního rozhodnutí a vykázání Vydírání"),
        ("NS2.txt", "Předpisy", "§ 2758 odst. 2 o. z.\n§ 556 o. z.\n§ 582 o. z.\n§ 586 o. z.\n§ 588 o. z."),
        ("NS1.txt", "Hesla", "Pojištění"),
    ],
)
def test_header_values_are_read_whole(name, label, value):
    record, _ = read_full_text(SAMPLE_CORPUS / "courts" / "ns_full" / name)
    assert dict(record["header"])[label] == value


def test_a_decision_page_shows_every_header_field(site):
    decision = next(d for d in site.decisions if d.case_number == "27 Cdo 935/2022")
    page = site.decision_page(decision).body.decode("utf-8")
    for label in ("Soud", "Spisová značka", "ECLI", "Typ rozhodnutí", "Právní věta", "Hesla", "Předpisy", "Druh"):
        assert f'<td class="left-part">{label}:</td>' in page
    assert "§ 2758 odst. 2 o. z.<br/>§ 556 o. z." in page
    other = next(d for d in site.decisions if d.case_number == "13 Cmo 115/2002")
    page = site.decision_page(other).body.decode("utf-8")
    assert '<td class="right-part">Vrchní soud v Praze</td>' in page and ">ECLI:<" not in page


def test_a_date_search_finds_the_decisions_by_web_date_or_decision_date(site):
    everything = search(site.decisions, "([datum_predani_na_web]>=01/01/1993) OR ([datum_rozhodnuti]>=01/01/1993)")
    assert len(everything) == 11 + 957 - 8  # the eight undated ones are found by no date
    year = "([datum_predani_na_web]>=01/01/2002 AND [datum_predani_na_web]<=31/12/2002) OR "
    year += "([datum_rozhodnuti]>=01/01/2002 AND [datum_rozhodnuti]<=31/12/2002)"
    assert {d.record["decision_date"][:4] for d in search(site.decisions, year)} == {"2002"}
