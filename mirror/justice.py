"""Ministerstvo spravedlnosti — the lower courts' open data (rozhodnuti.justice.cz) for the local mirror.

WHAT IS SERVED: the ministry's real open-data records of 1,500 district and regional court decisions, as the
corpus holds them in the ministry's XML exports (``courts/justice_opendata/*.xml``), **converted** to the JSON of
the public API and served a publication day at a time:

- ``GET /api/opendata/{YYYY}/{MM}/{DD}?page=N`` (N from 0; month and day with or without a leading zero) →
  ``{"items": [...], "pageNumber": N, "pageSize": 100, "totalPages": T, "totalItems": K}``: the records published
  (``DatumZverejneni``) that day, in export order; a page past the last has no items, a day without records has
  none at all (``totalPages`` 0). A date that does not exist or a page that is not a number → 400.

The conversion keeps every element and every value unchanged: each child of ``<Dokument>`` becomes the key of its
name with the first letter in lower case (``JednaciCislo`` → ``jednaciCislo``, ``ECLI`` → ``ecli``), an element
with children the list of their texts (``KlicovaSlova``, ``ZminenaUstanoveni``). Derived by the mirror: that
key spelling, the paging, and the inlining of the texts (výrok, odůvodnění) in the day's items, which the real API
links from each item instead. Every answer says so in its ``X-Mendel-Derived`` header.

The exports are dirty as published, so they are read by a recovering parser: each ``<Dokument>`` is parsed on its
own, and a record that is not well-formed XML (two exports have one such point each) or that the file cuts off
is left out and listed with its file, line and the parser's reason (:attr:`JusticeSite.unreadable`); every record
before and after it is served. ``export-sample.xml`` repeats four records of ``export-1-100000.xml``: a record is
served once (by ECLI, else file number and court).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import parse_qs

from lxml import etree

from .responses import Response, json_response

API_PATH = re.compile(r"^/api/opendata/(\d{4})/(\d{1,2})/(\d{1,2})/?$")
CORPUS_DIR = "courts/justice_opendata"
PAGE_SIZE = 100
DERIVED = (
    "converted from the ministry's open-data XML export (sample_corpus/courts/justice_opendata): "
    "keys in the API's spelling, texts inlined, paged by the mirror"
)
LIST_ELEMENTS = ("KlicovaSlova", "ZminenaUstanoveni")
_RECORD_START = re.compile(rb"<Dokument>")
_RECORD_END = b"</Dokument>"


@dataclass(frozen=True)
class Unreadable:
    """A record of an export that the mirror could not read, and why."""

    file: str
    line: int
    reason: str


def _key(tag: str) -> str:
    return tag[:1].lower() + tag[1:] if tag != "ECLI" else "ecli"


def record_of(element) -> dict:
    """One ``<Dokument>`` as the API's JSON object: every child kept, its value unchanged; a list element (one
    with children, or a known list left empty) as the list of its items' texts."""
    record: dict = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue  # a comment or processing instruction
        if len(child) or child.tag in LIST_ELEMENTS:
            record[_key(child.tag)] = [item.text or "" for item in child if isinstance(item.tag, str)]
        else:
            record[_key(child.tag)] = child.text or ""
    return record


def read_export(path: Path) -> tuple[list[dict], list[Unreadable]]:
    """The records of one export, each parsed on its own (the file as a whole may not be well-formed XML), and
    the ones that could not be read."""
    data = path.read_bytes()
    starts = [m.start() for m in _RECORD_START.finditer(data)]
    records, unreadable = [], []
    for index, start in enumerate(starts):
        following = starts[index + 1] if index + 1 < len(starts) else len(data)
        end = data.find(_RECORD_END, start, following)
        line = data.count(b"\n", 0, start) + 1
        if end < 0:
            unreadable.append(Unreadable(path.name, line, "the record is cut off: no </Dokument> before the end"))
            continue
        try:
            element = etree.fromstring(data[start : end + len(_RECORD_END)])
        except etree.XMLSyntaxError as exc:
            where = (exc.position[0] + line - 1) if exc.position else line
            reason = re.sub(r",? line \d+, column \d+.*$", "", str(exc.msg))
            unreadable.append(Unreadable(path.name, where, f"not well-formed XML: {reason}"))
            continue
        records.append(record_of(element))
    return records, unreadable


def _export_order(path: Path) -> tuple:
    numbers = re.findall(r"\d+", path.stem)
    return (0, int(numbers[0])) if numbers else (1, 0)  # export-1, export-2, …, export-15, then export-sample


def _identity(record: dict) -> tuple:
    return (record.get("ecli") or "",) if record.get("ecli") else (record.get("jednaciCislo"), record.get("soud"))


class JusticeSite:
    """Routes for ``/api/opendata/...``; the exports are read on the first request."""

    def __init__(self, corpus_root: Path):
        self.corpus_root = Path(corpus_root)
        self._lock = threading.Lock()
        self._days: dict[str, list[dict]] | None = None
        self._mtime = 0.0
        self.unreadable: list[Unreadable] = []
        self.duplicates = 0

    def days(self) -> dict[str, list[dict]]:
        """Records by publication day (ISO date), in export order."""
        with self._lock:
            if self._days is None:
                days: dict[str, list[dict]] = {}
                seen: set[tuple] = set()
                unreadable: list[Unreadable] = []
                files = sorted((self.corpus_root / CORPUS_DIR).glob("*.xml"), key=_export_order)
                for path in files:
                    records, bad = read_export(path)
                    unreadable += bad
                    for record in records:
                        identity = _identity(record)
                        if identity in seen:
                            self.duplicates += 1
                            continue
                        seen.add(identity)
                        days.setdefault(str(record.get("datumZverejneni") or "")[:10], []).append(record)
                self._mtime = max((p.stat().st_mtime for p in files), default=0.0)
                self.unreadable = unreadable
                self._days = days
            return self._days

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if method not in ("GET", "HEAD"):
            return None
        m = API_PATH.match(path)
        if m is None:
            return None
        try:
            day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return _problem(400, f"no such date: {path}")
        page_values = parse_qs(query).get("page") or ["0"]
        if not page_values[0].isdigit():
            return _problem(400, f"page must be a number from 0, not {page_values[0]!r}")
        return self.day_page(day, int(page_values[0]))

    def day_page(self, day: date, page: int) -> Response:
        records = self.days().get(day.isoformat(), [])
        pages = -(-len(records) // PAGE_SIZE)
        payload = {
            "items": records[page * PAGE_SIZE : (page + 1) * PAGE_SIZE],
            "pageNumber": page,
            "pageSize": PAGE_SIZE,
            "totalPages": pages,
            "totalItems": len(records),
        }
        response = json_response(payload, last_modified=self._mtime if records else None)
        response.headers["X-Mendel-Derived"] = DERIVED
        return response


def _problem(status: int, detail: str) -> Response:
    response = json_response({"status": status, "detail": detail}, status=status)
    response.headers["X-Mendel-Derived"] = DERIVED
    return response
