"""RÚIAN výměnný formát (VFR): a streaming reader of ČÚZK's exchange-format XML.

A VFR file (``{YYYYMMDD}_OB_{kód obce}_UKSH.xml.gz``, ``..._ST_ZKSH.xml.gz``; today also ``.xml.zip``) is one
``vf:VymennyFormat`` document: ``vf:Hlavicka`` (file type, batch kind, date) and ``vf:Data`` with one container
per element kind (``vf:Obce``, ``vf:CastiObci``, ``vf:Ulice``, ``vf:StavebniObjekty``, ``vf:AdresniMista``,
``vf:Parcely``...). State-wide files are gigabytes, so nothing here loads a file whole: :func:`iter_records`
walks it with ``iterparse`` and frees every record (and everything else, parcels and geometry included) as soon
as it ends, yielding plain dicts.

Codes stay strings (they are identifiers, some with leading zeros elsewhere in RÚIAN); coordinates are S-JTSK
(EPSG:5514) floats from the record's definition point, when the file has geometry.
"""

from __future__ import annotations

import gzip
import io
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO
from xml.etree.ElementTree import iterparse

NS = {
    "vf": "urn:cz:isvs:ruian:schemas:VymennyFormatTypy:v1",
    "com": "urn:cz:isvs:ruian:schemas:CommonTypy:v1",
    "obi": "urn:cz:isvs:ruian:schemas:ObecIntTypy:v1",
    "coi": "urn:cz:isvs:ruian:schemas:CastObceIntTypy:v1",
    "uli": "urn:cz:isvs:ruian:schemas:UliceIntTypy:v1",
    "soi": "urn:cz:isvs:ruian:schemas:StavObjIntTypy:v1",
    "ami": "urn:cz:isvs:ruian:schemas:AdrMistoIntTypy:v1",
    "oki": "urn:cz:isvs:ruian:schemas:OkresIntTypy:v1",
    "pui": "urn:cz:isvs:ruian:schemas:PouIntTypy:v1",
    "gml": "http://www.opengis.net/gml/3.2",
    "xlink": "http://www.w3.org/1999/xlink",
}


def _q(name: str) -> str:
    prefix, local = name.split(":")
    return f"{{{NS[prefix]}}}{local}"


# Record element → the kind it is yielded as.
RECORD_KINDS = {
    _q("vf:Obec"): "obec",
    _q("vf:CastObce"): "cast_obce",
    _q("vf:Ulice"): "ulice",
    _q("vf:StavebniObjekt"): "stavebni_objekt",
    _q("vf:AdresniMisto"): "adresni_misto",
}
KINDS = tuple(RECORD_KINDS.values())
_DATA = _q("vf:Data")
_HEADER = _q("vf:Hlavicka")
_FILE_NAME = re.compile(
    r"(?P<date>\d{8})_(?P<type>(?:OB_(?P<obec>\d+)_|ST_)(?P<suffix>[UZ][A-Z]{3}))\.xml(?:\.(?:gz|zip))?$"
)


class VfrError(ValueError):
    """Not a readable VFR file."""


_STREAM_ERRORS = (OSError, EOFError, zlib.error, zipfile.BadZipFile)


# ---------------------------------------------------------------- opening


@contextmanager
def open_vfr(source: str | Path | bytes | BinaryIO) -> Iterator[BinaryIO]:
    """A binary stream of the XML, whether the source is gzip, zip (one member) or plain XML."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as raw, open_vfr(raw) as stream:
            yield stream
        return
    raw = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
    magic = raw.read(4)
    raw.seek(0)
    if magic[:2] == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=raw) as stream:
            yield stream
    elif magic == b"PK\x03\x04":
        with zipfile.ZipFile(raw) as archive:
            members = [m for m in archive.namelist() if m.lower().endswith(".xml")]
            if len(members) != 1:
                raise VfrError(f"expected one .xml member in the zip, found {len(members)}")
            with archive.open(members[0]) as stream:
                yield stream
    else:
        yield raw


# ---------------------------------------------------------------- file names and the header


def parse_file_name(name: str) -> dict | None:
    """``20140331_OB_564729_UKSH.xml.gz`` → ``{date: 2014-03-31, type: OB_564729_UKSH, obec: 564729, ...}``."""
    m = _FILE_NAME.search(name.rsplit("/", 1)[-1])
    if not m:
        return None
    d = m.group("date")
    suffix = m.group("suffix")
    return {
        "date": f"{d[:4]}-{d[4:6]}-{d[6:]}",
        "type": m.group("type"),
        "obec": m.group("obec"),
        "full": suffix.startswith("U"),
        "scope": "OB" if m.group("obec") else "ST",
    }


def doc_id_for_file(name: str) -> str:
    """A stable document key: a municipality's full file is one document whose versions are the monthly
    snapshots (``ruian:OB_564729_UKSH``); each change batch is a document of its own (``ruian:20140706_ST_ZKSH``)."""
    info = parse_file_name(name)
    if info is None:
        return "ruian:" + name.rsplit("/", 1)[-1]
    if info["full"]:
        return f"ruian:{info['type']}"
    return f"ruian:{info['date'].replace('-', '')}_{info['type']}"


def read_header(source: str | Path | bytes | BinaryIO, peek_obec: bool = True) -> dict:
    """The ``vf:Hlavicka`` fields (and, with ``peek_obec``, the first ``vf:Obec``'s code and name), reading
    only as far into the stream as needed."""
    header: dict = {}
    try:
        with open_vfr(source) as stream:
            in_header = False
            for event, elem in iterparse(stream, events=("start", "end")):
                if event == "start":
                    if elem.tag == _HEADER:
                        in_header = True
                    elif elem.tag == _DATA and not peek_obec:
                        break
                    continue
                if in_header and elem.tag == _HEADER:
                    in_header = False
                    for child in elem:
                        local = child.tag.rsplit("}", 1)[-1]
                        if local == "Metadata":
                            header["metadata"] = child.get(_q("xlink:href"))
                        elif len(child) == 0:
                            header[local] = (child.text or "").strip()
                    elem.clear()
                    if not peek_obec:
                        break
                elif elem.tag == _q("vf:Obec"):
                    header["obec_kod"] = _text(elem, "obi:Kod")
                    header["obec_nazev"] = _text(elem, "obi:Nazev")
                    break
                elif elem.tag in RECORD_KINDS or elem.tag.endswith("}Parcela"):
                    break  # no vf:Obec in this file (a change batch): stop at the first other record
    except SyntaxError as exc:  # ElementTree.ParseError
        raise VfrError(f"not well-formed XML: {exc}") from exc
    except _STREAM_ERRORS as exc:
        raise VfrError(f"unreadable stream: {exc}") from exc
    if "TypSouboru" not in header:
        raise VfrError("no vf:Hlavicka/vf:TypSouboru: not a VFR file")
    return header


# ---------------------------------------------------------------- records


def _text(elem, path: str) -> str | None:
    found = elem.find("/".join(_q(p) for p in path.split("/")))
    if found is None or found.text is None:
        return None
    return found.text.strip() or None


def _point(elem) -> tuple[float, float] | None:
    pos = elem.find(f".//{_q('gml:Point')}/{_q('gml:pos')}")
    if pos is None or not (pos.text or "").strip():
        return None
    try:
        x, y, *_ = pos.text.split()
        return float(x), float(y)
    except ValueError:  # not two numbers: no definition point rather than no file
        return None


def _obec(elem) -> dict:
    return {
        "kind": "obec",
        "kod": _text(elem, "obi:Kod"),
        "nazev": _text(elem, "obi:Nazev"),
        "status_kod": _text(elem, "obi:StatusKod"),
        "okres_kod": _text(elem, "obi:Okres/oki:Kod"),
        "pou_kod": _text(elem, "obi:Pou/pui:Kod"),
        "nuts_lau": _text(elem, "obi:NutsLau"),
        "plati_od": _date(_text(elem, "obi:PlatiOd")),
        "bod": _point(elem),
    }


def _cast_obce(elem) -> dict:
    return {
        "kind": "cast_obce",
        "kod": _text(elem, "coi:Kod"),
        "nazev": _text(elem, "coi:Nazev"),
        "obec_kod": _text(elem, "coi:Obec/obi:Kod"),
        "plati_od": _date(_text(elem, "coi:PlatiOd")),
        "bod": _point(elem),
    }


def _ulice(elem) -> dict:
    return {
        "kind": "ulice",
        "kod": _text(elem, "uli:Kod"),
        "nazev": _text(elem, "uli:Nazev"),
        "obec_kod": _text(elem, "uli:Obec/obi:Kod"),
        "plati_od": _date(_text(elem, "uli:PlatiOd")),
    }


def _stavebni_objekt(elem) -> dict:
    numbers = [n.text.strip() for n in elem.iter(_q("com:CisloDomovni")) if n.text and n.text.strip()]
    return {
        "kind": "stavebni_objekt",
        "kod": _text(elem, "soi:Kod"),
        "cisla_domovni": numbers,
        "typ_kod": _text(elem, "soi:TypStavebnihoObjektuKod"),
        "cast_obce_kod": _text(elem, "soi:CastObce/coi:Kod"),
        "plati_od": _date(_text(elem, "soi:PlatiOd")),
        "bod": _point(elem),
    }


def _adresni_misto(elem) -> dict:
    return {
        "kind": "adresni_misto",
        "kod": _text(elem, "ami:Kod"),
        "cislo_domovni": _text(elem, "ami:CisloDomovni"),
        "cislo_orientacni": _text(elem, "ami:CisloOrientacni"),
        "cislo_orientacni_pismeno": _text(elem, "ami:CisloOrientacniPismeno"),
        "psc": _text(elem, "ami:Psc"),
        "stavebni_objekt_kod": _text(elem, "ami:StavebniObjekt/soi:Kod"),
        "ulice_kod": _text(elem, "ami:Ulice/uli:Kod"),
        "plati_od": _date(_text(elem, "ami:PlatiOd")),
        "bod": _point(elem),
    }


_BUILDERS = {
    "obec": _obec,
    "cast_obce": _cast_obce,
    "ulice": _ulice,
    "stavebni_objekt": _stavebni_objekt,
    "adresni_misto": _adresni_misto,
}


def _date(value: str | None) -> str | None:
    return value[:10] if value else None


def iter_records(source: str | Path | bytes | BinaryIO, kinds: Iterable[str] = KINDS) -> Iterator[dict]:
    """Yield one dict per obec / část obce / ulice / stavební objekt / adresní místo, in file order.

    Each dict has ``kind`` and ``kod`` plus the kind's fields (names, parent codes, ``plati_od``, ``bod`` =
    S-JTSK ``(x, y)`` or None). Only ``kinds`` are built; every element is freed when it ends, so memory stays
    flat however large the file.
    """
    wanted = set(kinds)
    unknown = wanted - set(KINDS)
    if unknown:
        raise ValueError(f"unknown record kinds: {sorted(unknown)}")
    try:
        with open_vfr(source) as stream:
            depth = 0
            data_depth = None
            container = None  # the vf:Data child (vf:Obce, vf:Parcely...) being read
            for event, elem in iterparse(stream, events=("start", "end")):
                if event == "start":
                    depth += 1
                    if elem.tag == _DATA:
                        data_depth = depth
                    elif data_depth is not None and depth == data_depth + 1:
                        container = elem
                    continue
                depth -= 1
                if data_depth is None or depth != data_depth + 1:
                    continue
                # `elem` is one record directly under a container: build it if wanted, then free it.
                kind = RECORD_KINDS.get(elem.tag)
                if kind in wanted:
                    yield _BUILDERS[kind](elem)
                elem.clear()
                if container is not None:
                    container.remove(elem)
    except SyntaxError as exc:
        raise VfrError(f"not well-formed XML: {exc}") from exc
    except _STREAM_ERRORS as exc:
        raise VfrError(f"unreadable stream: {exc}") from exc
