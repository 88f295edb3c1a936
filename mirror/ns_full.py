"""The Nejvyšší soud decisions of ``courts/ns_full/`` as the mirror's NS site serves them (mirror.courts): each
file's header fields, as the file labels them, and its text.

The files (the NS site's header, or the Sbírka's after three title lines, then the text) are read by
``mendel.records.ns_text_files``, which the recogniser's held-out evaluation shares. Derived here: the UNID, the MD5
of the file name in Domino's 32 hex digits; the ECLI is only ever the one the file gives.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mendel.czech.dates import parse_numeric_date
from mendel.records.ns_text_files import read_text_file

NSF_PREFIX = "/Judikatura/judikatura_ns.nsf"


def read_full_text(path: Path) -> tuple[dict, str] | None:
    """(record, UNID) of one file, the record in the fields of ``courts/ns_decisions*.jsonl`` plus ``header``: the
    file's other header fields as (label, value); None for a file without a file number."""
    read = read_text_file(path)
    header, ecli = read.header, read.ecli
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
        "full_text": read.text,
        "header": [
            (k, v) for k, v in header if k not in ("Soud", "Spisová značka", "Datum rozhodnutí", "Typ rozhodnutí")
        ],
    }
    return record, unid
