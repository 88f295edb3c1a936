"""PDF page text with pdfplumber; a PDF that can't be read raises ExtractionError with the reason."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfparser import PDFSyntaxError

logging.getLogger("pdfminer").setLevel(logging.ERROR)

MAX_PAGES = 2000


class ExtractionError(Exception):
    """The document can't be turned into pages; the message is the quarantine reason."""


@dataclass(frozen=True)
class PageText:
    page_no: int  # 1-based
    text: str


def pdf_pages(data: bytes, max_pages: int = MAX_PAGES) -> list[PageText]:
    if not data.startswith(b"%PDF"):
        raise ExtractionError("not a PDF (missing %PDF header)")
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            if len(pdf.pages) == 0:
                raise ExtractionError("PDF has no pages")
            if len(pdf.pages) > max_pages:
                raise ExtractionError(f"PDF has {len(pdf.pages)} pages, limit is {max_pages}")
            return [
                PageText(number, page.extract_text(x_tolerance=1.5, y_tolerance=3) or "")
                for number, page in enumerate(pdf.pages, start=1)
            ]
    except ExtractionError:
        raise
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise ExtractionError(f"encrypted PDF: {exc.__class__.__name__}") from exc
    except PDFSyntaxError as exc:
        raise ExtractionError(f"malformed PDF: {exc}") from exc
    except Exception as exc:  # pdfminer raises many types on broken files
        raise ExtractionError(f"unreadable PDF: {exc.__class__.__name__}: {exc}") from exc
