"""Court decisions for the tests: a real Nejvyšší soud decision page as the mirror serves it, the same page as a server
that double-encoded it would (UTF-8 bytes re-encoded as if they were windows-1252: "NejvyÅ¡Å¡Ã­"), and the Ústavní
soud and Nejvyšší správní soud decisions the ConCo CSVs record, read independently of the mirror."""

from __future__ import annotations

import csv
from datetime import date

from mendel.core.config import SAMPLE_CORPUS

DECISION_ID = "ECLI:CZ:NS:2024:29.ND.461.2024.1"  # the id the quality tests store the double-encoded page under


def good_decision() -> bytes:
    from mirror.courts import NsoudSite

    site = NsoudSite(SAMPLE_CORPUS)
    return site.decision_page(site.decisions[0]).body


def double_encoded_decision() -> bytes:
    return good_decision().decode("cp1252", errors="replace").encode("utf-8")


CITATIONS = SAMPLE_CORPUS / "courts" / "citations"


def conco_rows():
    """(file stem, row) of every ConCo CSV row, read independently of the mirror (a few lines are windows-1250)."""
    for path in sorted(CITATIONS.glob("ConCo-*.csv")):
        lines = []
        for raw in path.read_bytes().splitlines()[1:]:
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(raw.decode("windows-1250"))
        for row in csv.reader(lines):
            if len(row) >= 5:
                yield path.stem, [cell.strip() for cell in row]


def constitutional_since(start: date) -> dict[str, dict]:
    """NALUS key → {docket as recorded, date, references} of the ÚS decisions made on or after ``start``."""
    found: dict[str, dict] = {}
    for _stem, row in conco_rows():
        decided = date.fromisoformat(row[2])
        if decided >= start:
            entry = found.setdefault(row[0].removesuffix(".txt"), {"docket": row[1], "date": decided, "refs": []})
            entry["refs"].append(row[4])
    return found


def real_nalus_pages() -> dict[str, dict]:
    """NALUS key (the file name) → {docket, date} of the real NALUS text pages, read from their lblRegistrySign."""
    import re

    found = {}
    for path in sorted((SAMPLE_CORPUS / "courts" / "nalus_html").glob("*.html")):
        sign = re.search(r'id="lblRegistrySign"[^>]*>([^<]+) ze dne (\d+)\. (\d+)\. (\d{4})<', path.read_text("utf-8"))
        found[path.stem] = {"docket": sign.group(1), "date": date(*map(int, sign.group(4, 3, 2)))}
    return found


def administrative_since(start: date) -> dict[str, dict]:
    """CzCDC file → {date, dockets} of the NSS decisions (linked in ConCo) made on or after ``start``."""
    found: dict[str, dict] = {}
    for stem, row in conco_rows():
        if stem == "ConCo-ref-SupAdmCo" and len(row) >= 8 and row[7] == "SupAdmCo":
            decided = date.fromisoformat(row[6])
            if decided >= start:
                found.setdefault(row[5], {"date": decided, "dockets": set()})["dockets"].add(row[4])
    return found
