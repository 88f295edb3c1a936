"""Court decisions as their courts describe them: ``court_decisions``, one row per stored decision, read from its
stored original — a Nejvyšší soud decision page's header, a NALUS text page's sign and form, a lower court's
open-data record.

Each row holds the court and its level (mendel.law.courts), the file number as written and in the canonical form
every spelling is matched in, the ECLI only where the source gives one (a Nejvyšší soud page's ECLI row, an
open-data record's ``ecli``; never one built by pattern), the decision and publication dates, the decision's type
and category, its keywords, the provisions the source's metadata lists (as listed: "§ 142 z. č. 99/1963 Sb."; the
citator parses them) and every metadata field as the source gives it. A row is rewritten when its document's
current version changes or this reader does.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import psycopg
from psycopg.types.json import Jsonb

from mendel.core.rawstore import RawStore
from mendel.czech.dates import parse_iso_date, parse_numeric_date
from mendel.extract.court_pages import decision_page, keyword_values, listed_values
from mendel.extract.court_record import TEXT_FIELDS, is_opendata_record
from mendel.law.courts import CONSTITUTIONAL, court_named
from mendel.law.identifiers import canonical_file_number_of, file_number, parse_ecli

COURT_SOURCES = ("nsoud", "nalus", "nssoud", "justice")
# What this reader runs (a test holds it to the reader's import closure): a change to any rewrites every row.
READER_FILES = (
    "records/court_decisions.py",
    "extract/court_pages.py",
    "extract/court_record.py",
    "extract/normalize.py",
    "extract/text.py",
    "extract/model.py",
    "law/courts.py",
    "law/identifiers.py",
    "czech/dates.py",
)
CONSTITUTIONAL_COURT = "Ústavní soud"


def reader_version() -> str:
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for name in READER_FILES:
        digest.update(name.encode() + b"\0" + (package / name).read_bytes())
    return f"court-decisions-{digest.hexdigest()[:12]}"


def _date(value):
    return parse_iso_date(str(value or "")[:10]) or parse_numeric_date(str(value or ""))


def from_open_data(record: dict) -> dict:
    """An open-data record's row (its texts are the document's pages, not metadata)."""
    fields = {key: value for key, value in record.items() if key not in {k for k, _ in TEXT_FIELDS}}
    ecli = str(record.get("ecli") or "").strip()
    return {
        "court": str(record.get("soud") or "").strip(),
        "file_number": str(record.get("jednaciCislo") or "").strip() or None,
        "ecli": ecli if parse_ecli(ecli) else None,
        "decided": _date(record.get("datumVydani")),
        "published": _date(record.get("datumZverejneni")),
        "decision_type": None,
        "category": None,
        "keywords": [str(k).strip() for k in record.get("klicovaSlova") or [] if str(k).strip()],
        "provisions": [str(p).strip() for p in record.get("zminenaUstanoveni") or [] if str(p).strip()],
        "fields": fields,
    }


def from_page(site: str, fields: dict[str, str]) -> dict:
    """A decision page's row: a Nejvyšší soud page's header (the site's labels or the Sbírka's), a NALUS page's."""
    if site == "nalus":
        return {
            "court": CONSTITUTIONAL_COURT,
            "file_number": file_number(fields.get("Spisová značka")) or None,
            "ecli": None,  # a NALUS text page names none
            "decided": _date(fields.get("Datum rozhodnutí")),
            "published": None,
            "decision_type": fields.get("Forma rozhodnutí") or None,
            "category": None,
            "keywords": [],
            "provisions": [],
            "fields": fields,
        }
    ecli = (fields.get("ECLI") or "").strip()
    return {
        "court": fields.get("Soud") or "Nejvyšší soud",
        "file_number": fields.get("Spisová značka") or None,
        "ecli": ecli if parse_ecli(ecli) else None,
        "decided": _date(fields.get("Datum rozhodnutí")),
        "published": _date(fields.get("Zveřejněno na webu")),
        "decision_type": fields.get("Typ rozhodnutí") or None,
        "category": fields.get("Kategorie rozhodnutí") or fields.get("Druh") or None,
        "keywords": keyword_values(fields.get("Heslo") or fields.get("Hesla")),
        "provisions": listed_values(fields.get("Dotčené předpisy") or fields.get("Předpisy")),
        "fields": fields,
    }


def read_decision(data: bytes, content_type: str | None) -> dict | None:
    """The row of a stored original, or None when it is no court decision this reader knows."""
    media, _, params = (content_type or "").partition(";")
    charset = params.split("charset=", 1)[1].strip() if "charset=" in params else None
    if media.strip().endswith("json"):
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        return from_open_data(record) if is_opendata_record(record) else None
    page = decision_page(data, charset)
    return from_page(page.site, page.fields) if page else None


def update_court_decisions(conn: psycopg.Connection, store: RawStore) -> dict:
    """A row for every active decision of a court source whose current version has none (or one another reader
    version made); rows of documents that are no longer active decisions go."""
    version = reader_version()
    stats = {"court_decisions": 0, "court_decisions_unread": 0}
    with conn.transaction():
        stats["court_decisions_dropped"] = conn.execute(
            "DELETE FROM court_decisions c USING documents d WHERE d.doc_id = c.doc_id"
            " AND (d.status <> 'active' OR d.doc_type IS DISTINCT FROM 'decision')"
        ).rowcount
    pending = conn.execute(
        "SELECT d.doc_id, d.source, d.current_version_id, v.sha256, v.content_type FROM documents d"
        " JOIN document_versions v ON v.version_id = d.current_version_id"
        " LEFT JOIN court_decisions c ON c.doc_id = d.doc_id"
        " WHERE d.source = ANY(%s) AND d.status = 'active' AND d.doc_type = 'decision'"
        " AND (c.doc_id IS NULL OR c.version_id <> d.current_version_id OR c.made_by <> %s)",
        (list(COURT_SOURCES), version),
    ).fetchall()
    rows = []
    for doc_id, source, version_id, sha256, content_type in pending:
        try:
            row = read_decision(store.get(sha256), content_type)
        except FileNotFoundError:
            row = None
        if row is None or not row["court"]:
            stats["court_decisions_unread"] += 1
            continue
        court = court_named(row["court"])
        level = court.level if court else (CONSTITUTIONAL if row["court"] == CONSTITUTIONAL_COURT else None)
        rows.append(
            (
                doc_id,
                version_id,
                source,
                row["court"],
                level,
                row["file_number"],
                canonical_file_number_of(row["file_number"]),
                row["ecli"],
                row["decided"],
                row["published"],
                row["decision_type"],
                row["category"],
                row["keywords"],
                row["provisions"],
                Jsonb(row["fields"]),
                version,
            )
        )
    with conn.transaction(), conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO court_decisions (doc_id, version_id, source, court, court_level, file_number,"
            " file_number_key, ecli, decided, published, decision_type, category, keywords, provisions, fields,"
            " made_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (doc_id) DO UPDATE SET version_id = EXCLUDED.version_id, source = EXCLUDED.source,"
            " court = EXCLUDED.court, court_level = EXCLUDED.court_level, file_number = EXCLUDED.file_number,"
            " file_number_key = EXCLUDED.file_number_key, ecli = EXCLUDED.ecli, decided = EXCLUDED.decided,"
            " published = EXCLUDED.published, decision_type = EXCLUDED.decision_type, category = EXCLUDED.category,"
            " keywords = EXCLUDED.keywords, provisions = EXCLUDED.provisions, fields = EXCLUDED.fields,"
            " made_by = EXCLUDED.made_by",
            rows,
        )
    stats["court_decisions"] = len(rows)
    return stats


def document_courts(conn: psycopg.Connection) -> dict[str, dict]:
    """doc_id → {court, court_level, file_number (canonical)} of every active decision with a row: what the bundle's
    documents carry and search filters by."""
    rows = conn.execute(
        "SELECT c.doc_id, c.court, c.court_level, c.file_number_key FROM court_decisions c"
        " JOIN documents d ON d.doc_id = c.doc_id AND d.status = 'active'"
    ).fetchall()
    fields = ("court", "court_level", "file_number")
    return {doc_id: {k: v for k, v in zip(fields, values) if v} for doc_id, *values in rows}
