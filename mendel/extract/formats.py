"""Which format a document is: the declared content type (or, when that is missing or generic, the URL's
extension), checked against the content's own signature. A PDF that is really an HTML error page, or a DOCX that is
really a PDF, is refused as a content-type mismatch."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from mendel.extract.model import ExtractionError

_CONTENT_TYPES = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    "application/acrobat": "pdf",
    "text/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/json": "json",
    "application/ld+json": "json",
    "text/json": "json",
    "text/plain": "text",
    "text/csv": "text",
    "text/markdown": "text",
    "application/rtf": "rtf",
    "text/rtf": "rtf",
    "application/x-rtf": "rtf",
    "text/richtext": "rtf",
}
_GENERIC = {
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/download",
    "application/force-download",
    "application/x-download",
    "application/unknown",
    "application/binary",
    "application/x-unknown",
}
_EXTENSIONS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".json": "json",
    ".jsonld": "json",
    ".txt": "text",
    ".rtf": "rtf",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
    ".gif": "image",
    ".bmp": "image",
    ".webp": "image",
}
DESCRIPTIONS = {
    "pdf": "a PDF",
    "zip": "a ZIP archive (DOCX)",
    "docx": "a DOCX",
    "ole": "a legacy MS Office file",
    "rtf": "RTF",
    "image": "an image",
    "html": "HTML",
    "json": "JSON",
    "xml": "XML",
    "text": "plain text",
    "binary": "binary data",
    "empty": "empty",
}


def media_type(content_type: str | None) -> tuple[str, str | None]:
    if not content_type:
        return "", None
    parts = [p.strip() for p in content_type.split(";")]
    charset = None
    for param in parts[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    return parts[0].lower(), charset


def sniff(data: bytes) -> str:
    """What the bytes say they are: pdf, zip, ole, rtf, image, html, xml, json, text, binary or empty."""
    if not data.strip():
        return "empty"
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        return "zip"
    if data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "ole"
    if data.lstrip()[:5] == b"{\\rtf":
        return "rtf"
    if (
        data.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"GIF87a", b"GIF89a"))
        or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")
        or (data[:2] == b"BM" and len(data) > 26 and data[6:10] == b"\x00\x00\x00\x00")
    ):
        return "image"
    from mendel.extract.text import _looks_utf16

    encoding = _looks_utf16(head)
    for bom, name in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            encoding, head = name, data[len(bom) : 1024 + len(bom)]
            break
    sample = head.decode(encoding or "latin-1", errors="ignore").lstrip().lower()
    if encoding is None and head.count(b"\x00") > 0:
        return "binary"
    if sample.startswith(("<!doctype html", "<html")) or re.search(r"<(html|head|body)[\s>]", sample[:1024]):
        return "html"
    if sample.startswith("<?xml") or sample.startswith("<"):
        return "html" if "<html" in sample else "xml"
    if sample.startswith(("{", "[")):
        return "json"
    controls = sum(1 for ch in sample if ch < "\t" or "\r" < ch < " ")
    return "binary" if controls > 0.05 * max(len(sample), 1) else "text"


def _expected(content_type: str | None, url: str | None) -> tuple[str | None, str]:
    """(format the sender claims, how it claims it). None: nothing claimed, go by the content."""
    media, _ = media_type(content_type)
    if media and media not in _GENERIC:
        if media in _CONTENT_TYPES:
            return _CONTENT_TYPES[media], f"declared {media}"
        if media.startswith("image/"):
            return "image", f"declared {media}"
        if media.endswith("+json"):
            return "json", f"declared {media}"
        raise ExtractionError(f"unsupported content type {media}")
    if url:
        path = urlparse(url).path.lower()
        for extension, fmt in _EXTENSIONS.items():
            if path.endswith(extension):
                return fmt, f"URL ending {extension}"
    return None, ""


_COMPATIBLE = {
    "pdf": {"pdf"},
    "docx": {"zip"},
    "rtf": {"rtf"},
    "image": {"image"},
    "html": {"html", "xml", "text"},
    "json": {"json", "text"},
    "text": {"text", "html", "json", "rtf", "xml"},
}


def detect_format(data: bytes, content_type: str | None = None, url: str | None = None) -> str:
    """pdf, docx, html, json, text, rtf or image; ExtractionError when unsupported or mismatched."""
    sniffed = sniff(data)
    if sniffed == "empty":
        raise ExtractionError("empty document (no content)")
    expected, source = _expected(content_type, url)
    if expected is None:
        if sniffed == "zip":
            return "docx"
        if sniffed == "ole":
            raise ExtractionError("unsupported format: legacy MS Office (OLE) document (.doc/.xls)")
        if sniffed == "binary":
            raise ExtractionError("unsupported format: binary data of unknown type")
        if sniffed == "xml":
            raise ExtractionError("unsupported format: XML that is not XHTML")
        return sniffed
    if sniffed not in _COMPATIBLE[expected]:
        raise ExtractionError(
            f"content type mismatch: {source} says {DESCRIPTIONS[expected]}, but the content is {DESCRIPTIONS[sniffed]}"
        )
    if expected == "text" and sniffed in ("html", "rtf"):
        return sniffed
    if expected == "html" and sniffed == "text":
        return "html"
    return expected
