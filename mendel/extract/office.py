"""DOCX and HTML through docling's declarative backends (docling-slim, no torch, no models).

docling's `DocumentConverter` module imports the speech pipeline and with it torch, so the backends are
driven directly: `InputDocument` + `MsWordDocumentBackend` / `HTMLDocumentBackend` -> `DoclingDocument`.
The document is flattened in reading order into lines: paragraphs, list items (with their markers),
table rows (cells joined by " | "), headings. Headings that docling knows (Word heading styles, <h1>-<h6>)
are returned as layout headings with their level, so a DOCX or HTML section tree keeps them even when
they don't look like Czech legal headings. DOCX archives are checked for zip bombs before docling opens
them; remote and local resource fetching stays off.
"""

from __future__ import annotations

import io
import logging
import re
import zipfile
import zlib
from dataclasses import dataclass

from mendel.extract.model import ExtractionError, ExtractionLimits

logging.getLogger("docling").setLevel(logging.ERROR)
logging.getLogger("docling_core").setLevel(logging.ERROR)


@dataclass
class LayoutDocument:
    text: str
    headings: list[tuple[int, int, str]]  # (offset in text, level 1..n, text)
    title: str | None
    warnings: list[str]


# --- zip bombs -----------------------------------------------------------------------------------


def check_zip(data: bytes, limits: ExtractionLimits, what: str = "DOCX") -> zipfile.ZipFile:
    """Open the archive after checking its declared sizes: member count, total size, compression ratio."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise ExtractionError(f"malformed {what}: not a readable ZIP archive ({exc})") from exc
    if len(infos) > limits.max_zip_members:
        raise ExtractionError(f"zip bomb: {what} has {len(infos)} archive members (limit {limits.max_zip_members})")
    total = sum(info.file_size for info in infos)
    if total > limits.max_unzipped_bytes:
        raise ExtractionError(
            f"zip bomb: {what} unpacks to {total / 2**20:.0f} MiB (limit {limits.max_unzipped_bytes / 2**20:.0f} MiB)"
        )
    for info in infos:
        if info.file_size > 2**20 and info.file_size > limits.max_zip_ratio * max(info.compress_size, 1):
            raise ExtractionError(
                f"zip bomb: {what} member {info.filename} expands {info.file_size / max(info.compress_size, 1):.0f}x "
                f"(limit {limits.max_zip_ratio:.0f}x)"
            )
    return archive


def _read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """Read a member, stopping once more than `limit` bytes come out (sizes in the header can lie)."""
    out = bytearray()
    with archive.open(name) as stream:
        while chunk := stream.read(1 << 16):
            out += chunk
            if len(out) > limit:
                raise ExtractionError(f"zip bomb: {name} decompresses past its declared size")
    return bytes(out)


def _verify_members(archive: zipfile.ZipFile, limits: ExtractionLimits) -> None:
    budget = limits.max_unzipped_bytes
    for info in archive.infolist():
        try:
            size = len(_read_member(archive, info.filename, min(budget, info.file_size + 1024)))
        except zipfile.BadZipFile as exc:
            raise ExtractionError(f"malformed DOCX: {info.filename}: {exc}") from exc
        except (EOFError, OSError, zlib.error) as exc:
            raise ExtractionError(f"truncated or corrupt DOCX: {info.filename}: {exc}") from exc
        budget -= size


# --- docling -------------------------------------------------------------------------------------


def _convert(data: bytes, kind: str, filename: str):
    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.document import InputDocument

    if kind == "docx":
        from docling.backend.msword_backend import MsWordDocumentBackend as backend

        fmt = InputFormat.DOCX
    else:
        from docling.backend.html_backend import HTMLDocumentBackend as backend

        fmt = InputFormat.HTML
    try:
        document = InputDocument(path_or_stream=io.BytesIO(data), format=fmt, backend=backend, filename=filename)
        if not document.valid:
            raise ExtractionError(f"malformed {kind.upper()}: docling could not open it")
        return document._backend.convert()
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(f"malformed {kind.upper()}: {exc.__class__.__name__}: {exc}") from exc


def _table_lines(item, doc) -> list[str]:
    try:
        grid = item.data.grid
    except Exception:
        return []
    lines = []
    for row in grid:
        cells, seen = [], set()
        for cell in row:
            text = " ".join((cell.text or "").split())
            key = (
                (id(cell), text)
                if not hasattr(cell, "start_row_offset_idx")
                else (cell.start_row_offset_idx, cell.start_col_offset_idx)
            )
            if text and key not in seen:
                cells.append(text)
            seen.add(key)
        if cells:
            lines.append(" | ".join(cells))
    return lines


_WS = re.compile(r"[ \t\u00a0]+")


def flatten(doc) -> LayoutDocument:
    """Text lines of a DoclingDocument in reading order, with the headings it marks and its title."""
    from docling_core.types.doc import DocItemLabel

    lines: list[str] = []
    headings: list[tuple[int, int, str]] = []
    title: str | None = None
    offset = 0

    def add(line: str) -> int:
        nonlocal offset
        start = offset
        lines.append(line)
        offset += len(line) + 1
        return start

    for item, _level in doc.iterate_items():
        label = getattr(item, "label", None)
        if label == DocItemLabel.TABLE:
            for line in _table_lines(item, doc):
                add(line)
            continue
        if label == DocItemLabel.PICTURE:
            continue
        text = getattr(item, "text", None)
        if text is None:
            continue
        text = text.replace("\r", "\n")
        for part in text.split("\n"):
            part = _WS.sub(" ", part).strip()
            if label == DocItemLabel.LIST_ITEM:
                marker = (getattr(item, "marker", "") or "").strip()
                if marker and not part.startswith(marker):
                    part = f"{marker} {part}".strip()
            if not part:
                continue
            start = add(part)
            if label == DocItemLabel.TITLE:
                title = title or part
            elif label == DocItemLabel.SECTION_HEADER:
                headings.append((start, int(getattr(item, "level", 1) or 1), part))
    return LayoutDocument(text="\n".join(lines), headings=headings, title=title, warnings=[])


# --- formats -------------------------------------------------------------------------------------


def docx_document(data: bytes, limits: ExtractionLimits) -> LayoutDocument:
    archive = check_zip(data, limits)
    names = set(archive.namelist())
    if "word/document.xml" not in names:
        kind = (
            "an ODF document"
            if "content.xml" in names
            else "an XLSX workbook"
            if "xl/workbook.xml" in names
            else "a PPTX presentation"
            if "ppt/presentation.xml" in names
            else "a ZIP archive"
        )
        raise ExtractionError(f"not a DOCX: {kind} without word/document.xml")
    _verify_members(archive, limits)
    layout = flatten(_convert(data, "docx", "document.docx"))
    title = None
    try:
        core = (
            _read_member(archive, "docProps/core.xml", 1 << 20).decode("utf-8", "replace")
            if "docProps/core.xml" in names
            else ""
        )
        found = re.search(r"<dc:title>([^<]{3,300})</dc:title>", core)
        title = " ".join(found.group(1).split()) if found else None
    except ExtractionError:
        title = None
    layout.title = layout.title or title
    return layout


_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_\-:.]+)", re.IGNORECASE)


def html_document(data: bytes, limits: ExtractionLimits, charset: str | None = None) -> LayoutDocument:
    """HTML decoded by us (HTTP charset, BOM, <meta charset>, then detection), handed to docling as UTF-8
    behind a BOM, which BeautifulSoup trusts before any <meta> that still names the old charset."""
    from mendel.extract.text import decode_text

    declared = charset
    if not declared:
        meta = _META_CHARSET.search(data[:4096])
        declared = meta.group(1).decode("ascii", "replace") if meta else None
    text, _ = decode_text(data, declared)
    if len(text) > limits.max_text_chars:
        raise ExtractionError(f"HTML has {len(text)} characters, limit is {limits.max_text_chars}")
    layout = flatten(_convert(b"\xef\xbb\xbf" + text.encode("utf-8"), "html", "document.html"))
    found = re.search(r"<title[^>]*>(.*?)</title>", text[:20000], re.IGNORECASE | re.DOTALL)
    if found:
        import html as html_lib

        head_title = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())
        layout.title = head_title[:300] or layout.title
    return layout
