"""PDF pages: pdfplumber's text layer, Tesseract OCR for pages without a usable one, PDFium as the fallback.

`pdf_pages(data)` is the plain text-layer reader. `extract_pdf(data, limits)` is what `extract_document` uses: it
refuses decompression bombs first (:mod:`mendel.extract.pdf_streams`); reads every page's text layer with its
layout (:mod:`mendel.extract.pdf_layout`); renders and OCRs a page with fewer than `limits.ocr_min_chars` letters
and digits that has an image or drawing on it (at 300 dpi, or a high-resolution scan's own, within
`limits.max_pixels`); reads a PDF pdfminer can't parse with PDFium's repair, with a warning; drops running
headers and footers (:mod:`mendel.extract.running_lines`) and normalises every page.
"""

from __future__ import annotations

import io
import logging
import re
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfparser import PDFSyntaxError

from mendel.extract.model import DEFAULT_LIMITS, ExtractionError, ExtractionLimits, Page
from mendel.extract.normalize import fix_ocr_text, meaningful_chars, normalize_text
from mendel.extract.pdf_layout import (
    TEXT_OPTIONS,
    HeadingLine,
    false_headings,
    page_heading_lines,
    snap_chars,
    text_lines,
)
from mendel.extract.pdf_streams import check_streams
from mendel.extract.running_lines import strip_running_lines
from mendel.extract.titles import good_metadata_title, title_from_text

logging.getLogger("pdfminer").setLevel(logging.ERROR)

MAX_PAGES = 2000

__all__ = ["ExtractionError", "PageText", "pdf_pages", "extract_pdf", "PdfExtraction", "MAX_PAGES"]


@dataclass(frozen=True)
class PageText:
    page_no: int  # 1-based
    text: str


def pdf_pages(data: bytes, max_pages: int = MAX_PAGES) -> list[PageText]:
    """The text layer of every page, as pdfplumber reads it (no OCR, no normalisation)."""
    if not data.startswith(b"%PDF"):
        raise ExtractionError("not a PDF (missing %PDF header)")
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            if len(pdf.pages) == 0:
                raise ExtractionError("PDF has no pages")
            if len(pdf.pages) > max_pages:
                raise ExtractionError(f"PDF has {len(pdf.pages)} pages, limit is {max_pages}")
            return [
                PageText(number, page.extract_text(**TEXT_OPTIONS) or "")
                for number, page in enumerate(pdf.pages, start=1)
            ]
    except ExtractionError:
        raise
    except Exception as exc:  # pdfminer raises many types on broken files
        raise ExtractionError(_pdfminer_reason(exc, data)) from exc


def _unwrap(exc: BaseException) -> BaseException:
    # pdfplumber wraps pdfminer's exception as PdfminerException(original).
    if exc.__class__.__name__ == "PdfminerException" and exc.args and isinstance(exc.args[0], BaseException):
        return exc.args[0]
    return exc


def _pdfminer_reason(exc: BaseException, data: bytes) -> str:
    inner = _unwrap(exc)
    if isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError)):
        return f"encrypted PDF: a password is required ({inner.__class__.__name__})"
    detail = str(inner) or inner.__class__.__name__
    if b"%%EOF" not in data[-2048:]:
        return f"truncated PDF (no %%EOF at the end): {detail}"
    if isinstance(inner, PDFSyntaxError):
        return f"malformed PDF: {detail}"
    return f"unreadable PDF: {inner.__class__.__name__}: {detail}"


@dataclass
class _RawPage:
    page_no: int
    text: str = ""
    width: float = 0.0
    height: float = 0.0
    native_scale: float | None = None  # image pixels per point of the largest image on the page
    image_short_side: int = 0
    drawn: bool = False  # has images or vector drawing, so OCR could find text
    heading_lines: list[HeadingLine] = field(default_factory=list)
    sizes: Counter = field(default_factory=Counter)  # glyph size (0.1 pt) -> glyphs, text layer only
    warnings: list[str] = field(default_factory=list)


def _check_images(page_no: int, images: list[dict], limits: ExtractionLimits) -> tuple[float | None, int]:
    native, short_side = None, 0
    for image in images:
        width, height = (int(v) for v in (image.get("srcsize") or (0, 0)))
        if width * height > limits.max_pixels:
            raise ExtractionError(
                f"pixel bomb: page {page_no} embeds a {width}x{height} image "
                f"({width * height / 1e6:.0f} Mpx, limit {limits.max_pixels / 1e6:.0f} Mpx)"
            )
        box_width = float(image.get("width") or 0)
        if width and box_width > 1:
            scale = width / box_width
            if native is None or scale > native:
                native, short_side = scale, min(width, height)
    return native, short_side


def _read_pdfplumber(data: bytes, limits: ExtractionLimits) -> list[_RawPage]:
    pages: list[_RawPage] = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        count = len(pdf.pages)
        if count == 0:
            raise ExtractionError("PDF has no pages")
        if count > limits.max_pages:
            raise ExtractionError(f"PDF has {count} pages, limit is {limits.max_pages}")
        for number, page in enumerate(pdf.pages, start=1):
            raw = _RawPage(number, width=float(page.width), height=float(page.height))
            try:
                raw.native_scale, raw.image_short_side = _check_images(number, page.images, limits)
                raw.drawn = bool(page.images or page.curves or page.rects or page.lines)
                lines = text_lines(snap_chars(page.chars))
                raw.text = "\n".join(text for text, _ in lines)
                raw.heading_lines = page_heading_lines(number, lines)
                raw.sizes = Counter(
                    round(float(c.get("size") or 0), 1) for _, glyphs in lines for c in glyphs if c["text"].strip()
                )
            except ExtractionError:
                raise
            except Exception as exc:  # one broken content stream: the page stays empty, maybe OCR'd
                inner = _unwrap(exc)
                raw.warnings.append(f"page {number}: text layer unreadable ({inner.__class__.__name__}: {inner})")
                raw.drawn = True
            finally:
                page.close()
            pages.append(raw)
    return pages


def _read_pdfium(data: bytes, limits: ExtractionLimits) -> list[_RawPage]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        count = len(document)
        if count == 0:
            raise ExtractionError("PDF has no pages")
        if count > limits.max_pages:
            raise ExtractionError(f"PDF has {count} pages, limit is {limits.max_pages}")
        pages = []
        for index in range(count):
            page = document[index]
            width, height = page.get_size()
            raw = _RawPage(index + 1, width=width, height=height, drawn=True)
            textpage = page.get_textpage()
            raw.text = textpage.get_text_range().replace("\r\n", "\n")
            textpage.close()
            page.close()
            pages.append(raw)
        return pages
    finally:
        document.close()


# --- OCR -----------------------------------------------------------------------------------------


def render_scale(raw: _RawPage, limits: ExtractionLimits) -> float:
    """Points-to-pixels scale for OCR: `ocr_dpi`, but no more than a high-resolution scan's own resolution,
    and within `max_pixels` (down to 150 dpi; a page that needs less is a pixel bomb)."""
    scale = limits.ocr_dpi / 72.0
    if raw.native_scale and raw.image_short_side >= 2000:
        scale = min(scale, raw.native_scale)
    pixels = raw.width * raw.height * scale * scale
    if pixels > limits.max_pixels:
        fitted = scale * (limits.max_pixels / pixels) ** 0.5
        if fitted < min(scale, 150 / 72.0) * 0.999:
            raise ExtractionError(
                f"pixel bomb: page {raw.page_no} is {raw.width / 72:.0f}x{raw.height / 72:.0f} in and would render "
                f"to {pixels / 1e6:.0f} Mpx (limit {limits.max_pixels / 1e6:.0f} Mpx)"
            )
        scale = fitted
    return scale


def _ocr_pages(
    data: bytes, raws: list[_RawPage], todo: list[_RawPage], limits: ExtractionLimits, warnings: list[str]
) -> dict[int, tuple[str, float | None]]:
    import pypdfium2 as pdfium

    from mendel.extract.ocr import default_workers, ocr_image

    results: dict[int, tuple[str, float | None]] = {}
    workers = max(1, limits.ocr_workers or default_workers())
    scales = {raw.page_no: render_scale(raw, limits) for raw in todo}  # every pixel check before any work
    document = pdfium.PdfDocument(data)
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            pending: list[tuple[int, Future]] = []

            def collect(page_no: int, future: Future) -> None:
                try:
                    result = future.result()
                except ExtractionError as exc:  # a timeout or a Tesseract failure costs this page only
                    warnings.append(f"page {page_no}: {exc}")
                    return
                results[page_no] = (result.text, result.confidence)

            for raw in todo:
                page = document[raw.page_no - 1]
                scale = scales[raw.page_no]
                image = page.render(scale=scale, grayscale=True).to_pil()
                page.close()
                dpi = round(72 * scale)
                pending.append(
                    (
                        raw.page_no,
                        pool.submit(
                            ocr_image, image, languages=limits.ocr_languages, dpi=dpi, timeout_s=limits.ocr_timeout_s
                        ),
                    )
                )
                while len(pending) > 2 * workers:
                    collect(*pending.pop(0))
            for item in pending:
                collect(*item)
    finally:
        document.close()
    return results


# --- the whole PDF -------------------------------------------------------------------------------


@dataclass
class PdfExtraction:
    pages: list[Page]
    title: str | None
    warnings: list[str]
    false_headings: list[HeadingLine] = field(default_factory=list)  # see `false_headings()`
    back_matter_page: int | None = None  # first page of a trailing imprint, see `back_matter_page()`


def _metadata_title(data: bytes) -> str | None:
    try:
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(data)
        try:
            return document.get_metadata_dict().get("Title")
        finally:
            document.close()
    except Exception:
        return None


_IMPRINT = re.compile(r"\AISSN \d{4}-\d{3}[\dX]\b.*\bVydavatel:", re.DOTALL)


def back_matter_page(pages: list[Page]) -> int | None:
    """The last page when it is the Sbírka zákonů imprint (`ISSN 3029-5092`, `Vydavatel: Ministerstvo
    vnitra`, …): publisher's back matter that the last section must not run into."""
    if len(pages) > 1 and _IMPRINT.match(pages[-1].text[:400]):
        return pages[-1].page_no
    return None


def extract_pdf(data: bytes, limits: ExtractionLimits = DEFAULT_LIMITS) -> PdfExtraction:
    start = data.find(b"%PDF-", 0, 1024)
    if start < 0:
        raise ExtractionError("not a PDF (missing %PDF header)")
    data = data[start:]
    check_streams(data, limits)
    warnings: list[str] = []
    try:
        raws = _read_pdfplumber(data, limits)
    except ExtractionError:
        raise
    except Exception as exc:
        reason = _pdfminer_reason(exc, data)
        if reason.startswith("encrypted"):
            raise ExtractionError(reason) from exc
        try:
            raws = _read_pdfium(data, limits)
        except ExtractionError:
            raise
        except Exception as pdfium_exc:
            raise ExtractionError(f"{reason}; PDFium: {pdfium_exc}") from exc
        warnings.append(f"damaged PDF repaired by PDFium ({reason})")
    for raw in raws:
        warnings.extend(raw.warnings)

    need = [raw for raw in raws if raw.drawn and meaningful_chars(raw.text) < limits.ocr_min_chars]
    ocr_results: dict[int, tuple[str, float | None]] = {}
    if need and limits.ocr:
        todo = need[: limits.ocr_max_pages]
        if len(need) > len(todo):
            warnings.append(f"OCR budget: {len(need) - len(todo)} page(s) past the first {len(todo)} left without OCR")
        ocr_results = _ocr_pages(data, raws, todo, limits, warnings)
    elif need:
        warnings.append(f"{len(need)} page(s) without a text layer (OCR disabled)")

    texts: list[str] = []
    confidences: list[float | None] = []
    ocr_used: list[bool] = []
    for raw in raws:
        text, conf, used = raw.text, None, False
        if raw.page_no in ocr_results:
            ocr_text, ocr_conf = ocr_results[raw.page_no]
            ocr_text = fix_ocr_text(ocr_text)
            if meaningful_chars(ocr_text) > meaningful_chars(text):
                text, conf, used = ocr_text, ocr_conf, True
                if ocr_conf is not None and ocr_conf < 0.6:
                    warnings.append(f"page {raw.page_no}: low OCR confidence {ocr_conf:.2f}")
        texts.append(text)
        confidences.append(conf)
        ocr_used.append(used)
    texts = strip_running_lines(texts)
    pages = [
        Page(raw.page_no, normalize_text(text), is_ocr=used, ocr_confidence=conf)
        for raw, text, conf, used in zip(raws, texts, confidences, ocr_used)
    ]
    empty = [p.page_no for p in pages if meaningful_chars(p.text) == 0]
    if empty and len(empty) == len(pages):
        warnings.append("no text found on any page")
    title = good_metadata_title(_metadata_title(data)) or title_from_text(pages[0].text if pages else "")
    text_layer = [raw for raw, used in zip(raws, ocr_used) if not used]
    sizes: Counter = Counter()
    for raw in text_layer:
        sizes.update(raw.sizes)
    rejected = false_headings([line for raw in text_layer for line in raw.heading_lines], sizes)
    return PdfExtraction(
        pages=pages, title=title, warnings=warnings, false_headings=rejected, back_matter_page=back_matter_page(pages)
    )
