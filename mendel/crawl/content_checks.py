"""What a real document of each source looks like, checked before its bytes are stored.

HTTP can say a fetch went well when it did not: a site answers 200 with an HTML error page in place of a decision,
or sends a page cut short with a Content-Length that matches the cut. The crawl's first pipeline step
(``crawlers.pipelines.content_check.ContentCheckPipeline``) asks :func:`check_document` about every fetched body; a body that is
not what its source publishes is quarantined with the reason and never reaches the raw store or ``documents``.

Checks go by the body's kind (every source):

- PDF: starts with ``%PDF-``, has ``%%EOF`` near its end, and opens with at least one page;
- DOCX (a ZIP): the archive's directory reads and holds ``word/document.xml``;
- HTML: complete, i.e. a closing ``</html>`` near the end;
- JSON: parses, and is an object;
- gzip: the stream ends where the member says it ends (nothing cut off).

and then by the source (:data:`SOURCE_CHECKS`): a court decision (Nejvyšší soud, Ústavní soud, Nejvyšší správní
soud) names its court and its file number in a body of real length; a notice of a board feed is a JSON object with
a title or an IRI.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from io import BytesIO
from typing import Callable, Optional

from mendel.czech.dates import parse_iso_date

# Even a short resolution runs to a few paragraphs; an error or placeholder page is a sentence or two.
MIN_DECISION_CHARS = 200
# How far from the end of a file its closing marker may sit (sites append whitespace, comments, tracking tags).
PDF_EOF_WINDOW = 2048
HTML_END_WINDOW = 4096
_PDFIUM_LOCK = threading.Lock()  # pdfium is not thread-safe; the board crawl checks on worker threads


@dataclass(frozen=True)
class Candidate:
    """A fetched body and what the spider read from it."""

    source: str
    url: str
    body: bytes
    content_type: str = ""
    doc_type: Optional[str] = None
    title: Optional[str] = None
    citation: Optional[str] = None  # a decision's file number
    extra: dict = field(default_factory=dict)

    @property
    def media_type(self) -> str:
        return self.content_type.split(";")[0].strip().lower()

    @property
    def charset(self) -> Optional[str]:
        found = re.search(r"charset\s*=\s*[\"']?([-\w.:]+)", self.content_type, re.IGNORECASE)
        return found.group(1) if found else None


def body_kind(candidate: Candidate) -> str:
    """pdf, zip, html, json, gzip, text or other: by the bytes first, then the declared type."""
    head = candidate.body[:1024]
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    media = candidate.media_type
    if media in ("application/pdf",):
        return "pdf"
    if media in ("text/html", "application/xhtml+xml"):
        return "html"
    if media == "application/json" or media.endswith("+json"):
        return "json"
    if media.startswith("text/"):
        return "text"
    return "other"


def decoded(candidate: Candidate) -> str:
    """The body as text in the encoding it is in (its BOM, its declared charset, or detection)."""
    from mendel.extract.text import detect_encoding

    declared = candidate.charset
    if declared is None:
        meta = re.search(rb"""<meta[^>]+charset\s*=\s*["']?([-\w.:]+)""", candidate.body[:4096], re.IGNORECASE)
        declared = meta.group(1).decode("ascii") if meta else None
    try:
        encoding = detect_encoding(candidate.body, declared)
    except Exception:  # undecodable by every rule: read it as UTF-8 with replacements, the checks then fail
        encoding = "utf-8"
    return candidate.body.decode(encoding, errors="replace").lstrip("\ufeff")


class _TextCollector(HTMLParser):
    """The visible text of an HTML page (no scripts, styles or markup)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def visible_text(candidate: Candidate) -> str:
    """The document's text with whitespace collapsed (HTML markup removed)."""
    text = decoded(candidate)
    if body_kind(candidate) == "html":
        collector = _TextCollector()
        collector.feed(text)
        collector.close()
        text = " ".join(collector.parts)
    return " ".join(unicodedata.normalize("NFC", text).split())


# ---------------------------------------------------------------- checks by kind of body


def check_pdf(candidate: Candidate) -> Optional[str]:
    body = candidate.body
    if not body.startswith(b"%PDF-"):
        return f"not a PDF (declared {candidate.media_type or 'no type'})"
    if b"%%EOF" not in body[-PDF_EOF_WINDOW:]:
        return "incomplete PDF: no %%EOF at its end"
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(body)
        except Exception as exc:  # pdfium's PdfiumError and friends: the file does not open
            return f"unreadable PDF: {type(exc).__name__}: {exc}"[:300]
        try:
            pages = len(document)
        finally:
            document.close()
    return None if pages else "PDF has no pages"


def check_zip(candidate: Candidate) -> Optional[str]:
    try:
        with zipfile.ZipFile(BytesIO(candidate.body)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        return f"broken ZIP archive: {exc}"[:300]
    looks_docx = candidate.media_type.endswith("wordprocessingml.document") or candidate.url.lower().endswith(".docx")
    if looks_docx and "word/document.xml" not in names:
        return "DOCX without word/document.xml"
    return None


def check_html(candidate: Candidate) -> Optional[str]:
    tail = decoded(candidate)[-HTML_END_WINDOW:]
    if not re.search(r"</html\s*>", tail, re.IGNORECASE):
        return "incomplete HTML: no closing </html>"
    return None


def check_json(candidate: Candidate) -> Optional[str]:
    try:
        value = json.loads(decoded(candidate))
    except ValueError as exc:
        return f"unparseable JSON: {exc}"[:300]
    if not isinstance(value, dict):
        return f"JSON {type(value).__name__}, not an object"
    return None


def check_gzip(candidate: Candidate, chunk: int = 1 << 20) -> Optional[str]:
    """The gzip stream is read to its end in bounded steps (the output is discarded): a cut file never ends."""
    inflater = zlib.decompressobj(31)
    data = candidate.body
    try:
        while data and not inflater.eof:
            inflater.decompress(data, chunk)
            data = inflater.unconsumed_tail
    except zlib.error as exc:
        return f"broken gzip stream: {exc}"
    return None if inflater.eof else "incomplete gzip stream: it ends before its last block"


KIND_CHECKS: dict[str, Callable[[Candidate], Optional[str]]] = {
    "pdf": check_pdf,
    "zip": check_zip,
    "html": check_html,
    "json": check_json,
    "gzip": check_gzip,
}


# ---------------------------------------------------------------- checks by source


def _court_pattern(court: str) -> re.Pattern:
    """A court's name in any case form: each word's stem (``Nejvyšší správní soud`` → ``nejvyš\\w* správ\\w*
    soud\\w*``)."""
    stems = [re.escape(word[: max(4, len(word) - 3)]) + r"\w*" for word in court.split()]
    return re.compile(r"\s+".join(stems), re.IGNORECASE)


def _file_number_pattern(file_number: str) -> re.Pattern:
    """A file number as pages write it: any spacing around its parts, dots and dashes (``II. ÚS 866/16``,
    ``II.ÚS 866/16``; ``7 Afs 41/2013-8``, ``7 Afs 41/2013 - 8``)."""
    parts = re.findall(r"\w+|[^\w\s]", file_number)
    return re.compile(r"\s*".join(re.escape(p) for p in parts), re.IGNORECASE)


def check_court_decision(candidate: Candidate) -> Optional[str]:
    """A decision page names its court and its file number, in a body of real length."""
    court = str(candidate.extra.get("court") or "").strip()
    file_number = (candidate.citation or "").strip()
    if not court:
        return "decision without its court"
    if not file_number:
        return "decision without its file number"
    text = visible_text(candidate)
    if len(text) < MIN_DECISION_CHARS:
        return f"decision body too short: {len(text)} characters of text (a decision has {MIN_DECISION_CHARS}+)"
    if not _file_number_pattern(file_number).search(text):
        return f"the page does not name the decision's file number {file_number}"
    if not _court_pattern(court).search(text):
        return f"the page does not name the court ({court})"
    return None


def check_open_data_record(candidate: Candidate) -> Optional[str]:
    """A lower court's open-data record: a decision text (výrok or odůvodnění), dates that are dates, and a court
    the court system has (mendel.law.courts)."""
    from mendel.extract.court_record import has_decision_text
    from mendel.law.courts import court_named

    record = json.loads(candidate.body)  # check_json has passed
    if not has_decision_text(record):
        return "record without decision text (výrok and odůvodnění empty)"
    for name in ("datumVydani", "datumZverejneni"):
        if parse_iso_date(str(record.get(name) or "")[:10]) is None:
            return f"record with an unparseable date: {name} {str(record.get(name))[:40]!r}"
    if court_named(record.get("soud")) is None:
        return f"record of an unknown court: {str(record.get('soud'))[:80]!r}"
    return None


def check_notice(candidate: Candidate) -> Optional[str]:
    """A board feed's notice: a JSON object with a title or an IRI (OFN ``název`` / ``iri``)."""
    notice = json.loads(candidate.body)  # check_json has passed
    if not (notice.get("název") or notice.get("iri") or candidate.title):
        return "notice with neither a title nor an IRI"
    return None


SourceCheck = Callable[[Candidate], Optional[str]]
# Per source and document type (None: every type of that source); the kind checks run first for every source.
SOURCE_CHECKS: dict[str, dict[Optional[str], SourceCheck]] = {
    "nsoud": {"decision": check_court_decision},
    "nalus": {"decision": check_court_decision},
    "nssoud": {"decision": check_court_decision},
    "justice": {"decision": check_open_data_record},
    "boards": {"notice": check_notice},
    "esbirka": {},
    "cnb": {},
    "ruian": {},
}


def check_document(candidate: Candidate) -> Optional[str]:
    """None when the body is what its source publishes; otherwise why not (one line)."""
    if not candidate.body:
        return "empty body"
    kind = body_kind(candidate)
    kind_check = KIND_CHECKS.get(kind)
    reason = kind_check(candidate) if kind_check else None
    if reason is None:
        checks = SOURCE_CHECKS.get(candidate.source, {})
        source_check = checks.get(candidate.doc_type) or checks.get(None)
        reason = source_check(candidate) if source_check else None
    return reason


__all__ = ["Candidate", "KIND_CHECKS", "SOURCE_CHECKS", "body_kind", "check_document", "visible_text"]
