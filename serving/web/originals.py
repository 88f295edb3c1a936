"""The stored originals behind a bundle's documents: the raw file, and a PDF page as PNG with its evidence boxes.

A bundle's documents (``mendel.index.bundle.read_documents``) name each document's current original by ``sha256``
(and ``content_type``); the bytes are in the crawl's content-addressed raw store (``mendel.core.rawstore``), by
default ``<home>/raw`` beside ``<home>/bundles``. PDFium is not thread-safe, so every PDFium call here holds one
lock; rendered pages are kept in a small LRU cache (a page view asks for the same image again).
"""

from __future__ import annotations

import functools
import io
import mimetypes
import re
import threading
from pathlib import Path

from mendel.core.rawstore import RawStore
from serving.web.evidence import Box, PageEvidence, locate_passage, term_spans

PDF_TYPES = ("application/pdf", "application/x-pdf")
PAGE_SCALE = 1.5  # 108 dpi: A4 renders at 893 x 1263 px, readable without zooming
_PDFIUM = threading.Lock()


class OriginalMissing(LookupError):
    """No stored original for a document (the bundle does not name one, or the raw store lacks it)."""


class NotAPdf(ValueError):
    pass


class PageOutOfRange(IndexError):
    def __init__(self, page: int, pages: int):
        super().__init__(f"page {page} is not in the document (it has {pages} page{'s' if pages != 1 else ''})")
        self.pages = pages


class Originals:
    def __init__(self, raw_dir: Path):
        self.store = RawStore(raw_dir)

    def locate(self, doc: dict) -> tuple[Path, str]:
        """Path and media type of a bundle document's stored original."""
        sha256 = doc.get("sha256")
        if not sha256:
            raise OriginalMissing("the bundle names no stored original for this document")
        try:
            path = self.store.path_for(sha256)
        except ValueError:
            raise OriginalMissing("the bundle's original reference is not a sha256 digest") from None
        if not path.is_file():
            raise OriginalMissing("the original is not in this server's raw store")
        return path, media_type(doc, path)

    def is_pdf(self, doc: dict) -> bool:
        try:
            path, kind = self.locate(doc)
        except OriginalMissing:
            return False
        return kind in PDF_TYPES or _looks_like_pdf(path)

    def pdf(self, doc: dict) -> Path:
        path, kind = self.locate(doc)
        if kind not in PDF_TYPES and not _looks_like_pdf(path):
            raise NotAPdf(f"the original is {kind}, not a PDF: it has no pages to render")
        return path

    def page_count(self, doc: dict) -> int:
        return _page_count(str(self.pdf(doc)))

    def page_png(self, doc: dict, page: int) -> bytes:
        path = self.pdf(doc)
        pages = _page_count(str(path))
        if not 1 <= page <= pages:
            raise PageOutOfRange(page, pages)
        return _render_png(str(path), page, PAGE_SCALE)

    def page_evidence(
        self, doc: dict, page: int, passage: str | None, first_page: int, last_page: int, query: str
    ) -> PageEvidence:
        """Boxes of the passage's lines on ``page`` and of the query's terms inside it (over the whole page
        when the passage is not found in the page's own text)."""
        path = self.pdf(doc)
        pages = _page_count(str(path))
        if not 1 <= page <= pages:
            raise PageOutOfRange(page, pages)
        with _PDFIUM:
            import pypdfium2 as pdfium

            document = pdfium.PdfDocument(str(path))
            try:
                pdf_page = document[page - 1]
                width, height = pdf_page.get_size()
                rotation = pdf_page.get_rotation()
                text_page = pdf_page.get_textpage()
                text = _page_text(text_page)
                evidence = PageEvidence(image_size=(round(width * PAGE_SCALE), round(height * PAGE_SCALE)))
                if rotation:
                    evidence.note = "stránka je otočená: vyznačení se nezobrazuje"
                    return evidence
                span = (
                    locate_passage(text, passage, page == first_page, page == last_page)
                    if passage and first_page <= page <= last_page
                    else None
                )
                evidence.located = span is not None
                low, high = span or (0, len(text))
                if span is not None:
                    evidence.passage = merge_lines(_boxes(text_page, [span], width, height))
                elif passage:
                    evidence.note = (
                        "úsek se na stránce nepodařilo přesně najít (jiné čtení textu); vyznačeny "
                        "jsou hledané výrazy na celé stránce"
                    )
                terms = [(s, e) for s, e in term_spans(query, text) if low <= s and e <= high] if query else []
                # one box a word: PDFium gives a letter of another font run (a Czech "ř") a rectangle of its own
                evidence.terms = [
                    box for span in terms for box in merge_lines(_boxes(text_page, [span], width, height))
                ]
                return evidence
            finally:
                document.close()


def media_type(doc: dict, path: Path) -> str:
    kind = (doc.get("content_type") or "").split(";")[0].strip().lower()
    if kind:
        return kind
    return "application/pdf" if _looks_like_pdf(path) else "application/octet-stream"


def download_name(doc: dict, kind: str) -> str:
    """A file name for the original: the citation or doc id in safe characters, with the type's extension."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", doc.get("citation") or doc.get("doc_id") or "document").strip("-")
    extension = ".pdf" if kind in PDF_TYPES else (mimetypes.guess_extension(kind) or ".bin")
    return f"{stem[:80] or 'document'}{extension}"


def merge_lines(boxes: list[Box]) -> list[Box]:
    """One box per text line: PDFium splits a line wherever the font or spacing changes."""
    merged: list[Box] = []
    for box in sorted(boxes, key=lambda b: (b.top, b.left)):
        last = merged[-1] if merged else None
        if last is not None and abs(box.top - last.top) < 0.5 * max(box.height, last.height):
            right = max(last.left + last.width, box.left + box.width)
            bottom = max(last.top + last.height, box.top + box.height)
            last.left, last.top = min(last.left, box.left), min(last.top, box.top)
            last.width, last.height = right - last.left, bottom - last.top
        else:
            merged.append(Box(box.left, box.top, box.width, box.height))
    return merged


def _looks_like_pdf(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(5) == b"%PDF-"


@functools.lru_cache(maxsize=256)
def _page_count(path: str) -> int:
    # The path is a sha256 in the raw store: its bytes never change, so the count is cached by path.
    with _PDFIUM:
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(path)
        try:
            return len(document)
        finally:
            document.close()


@functools.lru_cache(maxsize=32)
def _render_png(path: str, page: int, scale: float) -> bytes:
    with _PDFIUM:
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(path)
        try:
            image = document[page - 1].render(scale=scale).to_pil()
        finally:
            document.close()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=3)  # level 3: a fifth the time of the default, ~10% larger
    return buffer.getvalue()


def _page_text(text_page) -> str:
    """The page's text with one character per PDFium character index (what the rectangle calls count in)."""
    count = text_page.count_chars()
    text = text_page.get_text_range()
    if len(text) == count:
        return text
    import pypdfium2.raw as pdfium_c

    return "".join(chr(pdfium_c.FPDFText_GetUnicode(text_page.raw, i) or 0xFFFD) for i in range(count))


def _boxes(text_page, spans: list[tuple[int, int]], width: float, height: float) -> list[Box]:
    """PDFium's line rectangles of character ranges, as fractions of the page from its top left."""
    boxes = []
    for start, end in spans:
        for i in range(text_page.count_rects(start, end - start)):
            left, bottom, right, top = text_page.get_rect(i)
            boxes.append(
                Box(
                    left=max(0.0, left / width),
                    top=max(0.0, (height - top) / height),
                    width=max(0.0, (right - left) / width),
                    height=max(0.0, (top - bottom) / height),
                )
            )
    return boxes
