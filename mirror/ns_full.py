"""The Nejvyšší soud decisions of ``courts/ns_full/`` as the mirror's NS site serves them (mirror.courts): each
file's header fields, as the file labels them, and its text.

``rozhodnuti-*.txt`` start with the NS site's header ("Label: value" lines between blank lines; a právní věta on the
lines after its label), then the text. ``NS1–3.txt`` are decisions of the Sbírka soudních rozhodnutí: three title
lines (the last is the ECLI), the Sbírka's header (a value may go on over the next lines: the list of provisions)
and, after "Sbírkový text rozhodnutí:", the text. Derived here: the UNID, the MD5 of the file name in Domino's 32
hex digits; the ECLI is only ever the one the file gives.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mendel.czech.dates import parse_numeric_date

NSF_PREFIX = "/Judikatura/judikatura_ns.nsf"
NS_HEADER = (
    "Název judikátu",
    "Právní věta",
    "Soud",
    "Spisová značka",
    "Datum rozhodnutí",
    "Typ rozhodnutí",
    "Heslo",
    "Dotčené předpisy",
    "Kategorie rozhodnutí",
    "Publikováno ve sbírce pod číslem",
    "Důvod dovolání",
)
SBIRKA_HEADER = (
    "Číslo",
    "Právní věta",
    "Soud",
    "Datum rozhodnutí",
    "Spisová značka",
    "Číslo rozhodnutí",
    "Číslo sešitu",
    "Typ rozhodnutí",
    "Hesla",
    "Předpisy",
    "Druh",
)
SBIRKA_TEXT = "Sbírkový text rozhodnutí:"
_LABELLED = re.compile(r"^(?P<label>[^:\n]{2,40}):[ \t]*(?P<value>.*)$")
_ECLI = re.compile(r"ECLI:CZ:NS:\d{4}:[\w.]+")


def _label(line: str, labels: tuple[str, ...]) -> tuple[str, str] | None:
    m = _LABELLED.match(line)
    return (m.group("label").strip(), m.group("value").strip()) if m and m.group("label").strip() in labels else None


def site_header(lines: list[str]) -> tuple[list[tuple[str, str]], int]:
    """The NS site's header fields and the line the text starts at."""
    header: list[tuple[str, str]] = []
    continuing = False  # inside a value that goes on over the next lines (a právní věta, a two-line name)
    for index, line in enumerate(lines):
        labelled = _label(line, NS_HEADER)
        if labelled:
            header.append(labelled)
            continuing = True
        elif not line.strip():
            continuing = continuing and not header[-1][1]  # a blank line ends a value that has begun
        elif continuing:
            header[-1] = (header[-1][0], f"{header[-1][1]} {line.strip()}".strip())
        else:
            return header, index
    return header, len(lines)


def sbirka_header(lines: list[str]) -> tuple[list[tuple[str, str]], int]:
    """The Sbírka's header fields (after the three title lines) and the line the text starts at."""
    header: list[tuple[str, str]] = []
    for index, line in enumerate(lines):
        if line.strip() == SBIRKA_TEXT:
            return header, index + 1
        labelled = _label(line, SBIRKA_HEADER)
        if labelled:
            header.append(labelled)
        elif line.strip() and header:
            header[-1] = (header[-1][0], f"{header[-1][1]}\n{line.strip()}".strip())
    return header, len(lines)


def read_full_text(path: Path) -> tuple[dict, str] | None:
    """(record, UNID) of one file, the record in the fields of ``courts/ns_decisions*.jsonl`` plus ``header``: the
    file's other header fields as (label, value); None for a file without a file number."""
    lines = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    ecli = None
    if path.name.startswith("NS"):
        found = _ECLI.search(" ".join(lines[:3]))
        ecli = found.group(0) if found else None
        header, start = sbirka_header(lines[3:])
        start += 3
    else:
        header, start = site_header(lines)
    fields = dict(header)
    if not fields.get("Spisová značka"):
        return None
    decided = parse_numeric_date(fields.get("Datum rozhodnutí"))
    unid = hashlib.md5(path.name.encode("utf-8")).hexdigest().upper()
    record = {
        "court": fields.get("Soud") or "",
        "case_number": fields["Spisová značka"],
        "ecli": ecli,
        "decision_date": decided.isoformat() if decided else None,
        "publication_date": None,
        "document_type": fields.get("Typ rozhodnutí") or "",
        "url": f"https://rozhodnuti.nsoud.cz{NSF_PREFIX}/WebSearch/{unid}?openDocument",
        "full_text": "\n".join(lines[start:]).strip("\n"),
        "header": [
            (k, v) for k, v in header if k not in ("Soud", "Spisová značka", "Datum rozhodnutí", "Typ rozhodnutí")
        ],
    }
    return record, unid
