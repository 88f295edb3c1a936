"""PDF pages: pdfplumber text, Tesseract OCR for pages without a usable text layer, PDFium as the fallback.

`pdf_pages(data)` is the plain text-layer reader (kept for callers that want only that). `extract_pdf(data,
limits)` is what `extract_document` uses:

* every page's text layer comes from pdfplumber, after snapping glyphs of a fallback font back onto their
  line (a "Č" from another font sits a few points higher and would otherwise land on a line of its own);
* a page with fewer than `limits.ocr_min_chars` letters and digits (pdfminer's `(cid:NN)` placeholders do
  not count) that has an image or vector drawing on it is rendered with PDFium in grayscale and OCR'd;
  the render scale is 300 dpi, or the scan's own resolution when that is already high (a scan stored with
  one pixel per point), never above `limits.max_pixels`;
* every Flate stream is inflated once, in bounded steps, before any parser sees it: a content or font
  stream past `limits.max_stream_bytes` (an image stream past 8 bytes per allowed pixel) is a
  decompression bomb, refused before pdfminer would inflate it into memory;
* a PDF that pdfminer can't parse but PDFium can repair (a damaged cross-reference table) is read with
  PDFium's text layer, with a warning; one that neither can open raises ExtractionError;
* running headers and footers (`Strana 3 Akt č. 175 / 2025 Sb.`, page numbers) repeated on most pages
  are dropped, then every page is normalised (NFC, de-hyphenation, whitespace);
* layout checks the legal headings the text rules find on text-layer pages: where a document sets its
  headings of a kind (`§`, `Čl.`, `ČÁST` …) apart — larger than the body text, bold, centred or indented —
  a line of that kind set like running text (body size, regular, at the left margin: `§ 16` wrapped out
  of a sentence) is not a heading (`PdfExtraction.false_headings`).
"""

from __future__ import annotations

import io
import logging
import re
import zlib
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfparser import PDFSyntaxError
from pdfplumber.utils.clustering import cluster_objects
from pdfplumber.utils.text import WORD_EXTRACTOR_KWARGS, WordExtractor, get_line_cluster_key

from mendel.extract.model import DEFAULT_LIMITS, ExtractionError, ExtractionLimits, Page
from mendel.extract.normalize import fix_ocr_text, meaningful_chars, normalize_text
from mendel.extract.sections import HEADING_RE, heading_kind, line_key

logging.getLogger("pdfminer").setLevel(logging.ERROR)

MAX_PAGES = 2000
TEXT_OPTIONS = {"x_tolerance": 1.5, "y_tolerance": 3}

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


# --- decompression bombs -------------------------------------------------------------------------

_STREAM_START = re.compile(rb"(?<!end)stream(?:\r\n|\n|\r)")
_OBJECT_NUMBERS = re.compile(rb"(\d+)\s+\d+\s+$")
_INFLATE_STEP = 1 << 20


def _inflated_size(compressed: bytes, limit: int) -> int | None:
    """Bytes a zlib stream inflates to, counting no further than just past `limit`; None if not zlib."""
    inflater = zlib.decompressobj()
    total = 0
    try:
        total = len(inflater.decompress(compressed, _INFLATE_STEP))
        while inflater.unconsumed_tail and not inflater.eof and total <= limit:
            before = len(inflater.unconsumed_tail)
            out = inflater.decompress(inflater.unconsumed_tail, _INFLATE_STEP)
            total += len(out)
            if not out and len(inflater.unconsumed_tail) == before:
                break
    except zlib.error:
        return None if total == 0 else total
    return total


def _object_header(head: bytes) -> tuple[int, int | None]:
    """(offset of the last `N G obj` in head, N), or (0, None); searched backwards, as a forward regex over
    binary stream data backtracks badly."""
    at = head.rfind(b"obj")
    while at >= 0:
        numbers = _OBJECT_NUMBERS.search(head, max(0, at - 24), at)
        if numbers:
            return numbers.start(), int(numbers.group(1))
        at = head.rfind(b"obj", 0, at)
    return 0, None


def check_streams(data: bytes, limits: ExtractionLimits) -> None:
    """Raise ExtractionError for a Flate stream that inflates past its limit (see the module docstring).
    Streams are found in the raw bytes (streams never sit inside object streams); encrypted or non-zlib
    streams don't inflate and are left to the parsers."""
    for match in _STREAM_START.finditer(data):
        head = data[max(0, match.start() - 4096) : match.start()]
        start, number = _object_header(head)
        head = head[start:]
        if b"/FlateDecode" not in head:
            continue
        end = data.find(b"endstream", match.end())
        compressed = data[match.end() : end if end >= 0 else len(data)]
        image = re.search(rb"/Subtype\s*/Image\b", head) is not None
        limit = 8 * limits.max_pixels if image else limits.max_stream_bytes
        size = _inflated_size(compressed, limit)
        if size is not None and size > limit:
            name = f"object {number}" if number is not None else f"at byte {match.start()}"
            raise ExtractionError(
                f"decompression bomb: PDF {'image ' if image else ''}stream {name} inflates past "
                f"{limit / 2**20:.0f} MiB from {len(compressed) / 1024:.0f} KiB"
            )


# --- text layer ----------------------------------------------------------------------------------


def snap_chars(chars: list[dict]) -> list[dict]:
    """Glyphs that continue a word (adjacent, same size, mostly overlapping vertically) but sit a little
    higher or lower, typically because they come from a fallback font, are moved onto the word's line."""
    out: list[dict] = []
    prev: dict | None = None
    for char in chars:
        if prev is not None and char.get("upright", True) and prev.get("upright", True):
            size, prev_size = char.get("size") or 0, prev.get("size") or 0
            dy = char["top"] - prev["top"]
            if (
                size
                and prev_size
                and 0.5 < abs(dy)
                and abs(size - prev_size) <= 0.2 * prev_size
                and abs(char["x0"] - prev["x1"]) <= max(1.0, 0.3 * size)
            ):
                height = min(char["bottom"] - char["top"], prev["bottom"] - prev["top"])
                overlap = min(char["bottom"], prev["bottom"]) - max(char["top"], prev["top"])
                if height > 0 and overlap >= 0.5 * height:
                    char = dict(
                        char,
                        top=char["top"] - dy,
                        bottom=char["bottom"] - dy,
                        doctop=char.get("doctop", char["top"]) - dy,
                        y0=char["y0"] + dy,
                        y1=char["y1"] + dy,
                    )
        out.append(char)
        prev = char
    return out


# --- layout of heading lines ---------------------------------------------------------------------

_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|,b$", re.IGNORECASE)
_WORDS = WordExtractor(**{k: v for k, v in TEXT_OPTIONS.items() if k in WORD_EXTRACTOR_KWARGS})


def text_lines(chars: list[dict]) -> list[tuple[str, list[dict]]]:
    """The page's lines with the glyphs on each, built exactly as pdfplumber's `extract_text` builds its
    text (words, then lines clustered top to bottom), so the texts joined with newlines are that text."""
    if not chars:
        return []
    words = _WORDS.extract_words(chars, return_chars=True)
    tolerance = TEXT_OPTIONS["y_tolerance"] if _WORDS.line_dir in ("ttb", "btt") else TEXT_OPTIONS["x_tolerance"]
    lines = cluster_objects(words, get_line_cluster_key(_WORDS.line_dir), tolerance)
    return [(" ".join(word["text"] for word in line), [c for word in line for c in word["chars"]]) for line in lines]


@dataclass(frozen=True)
class HeadingLine:
    """A line the text rules take for a heading, with how it is set."""

    page_no: int
    key: str  # sections.line_key of the line
    occurrence: int  # how many lines with the same key come before it on the page
    kind: str  # §, Čl., ČÁST, …
    size: float  # median glyph size
    bold: float  # share of glyphs in a bold face
    x0: float  # where the line starts
    left: float  # where most of the page's text starts (its left margin)


def page_heading_lines(page_no: int, lines: list[tuple[str, list[dict]]]) -> list[HeadingLine]:
    """The page's lines that HEADING_RE matches, with their typography and the page's left text margin."""
    starts: Counter[int] = Counter()
    for _, glyphs in lines:
        if glyphs:
            starts[round(min(c["x0"] for c in glyphs))] += len(glyphs)
    if not starts:
        return []
    left = float(starts.most_common(1)[0][0])  # where most of the running text starts
    seen: Counter[str] = Counter()
    found = []
    for text, glyphs in lines:
        key = line_key(text)
        occurrence = seen[key]
        seen[key] += 1
        inked = [c for c in glyphs if c["text"].strip()]
        if not inked or not HEADING_RE.match(text):
            continue
        sizes = sorted(float(c.get("size") or 0) for c in inked)
        found.append(
            HeadingLine(
                page_no,
                key,
                occurrence,
                heading_kind(text),
                size=sizes[len(sizes) // 2],
                bold=sum(bool(_BOLD_FONT.search(c.get("fontname") or "")) for c in inked) / len(inked),
                x0=min(c["x0"] for c in inked),
                left=left,
            )
        )
    return found


def body_size(sizes: Counter) -> float:
    """The most common glyph size: the running text's."""
    return float(sizes.most_common(1)[0][0]) if sizes else 0.0


def set_apart(line: HeadingLine, body: float) -> bool:
    """Larger than the body text, bold, or not starting at the left margin (centred, indented, flush right)."""
    if body <= 0:
        return True
    return line.size >= 1.08 * body or line.bold >= 0.5 or line.x0 - line.left > 1.5 * body


def false_headings(lines: list[HeadingLine], sizes: Counter) -> list[HeadingLine]:
    """Heading-rule lines that layout says are running text: set like the body in a document that sets at
    least two headings of the same kind apart. Without that evidence every heading stays."""
    body = body_size(sizes)
    apart = Counter(line.kind for line in lines if set_apart(line, body))
    return [line for line in lines if apart[line.kind] >= 2 and not set_apart(line, body)]


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


# --- running headers and footers -----------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_EDGE_LINES = 3


_PUNCT = re.compile(r"[^\w#]+")


def _line_key(line: str) -> str:
    """A line with numbers as "#", punctuation dropped and words sorted, so that OCR'd and typeset headers
    compare equal, and so do the mirrored headers of even and odd pages (`Strana 2 Akt č. 87 / 2024 Sb.`,
    `Akt č. 87 / 2024 Sb. Strana 3`)."""
    return " ".join(sorted(_PUNCT.sub(" ", _DIGITS.sub(" # ", line)).lower().split()))


def strip_running_lines(texts: list[str]) -> list[str]:
    """Drop the lines among each page's first and last three that recur (numbers aside) on at least 40 % of
    the pages (and on at least 2 when they carry a number, else 3): running headers, footers and page
    numbers. Headings are never dropped."""
    with_text = [t for t in texts if t.strip()]
    if len(with_text) < 3:
        return texts
    counts: Counter[str] = Counter()
    for text in with_text:
        lines = [line for line in text.split("\n") if line.strip()]
        edge = set(lines[:_EDGE_LINES] + lines[-_EDGE_LINES:])
        counts.update({_line_key(line) for line in edge})
    share = int(0.4 * len(with_text) + 0.999)
    running = {key for key, n in counts.items() if key and n >= max(2 if "#" in key else 3, share)}
    if not running:
        return texts
    out = []
    for text in texts:
        lines = text.split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges = set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:])
        out.append(
            "\n".join(
                line
                for i, line in enumerate(lines)
                if not (i in edges and _line_key(line) in running and not HEADING_RE.match(line))
            )
        )
    return out


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


# --- title ---------------------------------------------------------------------------------------

_ACT_LINE = re.compile(
    r"^(?:Ústavní zákon|ÚSTAVNÍ ZÁKON|Zákon|ZÁKON|Vyhláška|VYHLÁŠKA|Nařízení vlády|NAŘÍZENÍ VLÁDY|Nařízení|NAŘÍZENÍ"
    r"|Obecně závazná vyhláška|OBECNĚ ZÁVAZNÁ VYHLÁŠKA|Opatření obecné povahy|OPATŘENÍ OBECNÉ POVAHY|Sdělení|SDĚLENÍ"
    r"|Usnesení|USNESENÍ|Nález|NÁLEZ|Rozsudek|ROZSUDEK|Rozhodnutí|ROZHODNUTÍ)\b"
)
_TITLE_STOP = re.compile(r"se usnesl|nařizuje|vyhlašuje|stanoví podle|^(?:Parlament|Vláda|Ministerstvo|PREAMBULE)")
_JUNK_TITLE = re.compile(r"^(?:Microsoft Word - |Snímek|Slide|Dokument|Document|dopis$|untitled|Untitled|PowerPoint)")


def good_metadata_title(title: str | None) -> str | None:
    if not title:
        return None
    title = " ".join(str(title).split())
    letters = sum(ch.isalpha() for ch in title)
    if (
        len(title.split()) < 2
        or letters < 6
        or _JUNK_TITLE.match(title)
        or title.lower().endswith((".doc", ".docx", ".pdf"))
    ):
        return None
    return title[:300]


def title_from_text(text: str) -> str | None:
    """An act's type line and the lines that go on with it, else the first line that reads like a title."""
    lines = [line.strip() for line in text.split("\n")[:40]]
    for index, line in enumerate(lines):
        if _ACT_LINE.match(line):
            parts = [line]
            for following in lines[index + 1 : index + 6]:
                if not following or HEADING_RE.match(following) or _TITLE_STOP.search(following):
                    break
                parts.append(following)
            return " ".join(" ".join(parts).split())[:300]
    for line in lines[:15]:
        if len(line.split()) >= 2 and sum(ch.isalpha() for ch in line) >= 8:
            return line[:300]
    return None


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
