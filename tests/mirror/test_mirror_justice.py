"""The mirror's lower-court open data (rozhodnuti.justice.cz): the real records a publication day at a time, in the
API's paged JSON; the dirty exports read record by record."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from mendel.core.config import SAMPLE_CORPUS
from mirror.justice import JusticeSite, read_export

EXPORTS = SAMPLE_CORPUS / "courts" / "justice_opendata"


def test_every_readable_record_is_served_once_and_the_two_broken_ones_are_named():
    site = JusticeSite(SAMPLE_CORPUS)
    served = [record for records in site.days().values() for record in records]
    assert len(served) == 1498 and len({r["ecli"] for r in served}) == 1498
    assert site.duplicates == 4  # export-sample.xml repeats four records of export-1
    assert [(u.file, u.line) for u in site.unreadable] == [
        ("export-1-100000.xml", 2030),
        ("export-2-1000000.xml", 1688),
    ]
    assert all("not well-formed XML" in u.reason and "Char value 30" in u.reason for u in site.unreadable)


def test_a_broken_record_costs_only_itself():
    records, unreadable = read_export(EXPORTS / "export-1-100000.xml")
    assert len(records) == 99 and len(unreadable) == 1  # the 99 before and after the fault
    sample, cut = read_export(EXPORTS / "export-sample.xml")
    assert len(sample) == 4 and cut == []  # only the root is left open: every record in it is whole


def test_a_record_cut_off_by_the_end_of_the_file_is_named(tmp_path: Path):
    data = (EXPORTS / "export-sample.xml").read_bytes()
    cut = tmp_path / "cut.xml"
    cut.write_bytes(data[: data.rindex(b"<Oduvodneni>")])
    records, unreadable = read_export(cut)
    assert len(records) == 3 and len(unreadable) == 1 and "cut off" in unreadable[0].reason


def test_every_field_is_kept_unchanged():
    record = next(r for r in JusticeSite(SAMPLE_CORPUS).days()["2025-09-26"] if r["jednaciCislo"] == "52 C 99/2024-53")
    assert record["soud"] == "Městský soud v Brně" and record["ecli"] == "ECLI:CZ:MSBR:2025:52.C.99.2024.1"
    assert record["datumVydani"] == "2025-05-15" and record["klicovaSlova"] == ["smlouva o úvěru"]
    assert record["zminenaUstanoveni"][0] == "§ 142 z. č. 99/1963 Sb." and len(record["zminenaUstanoveni"]) == 14
    assert record["vyrok"].startswith("I. Žalovaný je povinen zaplatit") and len(record["oduvodneni"]) > 1000
    assert set(record) == {
        "jednaciCislo",
        "soud",
        "autor",
        "ecli",
        "predmetRizeni",
        "datumVydani",
        "datumZverejneni",
        "klicovaSlova",
        "zminenaUstanoveni",
        "vyrok",
        "oduvodneni",
    }


@pytest.mark.parametrize(
    ("path", "page", "items", "pages"),
    [
        ("/api/opendata/2025/09/23", None, 100, 2),
        ("/api/opendata/2025/9/23", "1", 92, 2),
        ("/api/opendata/2025/09/20", "0", 3, 1),
        ("/api/opendata/2025/09/23", "2", 0, 2),  # past the last page
        ("/api/opendata/2025/09/21", None, 0, 0),  # a Sunday: nothing published
    ],
)
def test_a_day_is_served_in_pages_of_100(mirror, path, page, items, pages):
    response = requests.get(mirror.base_url + path, params={"page": page} if page else None, timeout=30)
    body = response.json()
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("application/json")
    assert (len(body["items"]), body["totalPages"], body["pageSize"]) == (items, pages, 100)
    assert "converted" in response.headers["X-Mendel-Derived"]


@pytest.mark.parametrize(("path", "query"), [("/api/opendata/2025/02/30", ""), ("/api/opendata/2025/09/23", "page=x")])
def test_a_bad_date_or_page_is_a_400(mirror, path, query):
    response = requests.get(f"{mirror.base_url}{path}?{query}", timeout=30)
    assert response.status_code == 400 and response.json()["status"] == 400
