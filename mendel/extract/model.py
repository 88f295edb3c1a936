"""The extraction data model: pages, sections, the extracted document, its limits and its one error type."""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field


class ExtractionError(Exception):
    """The document can't be turned into pages; the message is the quarantine reason."""

    @property
    def reason(self) -> str:
        return str(self)


@dataclass(frozen=True)
class ExtractionLimits:
    """Guards against oversized, bomb-like or endless inputs. Every limit breach raises ExtractionError,
    except the OCR page budget, which leaves the pages past it without text and says so in the warnings."""

    max_bytes: int = 100 * 1024 * 1024  # raw input size
    max_pages: int = 2000  # PDF pages, TIFF frames, OFN notices
    max_pixels: int = 100_000_000  # one rendered page or one embedded/decoded image
    max_stream_bytes: int = 64 * 1024 * 1024  # PDF: one Flate stream inflated (images: 8 bytes a pixel)
    max_unzipped_bytes: int = 200 * 1024 * 1024  # DOCX: total uncompressed size of the archive
    max_zip_ratio: float = 200.0  # DOCX: uncompressed/compressed size of a member over 1 MiB
    max_zip_members: int = 10_000  # DOCX: entries in the archive
    max_text_chars: int = 50_000_000  # decoded text, HTML or JSON
    ocr: bool = True  # OCR PDF pages without a text layer and image files
    ocr_languages: str = "ces+eng"
    ocr_dpi: int = 300
    ocr_min_chars: int = 50  # fewer meaningful characters than this: the page is OCR'd
    ocr_max_pages: int = 500  # OCR budget per document
    ocr_timeout_s: float = 180.0  # per page
    ocr_workers: int | None = None  # tesseract processes at once; None: one per core (extract.ocr)


DEFAULT_LIMITS = ExtractionLimits()


@dataclass(frozen=True)
class Page:
    page_no: int  # 1-based
    text: str
    is_ocr: bool = False
    ocr_confidence: float | None = None  # mean Tesseract word confidence, 0.0-1.0, OCR pages only


@dataclass(frozen=True)
class Section:
    kind: str  # ČÁST, HLAVA, DÍL, ODDÍL, PODODDÍL, §, Čl., PŘÍLOHA, heading, notice
    label: str  # "HLAVA PRVNÍ", "§ 5", "Čl. 54"
    path: str  # labels of the open ancestors and this one joined with " > "
    depth: int  # 1 for a top-level section
    page_start: int
    page_end: int
    char_start: int  # offsets into "\n\n".join(page.text for page in pages)
    char_end: int
    parent: int | None  # index of the parent in ExtractedDocument.sections


@dataclass(frozen=True)
class ExtractedDocument:
    pages: list[Page]
    sections: list[Section]
    title: str | None
    format: str  # pdf, docx, html, text, rtf, json, image
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The document text that section offsets point into (pages joined as mendel.passages.chunking joins them)."""
        return "\n\n".join(page.text for page in self.pages)


def configured_workers(env_var: str) -> int:
    """Processes to run at once: ``env_var`` when set, else one per CPU this process may use."""
    configured = os.environ.get(env_var, "").strip()
    if configured:
        return max(1, int(configured))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


PAGE_SEPARATOR = "\n\n"  # between the pages of a document text


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """The document text and the offset at which each page starts."""
    starts, parts, offset = [], [], 0
    for text in pages:
        starts.append(offset)
        parts.append(text)
        offset += len(text) + len(PAGE_SEPARATOR)
    return PAGE_SEPARATOR.join(parts), starts


def page_at(page_starts: list[int], offset: int) -> int:
    return max(1, bisect.bisect_right(page_starts, offset))
