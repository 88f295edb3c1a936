"""The streaming RÚIAN VFR reader on the real bundled files (obec Děčany, a state-wide change batch)."""

from __future__ import annotations

import gzip
import io
import tracemalloc
import zipfile
from collections import Counter

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.registers import ruian

DECANY = SAMPLE_CORPUS / "cuzk" / "ruian" / "OB_UKSH.xml.gz"
CHANGES = SAMPLE_CORPUS / "cuzk" / "ruian" / "ST_ZKSH.xml.gz"


def test_decany_full_file_records():
    records = list(ruian.iter_records(DECANY))
    assert Counter(r["kind"] for r in records) == {
        "obec": 1,
        "cast_obce": 4,
        "stavebni_objekt": 310,
        "adresni_misto": 221,
    }
    [obec] = [r for r in records if r["kind"] == "obec"]
    assert obec == {
        "kind": "obec",
        "kod": "564729",
        "nazev": "Děčany",
        "status_kod": "2",
        "okres_kod": "3506",
        "pou_kod": "1805",
        "nuts_lau": "CZ0423564729",
        "plati_od": "2014-02-17",
        "bod": (-773555.0, -999234.0),
    }
    parts = {r["kod"]: r["nazev"] for r in records if r["kind"] == "cast_obce"}
    assert parts == {"24899": "Děčany", "24902": "Lukohořany", "24911": "Semeč", "152323": "Solany"}
    assert all(r["obec_kod"] == "564729" for r in records if r["kind"] == "cast_obce")

    addresses = [r for r in records if r["kind"] == "adresni_misto"]
    assert len({a["kod"] for a in addresses}) == 221
    assert addresses[0] == {
        "kind": "adresni_misto",
        "kod": "16653670",
        "cislo_domovni": "10",
        "cislo_orientacni": None,
        "cislo_orientacni_pismeno": None,
        "psc": "41115",
        "stavebni_objekt_kod": "16534174",
        "ulice_kod": None,
        "plati_od": "2011-07-01",
        "bod": None,
    }
    # Every address point sits on a building of the file, in a part of the municipality, and has a postcode.
    buildings = {r["kod"]: r for r in records if r["kind"] == "stavebni_objekt"}
    assert all(a["stavebni_objekt_kod"] in buildings for a in addresses)
    assert {buildings[a["stavebni_objekt_kod"]]["cast_obce_kod"] for a in addresses} <= set(parts)
    assert all(a["psc"] and a["cislo_domovni"] for a in addresses)


def test_kinds_filter_and_unknown_kinds():
    addresses = list(ruian.iter_records(DECANY, kinds=["adresni_misto"]))
    assert len(addresses) == 221 and {a["kind"] for a in addresses} == {"adresni_misto"}
    assert [r["nazev"] for r in ruian.iter_records(DECANY, kinds=("obec",))] == ["Děčany"]
    with pytest.raises(ValueError, match="parcela"):
        list(ruian.iter_records(DECANY, kinds=["parcela"]))


def test_change_batch_has_streets_and_coordinates():
    records = list(ruian.iter_records(CHANGES))
    assert [r["kind"] for r in records] == ["stavebni_objekt", "stavebni_objekt", "adresni_misto"]
    address = records[-1]
    assert address["kod"] == "72858141" and address["ulice_kod"] == "692069" and address["psc"] == "53345"
    assert address["bod"] == (-646620.95, -1050123.24)
    assert records[0]["cisla_domovni"] == ["367"] and records[0]["cast_obce_kod"] == "19551"


def test_header():
    header = ruian.read_header(DECANY)
    assert header["TypSouboru"] == "OB_UKSH" and header["TypDavky"] == "Plna"
    assert header["metadata"] == "http://cuzk.cz/ruian/metadata/20140331_OB_564729_UKSH.xml"
    assert (header["obec_kod"], header["obec_nazev"]) == ("564729", "Děčany")
    changes = ruian.read_header(CHANGES)
    assert changes["TypDavky"] == "Prirustek" and changes["PredchoziSoubor"] == "20140704_ST_ZKSH.xml.gz"
    assert "obec_nazev" not in changes
    assert "obec_kod" not in ruian.read_header(DECANY, peek_obec=False)


def test_plain_gzip_zip_bytes_and_streams_read_alike():
    xml = gzip.decompress(CHANGES.read_bytes())
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("20140706_ST_ZKSH.xml", xml)
    expected = list(ruian.iter_records(CHANGES))
    for source in (xml, CHANGES.read_bytes(), archive.getvalue(), io.BytesIO(xml), str(CHANGES)):
        assert list(ruian.iter_records(source)) == expected


def test_not_a_vfr_file():
    with pytest.raises(ruian.VfrError):
        ruian.read_header(b"<html><body>Not found</body></html>")
    with pytest.raises(ruian.VfrError):
        list(ruian.iter_records(b"<vf:VymennyFormat xmlns:vf='x'><broken"))
    with pytest.raises(ruian.VfrError):
        ruian.read_header(b"\x1f\x8b\x08\x00 truncated gzip")
    with pytest.raises(ruian.VfrError):
        list(ruian.iter_records(b"PK\x03\x04 not really a zip"))


def test_file_names_and_document_ids():
    assert ruian.parse_file_name("20140331_OB_564729_UKSH.xml.gz") == {
        "date": "2014-03-31",
        "type": "OB_564729_UKSH",
        "obec": "564729",
        "full": True,
        "scope": "OB",
    }
    assert (
        ruian.parse_file_name("https://vdp.cuzk.gov.cz/vymenny_format/soucasna/20240131_ST_ZKSH.xml.zip")["scope"]
        == "ST"
    )
    assert ruian.parse_file_name("readme.txt") is None
    assert ruian.doc_id_for_file("20140331_OB_564729_UKSH.xml.gz") == "ruian:OB_564729_UKSH"
    assert ruian.doc_id_for_file("20240229_OB_564729_UKSH.xml.zip") == "ruian:OB_564729_UKSH"  # same document
    assert ruian.doc_id_for_file("20140706_ST_ZKSH.xml.gz") == "ruian:20140706_ST_ZKSH"


def _synthetic_vfr(addresses: int) -> bytes:
    """A well-formed VFR with many address points (each carrying a little geometry), made from the real one's
    header and record shape."""
    head = (
        b'<?xml version="1.0" encoding="UTF-8"?><vf:VymennyFormat xmlns:vf="urn:cz:isvs:ruian:schemas:VymennyFormatTypy:v1"'
        b' xmlns:ami="urn:cz:isvs:ruian:schemas:AdrMistoIntTypy:v1" xmlns:soi="urn:cz:isvs:ruian:schemas:StavObjIntTypy:v1"'
        b' xmlns:gml="http://www.opengis.net/gml/3.2"><vf:Hlavicka><vf:TypSouboru>ST_UKSH</vf:TypSouboru></vf:Hlavicka>'
        b"<vf:Data><vf:AdresniMista>"
    )
    boundary = " ".join(f"-7{i}.25 -10{i}.75" for i in range(60))  # ~1.2 kB of coordinates a record
    record = (
        '<vf:AdresniMisto gml:id="AD.{n}"><ami:Kod>{n}</ami:Kod><ami:CisloDomovni>{d}</ami:CisloDomovni>'
        "<ami:Psc>11000</ami:Psc><ami:StavebniObjekt><soi:Kod>{n}</soi:Kod></ami:StavebniObjekt>"
        "<ami:Geometrie><ami:DefinicniBod><ami:AdresniBod><gml:Point><gml:pos>-7{d}.00 -10{d}.00</gml:pos>"
        "</gml:Point></ami:AdresniBod></ami:DefinicniBod><ami:Hranice><gml:posList>"
        + boundary
        + "</gml:posList></ami:Hranice></ami:Geometrie></vf:AdresniMisto>"
    )
    body = "".join(record.format(n=1_000_000 + i, d=i % 9000 + 1) for i in range(addresses)).encode()
    return head + body + b"</vf:AdresniMista></vf:Data></vf:VymennyFormat>"


def test_memory_stays_flat_on_a_large_file():
    data = gzip.compress(_synthetic_vfr(8_000), compresslevel=1)  # ~12 MB of XML: kept whole, far above the bound
    tracemalloc.start()
    try:
        count = 0
        for _record in ruian.iter_records(io.BytesIO(data), kinds=["adresni_misto"]):
            count += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 8_000
    assert peak < 3 * 1024 * 1024, f"peak {peak} bytes: the reader holds on to records"
