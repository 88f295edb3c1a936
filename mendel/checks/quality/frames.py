"""The rows the quality suites validate: the extracted corpus as three frames of derived columns (the page text
itself stays out), read from ``ExtractedDocument``s or streamed from PostgreSQL one document at a time.

* documents - one row per document: its id, page count, letters and the share of Czech-specific letters;
* pages - one row per page: number, expected number (its position), whether it has text, the first mojibake found
  (a snippet) and, for OCR'd pages, the confidence;
* sections - one row per section: kind, depth, page and character span, the document's page count and text length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from mendel.extract.model import PAGE_SEPARATOR
from mendel.extract.normalize import meaningful_chars

_CZECH_LETTERS = frozenset("áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ")
_SNIPPET = 20  # characters either side of a mojibake match


@dataclass
class Frames:
    documents: list[dict] = field(default_factory=list)
    pages: list[dict] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)  # doc_id -> the version validated (database only)
    new: set[str] = field(default_factory=set)  # doc_ids whose version is checked for the first time


def czech_share(letters: int, czech: int) -> float:
    return czech / letters if letters else 0.0


def _mojibake(text: str, patterns: list[re.Pattern]) -> str | None:
    first = None
    for pattern in patterns:
        match = pattern.search(text)
        if match and (first is None or match.start() < first.start()):
            first = match
    if first is None:
        return None
    start, end = max(0, first.start() - _SNIPPET), first.end() + _SNIPPET
    return " ".join(text[start:end].split())


class FrameBuilder:
    """Adds one document at a time (its pages and sections in order), keeping only derived columns."""

    def __init__(self, thresholds: dict):
        pages = thresholds["pages"]
        self.patterns = [re.compile(p) for p in pages["no_mojibake"]["patterns"]]
        self.min_chars = int(pages["non_empty_text_share"]["min_meaningful_chars"])
        self.min_letters = int(thresholds["documents"]["czech_character_share"]["min_letters"])
        self.frames = Frames()

    def add(self, doc_id: str, pages: Sequence, sections: Sequence = ()) -> None:
        """`pages`: objects with page_no, text, is_ocr, ocr_confidence (extract.model.Page or rows alike);
        `sections`: objects with kind, label, depth, page_start, page_end, char_start, char_end."""
        letters = czech = text_length = 0
        for position, page in enumerate(pages, start=1):
            text = page.text or ""
            text_length += len(text) + (len(PAGE_SEPARATOR) if position > 1 else 0)
            page_letters = sum(1 for ch in text if ch.isalpha())
            letters += page_letters
            czech += sum(1 for ch in text if ch in _CZECH_LETTERS)
            self.frames.pages.append(
                {
                    "doc_id": doc_id,
                    "page_key": f"{doc_id} p. {page.page_no}",
                    "page_no": int(page.page_no),
                    "expected_page_no": position,
                    "has_text": meaningful_chars(text) >= self.min_chars,
                    "mojibake": _mojibake(text, self.patterns),
                    "ocr_confidence": float(page.ocr_confidence)
                    if page.is_ocr and page.ocr_confidence is not None
                    else None,
                }
            )
        self.frames.documents.append(
            {
                "doc_id": doc_id,
                "pages": len(pages),
                "letters": letters,
                "czech_share": round(czech_share(letters, czech), 4) if letters >= self.min_letters else None,
            }
        )
        for section in sections:
            self.frames.sections.append(
                {
                    "doc_id": doc_id,
                    "section_key": f"{doc_id} {section.label}",
                    "kind": section.kind,
                    "depth": int(section.depth),
                    "page_start": int(section.page_start),
                    "page_end": int(section.page_end),
                    "page_count": len(pages),
                    "char_start": int(section.char_start),
                    "char_end": int(section.char_end),
                    "text_length": text_length,
                }
            )


def frames_from_documents(documents: Iterable[tuple[str, Any]], thresholds: dict) -> Frames:
    """Frames of (doc_id, ExtractedDocument) pairs."""
    builder = FrameBuilder(thresholds)
    for doc_id, document in documents:
        builder.add(doc_id, document.pages, document.sections)
    return builder.frames


@dataclass(frozen=True)
class _PageRow:
    page_no: int
    text: str
    is_ocr: bool
    ocr_confidence: float | None


@dataclass(frozen=True)
class _SectionRow:
    kind: str
    label: str
    depth: int
    page_start: int
    page_end: int
    char_start: int
    char_end: int


# Quarantined current versions are validated too: they count among the failing documents until they pass again.
LIVE = " WHERE d.status = 'active'"
# Composed once here from constants: the sections and the pages of live documents' current versions
# (all of them, or those of the versions in %(versions)s).
_ONLY_VERSIONS = " AND d.current_version_id = ANY(%(versions)s)"
_LIVE_SECTIONS_TEMPLATE = (
    "SELECT d.doc_id, s.kind, s.label, s.depth, s.page_start, s.page_end, s.char_start, s.char_end"
    " FROM documents d JOIN sections s ON s.version_id = d.current_version_id" + LIVE + "{only}"
    " ORDER BY d.doc_id, s.char_start, s.depth, s.section_id"
)
_LIVE_PAGES_TEMPLATE = (
    "SELECT d.doc_id, d.current_version_id, v.quality_checked_at IS NULL, p.page_no, p.text, p.is_ocr,"
    " p.ocr_confidence FROM documents d JOIN document_versions v ON v.version_id = d.current_version_id"
    " JOIN pages p ON p.version_id = d.current_version_id" + LIVE + "{only}"
    " ORDER BY d.doc_id, p.page_no"
)
# by whether only the versions in %(versions)s are read
_LIVE_SECTIONS = {only: _LIVE_SECTIONS_TEMPLATE.format(only=_ONLY_VERSIONS if only else "") for only in (False, True)}
_LIVE_PAGES = {only: _LIVE_PAGES_TEMPLATE.format(only=_ONLY_VERSIONS if only else "") for only in (False, True)}


def frames_from_database(conn, thresholds: dict, versions: Sequence[int] | None = None) -> Frames:
    """Frames of the current extracted version of every active document that has pages (or of
    those whose current version is in ``versions``), streamed one document at a time so that no more than one
    document's text is held."""
    only = versions is not None
    params = None if versions is None else {"versions": list(versions)}
    builder = FrameBuilder(thresholds)
    sections: dict[str, list[_SectionRow]] = {}
    for doc_id, *row in conn.execute(_LIVE_SECTIONS[only], params):
        sections.setdefault(doc_id, []).append(_SectionRow(*row))
    current: str | None = None
    pages: list[_PageRow] = []
    with conn.cursor() as cursor:
        for doc_id, version_id, is_new, *row in cursor.stream(_LIVE_PAGES[only], params):
            if doc_id != current:
                if current is not None:
                    builder.add(current, pages, sections.get(current, ()))
                current, pages = doc_id, []
                builder.frames.versions[doc_id] = version_id
                if is_new:
                    builder.frames.new.add(doc_id)
            pages.append(_PageRow(*row))
        if current is not None:
            builder.add(current, pages, sections.get(current, ()))
    return builder.frames
