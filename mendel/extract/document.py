"""One entry point for every format the crawlers bring home: `extract_document(data, content_type, url)`, and
`extract_files` for many at once over a pool of worker processes. The format is told by
:mod:`mendel.extract.formats`; then:

| format | how |
|---|---|
| pdf   | pdfplumber text layer, headings checked against layout; pages without one OCR'd (`mendel.extract.pdf`) |
| docx  | docling's Word backend, after zip-bomb checks (`mendel.extract.office`) |
| html  | docling's HTML backend, charset from HTTP, BOM, <meta> or detection; a court's decision page (Nejvyšší soud, NALUS) by its own markup (`mendel.extract.court_pages`) |
| text  | encoding detected (BOM, UTF-16 without BOM, UTF-8, windows-1250 / ISO-8859-2); form feeds split pages |
| rtf   | striprtf, code page from `\\ansicpg` |
| json  | an OFN úřední deska notice or board (`mendel.extract.notice`); a court's open-data decision record (`mendel.extract.court_record`) |
| image | PNG, JPEG, TIFF (every frame a page), GIF, BMP, WebP: OCR |

Every page is normalised; sections come from the Czech legal headings and, for DOCX and HTML, from heading styles
(`mendel.extract.sections`), with offsets into the pages joined as `mendel.passages.chunking` joins them. Bad input
of any kind raises `ExtractionError` with the reason; `OcrUnavailableError` means Tesseract is missing.
"""

from __future__ import annotations

import bisect
import io
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from mendel.core.process_death import arm_parent_death_signal
from mendel.extract.formats import DESCRIPTIONS, detect_format, media_type
from mendel.extract.model import (
    DEFAULT_LIMITS,
    PAGE_SEPARATOR,
    ExtractedDocument,
    ExtractionError,
    ExtractionLimits,
    Page,
    Section,
    configured_workers,
    join_pages,
)
from mendel.extract.normalize import meaningful_chars, normalize_text, normalize_with_map
from mendel.extract.notice import notice_text
from mendel.extract.sections import GENERIC_LEVEL, ExtraHeading, build_sections, line_offsets
from mendel.extract.titles import good_metadata_title, title_from_text

__all__ = [
    "DEFAULT_LIMITS",
    "ExtractedDocument",
    "ExtractionError",
    "ExtractionLimits",
    "Page",
    "Section",
    "extract_document",
    "notice_text",
]


# --- assembly ------------------------------------------------------------------------------------


def _not_headings(pages: list[Page], starts: list[int], false_lines) -> set[int]:
    """Offsets in the joined text of the heading-rule lines that PDF layout rejected (`pdf.HeadingLine`s)."""
    by_page: dict[int, set[tuple[str, int]]] = {}
    for line in false_lines:
        by_page.setdefault(line.page_no, set()).add((line.key, line.occurrence))
    offsets: set[int] = set()
    for page, start in zip(pages, starts):
        if page.page_no in by_page:
            offsets.update(start + offset for offset in line_offsets(page.text, by_page[page.page_no]))
    return offsets


def _document(
    pages: list[Page],
    fmt: str,
    title: str | None,
    warnings: list[str],
    extra: list[ExtraHeading] | None = None,
    false_lines=(),
    back_matter_page: int | None = None,
) -> ExtractedDocument:
    if not pages:
        pages = [Page(1, "")]
    text, starts = join_pages([page.text for page in pages])  # the text chunking will offset into
    body_end = starts[back_matter_page - 1] if back_matter_page else None
    sections = build_sections(
        text, starts, extra, _not_headings(pages, starts, false_lines) if false_lines else None, body_end
    )
    if not any(meaningful_chars(page.text) for page in pages) and not any("no text" in w for w in warnings):
        warnings.append("no text found")
    return ExtractedDocument(pages=pages, sections=sections, title=title or None, format=fmt, warnings=warnings)


def _layout_document(layout, fmt: str) -> ExtractedDocument:
    """A DOCX or HTML flattened by docling: one page, its heading styles kept as generic headings."""
    text, mapping = normalize_with_map(layout.text)
    extra = []
    for offset, level, label in layout.headings:
        position = bisect.bisect_left(mapping, offset)
        if position < len(text):
            extra.append(ExtraHeading(position, label, GENERIC_LEVEL + min(max(level, 1), 9) / 10.0 - 0.1))
    title = good_metadata_title(layout.title) or title_from_text(text)
    return _document([Page(1, text)], fmt, title, list(layout.warnings), extra)


def _text_document(text: str, fmt: str, warnings: list[str]) -> ExtractedDocument:
    parts = text.split("\f") if "\f" in text else [text]
    if len(parts) > 1 and not parts[-1].strip():
        parts = parts[:-1]
    pages = [Page(number, normalize_text(part)) for number, part in enumerate(parts, start=1)]
    return _document(pages, fmt, title_from_text(pages[0].text) if pages else None, warnings)


def _json_document(data: bytes, charset: str | None, limits: ExtractionLimits) -> ExtractedDocument:
    from mendel.extract import court_record, notice
    from mendel.extract.text import decode_text

    text, _ = decode_text(data, charset or "utf-8")
    if len(text) > limits.max_text_chars:
        raise ExtractionError(f"JSON has {len(text)} characters, limit is {limits.max_text_chars}")
    value = notice.loads(text)
    if court_record.is_opendata_record(value):
        record, headings = court_record.record_text(value)
        extra = [ExtraHeading(offset, label, level=GENERIC_LEVEL, kind="decision_part") for offset, label in headings]
        return _document([Page(1, record)], "json", court_record.record_title(value), [], extra)
    if isinstance(value, list) and value and all(notice.is_notice(v) for v in value):
        value = {"typ": notice.BOARD_TYPE, "informace": value}
    if notice.is_notice(value):
        page = Page(1, normalize_text(notice.notice_text(value)))
        return _document([page], "json", notice.notice_title(value), [])
    if notice.is_board(value):
        items = [item for item in value["informace"] if isinstance(item, dict)]
        if len(items) > limits.max_pages:
            raise ExtractionError(f"board has {len(items)} notices, limit is {limits.max_pages}")
        warnings = []
        if len(items) < len(value["informace"]):
            warnings.append(f"{len(value['informace']) - len(items)} board entries are not objects")
        pages = [Page(n, normalize_text(notice.notice_text(item))) for n, item in enumerate(items, start=1)]
        if not pages:
            warnings.append("board has no notices")
        extra, offset = [], 0
        for page, item in zip(pages, items):
            extra.append(
                ExtraHeading(offset, notice.notice_title(item) or f"Informace {page.page_no}", level=1, kind="notice")
            )
            offset += len(page.text) + len(PAGE_SEPARATOR)
        return _document(pages, "json", notice.board_title(value), warnings, extra)
    raise ExtractionError("unsupported JSON: not an OFN úřední deska notice or board")


def _image_document(data: bytes, limits: ExtractionLimits) -> ExtractedDocument:
    from PIL import Image, ImageSequence, UnidentifiedImageError

    from mendel.extract.ocr import ocr_image

    try:
        image = Image.open(io.BytesIO(data))
        width, height = image.size
    except Image.DecompressionBombError as exc:
        raise ExtractionError(f"pixel bomb: {exc}") from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ExtractionError(f"malformed image: {exc}") from exc
    if width * height > limits.max_pixels:
        raise ExtractionError(
            f"pixel bomb: {width}x{height} image ({width * height / 1e6:.0f} Mpx, "
            f"limit {limits.max_pixels / 1e6:.0f} Mpx)"
        )
    frames = getattr(image, "n_frames", 1)
    if frames > limits.max_pages:
        raise ExtractionError(f"image has {frames} frames, limit is {limits.max_pages}")
    warnings: list[str] = []
    pages: list[Page] = []
    for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
        if frame.size[0] * frame.size[1] > limits.max_pixels:
            raise ExtractionError(f"pixel bomb: frame {number} is {frame.size[0]}x{frame.size[1]}")
        if not limits.ocr or number > limits.ocr_max_pages:
            warnings.append(f"page {number}: not OCR'd ({'OCR disabled' if not limits.ocr else 'OCR budget'})")
            pages.append(Page(number, ""))
            continue
        try:
            frame.load()
            grey = frame.convert("L")
        except (OSError, ValueError, SyntaxError) as exc:
            raise ExtractionError(f"malformed or truncated image: {exc}") from exc
        dpi = (frame.info.get("dpi") or (None,))[0]
        try:
            result = ocr_image(
                grey,
                languages=limits.ocr_languages,
                dpi=int(round(float(dpi))) if dpi else None,
                timeout_s=limits.ocr_timeout_s,
            )
        except ExtractionError as exc:
            warnings.append(f"page {number}: {exc}")
            pages.append(Page(number, ""))
            continue
        from mendel.extract.normalize import fix_ocr_text

        if result.confidence is not None and result.confidence < 0.6:
            warnings.append(f"page {number}: low OCR confidence {result.confidence:.2f}")
        pages.append(
            Page(number, normalize_text(fix_ocr_text(result.text)), is_ocr=True, ocr_confidence=result.confidence)
        )
    return _document(pages, "image", title_from_text(pages[0].text) if pages else None, warnings)


def extract_document(
    data: bytes, content_type: str | None = None, url: str | None = None, *, limits: ExtractionLimits = DEFAULT_LIMITS
) -> ExtractedDocument:
    """Pages, sections, title and warnings of a document of any supported format.

    Raises ExtractionError(reason) for every kind of bad input: empty, oversized, unsupported or
    mismatched content type, encrypted/malformed/truncated PDF, zip and pixel bombs, undecodable text,
    malformed JSON.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ExtractionError(f"document must be bytes, not {type(data).__name__}")
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise ExtractionError(f"document is {len(data)} bytes, limit is {limits.max_bytes}")
    fmt = detect_format(data, content_type, url)
    return _require_text(_extract_format(data, fmt, content_type, limits), fmt)


# Formats whose text is all they hold: one without any is an empty document, nothing to index. A PDF without
# text keeps its pages (a scan whose OCR failed says so in its warnings and the quality review counts it).
_TEXT_ONLY = ("docx", "html", "rtf", "text", "json")


def _require_text(document: ExtractedDocument, fmt: str) -> ExtractedDocument:
    if any(meaningful_chars(page.text) for page in document.pages):
        return document
    if fmt in _TEXT_ONLY:
        raise ExtractionError(f"{DESCRIPTIONS[fmt]} with no text in it: an empty document, nothing to index")
    if fmt == "image":
        raise ExtractionError("an image with no text in it: OCR found none")
    return document


def _extract_format(data: bytes, fmt: str, content_type: str | None, limits: ExtractionLimits) -> ExtractedDocument:
    _, charset = media_type(content_type)
    try:
        if fmt == "pdf":
            from mendel.extract.pdf import extract_pdf

            pdf = extract_pdf(data, limits)
            return _document(
                pdf.pages,
                "pdf",
                pdf.title,
                pdf.warnings,
                false_lines=pdf.false_headings,
                back_matter_page=pdf.back_matter_page,
            )
        if fmt == "docx":
            from mendel.extract.office import docx_document

            return _layout_document(docx_document(data, limits), "docx")
        if fmt == "html":
            from mendel.extract.court_pages import decision_page

            decision = decision_page(data, charset)
            if decision is not None:  # a court's decision page, read by its own markup
                extra = [ExtraHeading(o, label, GENERIC_LEVEL, "decision_part") for o, label in decision.headings]
                return _document([Page(1, decision.text)], "html", decision.title, [], extra)
            from mendel.extract.office import html_document

            return _layout_document(html_document(data, limits, charset), "html")
        if fmt == "json":
            return _json_document(data, charset, limits)
        if fmt == "rtf":
            from mendel.extract.text import rtf_text

            text, truncated = rtf_text(data)
            return _text_document(text, "rtf", ["truncated RTF: unbalanced groups"] if truncated else [])
        if fmt == "image":
            return _image_document(data, limits)
        from mendel.extract.text import decode_text

        text, encoding = decode_text(data, charset)
        if len(text) > limits.max_text_chars:
            raise ExtractionError(f"text has {len(text)} characters, limit is {limits.max_text_chars}")
        return _text_document(text, "text", [])
    except ExtractionError:
        raise
    except (MemoryError, RecursionError) as exc:
        raise ExtractionError(
            f"{fmt} document too large or too deeply nested to process ({exc.__class__.__name__})"
        ) from exc
    except Exception as exc:
        from mendel.extract.ocr import OcrUnavailableError

        if isinstance(exc, OcrUnavailableError):
            raise
        raise ExtractionError(f"unreadable {fmt}: {exc.__class__.__name__}: {exc}") from exc


def extract_file(
    path: str, content_type: str | None = None, url: str | None = None
) -> tuple[ExtractedDocument | None, str | None]:
    """(document, None), or (None, the reason) when the file is bad input or missing: what a worker process of
    :func:`extract_files` returns (a reason string crosses a process boundary where an exception may not)."""
    try:
        return extract_document(Path(path).read_bytes(), content_type, url), None
    except (ExtractionError, FileNotFoundError) as exc:
        return None, str(exc)


EXTRACT_WORKERS_ENV = "MENDEL_EXTRACT_WORKERS"
POOL_MIN_FILES = 40  # below this, starting worker processes costs more than it saves


def extract_workers() -> int:
    """Documents extracted at once: ``MENDEL_EXTRACT_WORKERS``, else one per CPU this process may use."""
    return configured_workers(EXTRACT_WORKERS_ENV)


def extract_files(
    jobs: list[tuple[str, str | None, str | None]], workers: int | None = None, min_files: int = POOL_MIN_FILES
):
    """:func:`extract_file` of each (path, content type, url), in order, as they finish in order. Many files are
    shared among worker processes (pdfplumber and the page loop are single-threaded Python; a scanned document's
    pages are OCR'd in parallel inside its worker), started fresh ("spawn": the caller may hold threads and a
    database connection); a few are extracted here."""
    workers = extract_workers() if workers is None else workers
    if workers < 2 or len(jobs) < min_files:
        yield from (extract_file(*job) for job in jobs)
        return
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=arm_parent_death_signal,  # a run killed outright leaves no worker behind
        initargs=(signal.SIGKILL,),
    ) as pool:
        yield from pool.map(extract_file, *zip(*jobs), chunksize=8)
