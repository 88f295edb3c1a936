"""Bad input of every kind, each made from a real sample file, with the reason extraction must give: a truncated
law, a PDF whose cross-reference table is blanked, an encrypted copy, a zero-page PDF, a PDF and a DOCX with a
decompression bomb inside, a scan whose image claims 100,000 x 100,000 pixels, an HTML error page served as a PDF, a
decision in UTF-16 with a broken surrogate, the real malformed laws JSON and more (``CASES``)."""

from __future__ import annotations

import io
import random
import re
import struct
import zipfile
import zlib

import pypdf
from pypdf.generic import NameObject, NumberObject

from mendel.core.config import SAMPLE_CORPUS

ESBIRKA = SAMPLE_CORPUS / "esbirka"
LAW = ESBIRKA / "pdf" / "87-2024.pdf"  # 4 pages, xref stream
SCAN = (
    SAMPLE_CORPUS
    / "municipal"
    / "blesno"
    / "scanned"
    / ("vr-na-realizaci-akce-vodacke-pristaviste-blesno__jmenovani-clenu-komise.pdf")
)  # PDF 1.2, xref table
TEXT_PDF = (
    SAMPLE_CORPUS
    / "municipal"
    / "blesno"
    / "text"
    / ("volby__stanoveni-miminalniho-poctu-clenu-okrskove-volebni-komise.pdf")
)
USTAVA = ESBIRKA / "docx" / "Sb_1993_1_IZ.docx"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def write_pdf(writer: pypdf.PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_xref(data: bytes) -> bytes:
    """Spaces over everything from the last cross-reference section to `startxref`."""
    match = list(re.finditer(rb"startxref\s+(\d+)", data))[-1]
    offset = int(match.group(1))
    return data[:offset] + b" " * (match.start() - offset) + data[match.start() :]


def truncated_law():
    data = LAW.read_bytes()
    return data[: len(data) // 2], "application/pdf"


def truncated_scan():
    data = SCAN.read_bytes()
    return data[: int(len(data) * 0.9)], "application/pdf"


def blanked_xref_scan():
    return blank_xref(SCAN.read_bytes()), "application/pdf"


def blanked_xref_and_objects():
    data = blank_xref(LAW.read_bytes())
    return re.sub(rb"\d+ \d+ obj", lambda m: b"x" * len(m.group(0)), data), "application/pdf"


def encrypted():
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(TEXT_PDF))
    writer.encrypt(user_password="tajne", owner_password="vlastnik", algorithm="AES-256")
    return write_pdf(writer), "application/pdf"


def zero_pages():
    writer = pypdf.PdfWriter()
    writer.add_metadata({"/Title": "Prázdný dokument"})
    return write_pdf(writer), "application/pdf"


def image_pixel_bomb():
    """The scan's one image claims 100,000 x 100,000 pixels (10 Gpx) in its dictionary."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(SCAN))
    xobjects = writer.pages[0]["/Resources"]["/XObject"]
    for name in xobjects:
        image = xobjects[name].get_object()
        image[NameObject("/Width")] = NumberObject(100_000)
        image[NameObject("/Height")] = NumberObject(100_000)
    return write_pdf(writer), "application/pdf"


def page_pixel_bomb():
    """A real law with a 200 x 200 inch page appended that has a drawing and no text: OCR would render it."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(LAW))
    page = writer.add_blank_page(14_400, 14_400)
    stream = pypdf.generic.DecodedStreamObject()
    stream.set_data(b"0 0 m 14000 14000 l S")
    page[NameObject("/Contents")] = writer._add_object(stream)
    return write_pdf(writer), "application/pdf"


def png_pixel_bomb():
    """A real scan rendered to PNG, its header then rewritten to 60,000 x 60,000 pixels."""
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(str(SCAN))[0].render(scale=0.1, grayscale=True).to_pil()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    data = bytearray(buffer.getvalue())
    ihdr = bytearray(data[12:29])  # b"IHDR" + 13 bytes of data
    ihdr[4:12] = struct.pack(">II", 60_000, 60_000)
    data[12:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(ihdr)))
    return bytes(data), "image/png"


def pdf_decompression_bomb():
    """The real law with a page appended whose content stream is 100 MiB of zeros deflated to ~100 KiB."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(LAW))
    deflate = zlib.compressobj(9)
    compressed = b"".join([deflate.compress(bytes(2**20)) for _ in range(100)] + [deflate.flush()])
    stream = pypdf.generic.EncodedStreamObject()
    stream._data = compressed
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page = writer.add_blank_page(595, 842)
    page[NameObject("/Contents")] = writer._add_object(stream)
    return write_pdf(writer), "application/pdf"


def _decision_text() -> str:
    import json

    line = (SAMPLE_CORPUS / "courts" / "ns_decisions.jsonl").read_text("utf-8").splitlines()[0]
    return json.loads(line)["full_text"][:3000]


def utf16_broken_surrogate():
    """A real decision in UTF-16-LE (as the NSS serves its texts) with a lone high surrogate in the middle."""
    text = _decision_text()
    return text[:500].encode("utf-16-le") + b"\x00\xd8" + text[500:].encode("utf-16-le"), "text/plain"


def _docx_with(extra: dict[str, bytes]) -> bytes:
    source = zipfile.ZipFile(USTAVA)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info, source.read(info))
        for name, content in extra.items():
            archive.writestr(name, content)
    return out.getvalue()


def docx_zip_bomb():
    """The Ústava DOCX with 50 MB of zeros hidden in word/media (a 1000x compression ratio)."""
    return _docx_with({"word/media/image1.bin": bytes(50 * 2**20)}), DOCX_TYPE


def docx_truncated():
    data = USTAVA.read_bytes()
    return data[: len(data) // 2], DOCX_TYPE


def docx_corrupt_member():
    """The DOCX with the compressed bytes of word/document.xml flipped: the CRC can't match."""
    data = bytearray(USTAVA.read_bytes())
    info = zipfile.ZipFile(USTAVA).getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start + 100, start + 400):
        data[i] ^= 0x5A
    return bytes(data), DOCX_TYPE


def xlsx_as_docx():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
    return out.getvalue(), None


def html_error_page_as_pdf():
    from mirror.courts import NsoudSite

    site = NsoudSite(SAMPLE_CORPUS)
    return site.decision_page(site.decisions[0]).body, "application/pdf"


def pdf_as_docx():
    return LAW.read_bytes(), DOCX_TYPE


def pdf_as_text():
    return LAW.read_bytes(), "text/plain"


def malformed_laws_json():
    return (ESBIRKA / "laws_malformed.json").read_bytes(), "application/json"


def unsupported_json():
    schema = SAMPLE_CORPUS / "municipal" / "ofn-2021-07-20" / "schémata_úřední-deska.json"
    return schema.read_bytes(), "application/json"


def binary_as_text():
    return random.Random(8).randbytes(4096), "text/plain"


def truncated_png():
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(str(SCAN))[0].render(scale=0.2, grayscale=True).to_pil()
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()[:400], "image/png"


def legacy_doc():
    # an OLE2 compound file signature followed by real bytes: a .doc we do not read
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + USTAVA.read_bytes()[8:], None


def unsupported_type():
    return LAW.read_bytes(), "application/vnd.ms-excel"


def empty():
    return b"", "application/pdf"


def zero_byte_docx():
    return b"", DOCX_TYPE


EMPTY_BODY = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    b"<w:p/></w:body></w:document>"
)


def empty_docx():
    """A valid DOCX (the Ústava's package) whose document body holds one empty paragraph."""
    source = zipfile.ZipFile(USTAVA)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info, EMPTY_BODY if info.filename == "word/document.xml" else source.read(info))
    return out.getvalue(), DOCX_TYPE


def blank_image():
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (800, 600), color=255).save(buffer, format="PNG")
    return buffer.getvalue(), "image/png"


def law():
    return LAW.read_bytes(), "application/pdf"


def ustava():
    return USTAVA.read_bytes(), DOCX_TYPE


def kadan_board():
    return (SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_bytes(), "application/json"


CASES = [
    # (builder, limits to override, reason pattern)
    (truncated_law, None, r"^truncated PDF \(no %%EOF at the end\)"),
    (truncated_scan, None, r"^truncated PDF"),
    (blanked_xref_scan, None, r"No /Root object.*PDFium: Failed to load document"),
    (blanked_xref_and_objects, None, r"No /Root object.*PDFium: Failed to load document"),
    (encrypted, None, r"^encrypted PDF: a password is required"),
    (zero_pages, None, r"^PDF has no pages$"),
    (image_pixel_bomb, None, r"^pixel bomb: page 1 embeds a 100000x100000 image"),
    (page_pixel_bomb, None, r"^pixel bomb: page 5 is 200x200 in"),
    (png_pixel_bomb, None, r"^pixel bomb: .*3600000000 pixels"),
    (truncated_png, None, r"^malformed or truncated image|^malformed image"),
    (pdf_decompression_bomb, None, r"^decompression bomb: PDF stream object \d+ inflates past 64 MiB from 100 KiB$"),
    (docx_zip_bomb, None, r"^zip bomb: DOCX member word/media/image1.bin expands \d+x \(limit 200x\)"),
    (
        docx_zip_bomb,
        {"max_unzipped_bytes": 20 * 2**20, "max_zip_ratio": 10_000.0},
        r"^zip bomb: DOCX unpacks to 50 MiB",
    ),
    (docx_truncated, None, r"^malformed DOCX: not a readable ZIP archive"),
    (docx_corrupt_member, None, r"corrupt DOCX: word/document.xml|Bad CRC-32"),
    (xlsx_as_docx, None, r"^not a DOCX: an XLSX workbook"),
    (
        html_error_page_as_pdf,
        None,
        r"^content type mismatch: declared application/pdf says a PDF, but the content is HTML$",
    ),
    (pdf_as_docx, None, r"^content type mismatch: .* says a DOCX, but the content is a PDF"),
    (pdf_as_text, None, r"^content type mismatch: declared text/plain says plain text, but the content is a PDF"),
    (malformed_laws_json, None, r"^malformed JSON: .* at line 28 column \d+$"),
    (unsupported_json, None, r"^unsupported JSON: not an OFN úřední deska notice or board$"),
    (binary_as_text, None, r"binary data"),
    (utf16_broken_surrogate, None, r"^undecodable text as utf-16-le: .*illegal UTF-16 surrogate"),
    (legacy_doc, None, r"legacy MS Office"),
    (unsupported_type, None, r"^unsupported content type application/vnd.ms-excel$"),
    (empty, None, r"^empty document"),
    (zero_byte_docx, None, r"^empty document \(no content\)$"),
    (empty_docx, None, r"^a DOCX with no text in it: an empty document"),
    (blank_image, None, r"^an image with no text in it: OCR found none$"),
    (law, {"max_bytes": 100_000}, r"^document is 156827 bytes, limit is 100000$"),
    (law, {"max_pages": 3}, r"^PDF has 4 pages, limit is 3$"),
    (ustava, {"max_unzipped_bytes": 50_000}, r"^zip bomb: DOCX unpacks to"),
    (kadan_board, {"max_pages": 50}, r"^board has 87 notices, limit is 50$"),
]
