"""Page images a killed OCR process left behind: ``mendel.extract.ocr`` writes each page it reads into a private
temporary directory (``mendel-ocr-*``, ~8 MB a page) that its ``with`` block removes; a process killed meanwhile (a
stopped night) leaves it for good. The extract stage sweeps them before it reads (kept out of ``mendel/extract``: a
change there is a new extract version, and every document is extracted again)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

OCR_PAGE_PREFIX = "mendel-ocr-"  # the prefix mendel.extract.ocr gives its page directories
# A page's OCR lasts minutes at most (two Tesseract runs of at most its timeout): older than this, nobody reads it.
STALE_AFTER_S = 3600.0


def sweep_stale_pages(directory: str | None = None, max_age_s: float = STALE_AFTER_S) -> list[str]:
    """Remove the page directories of ``directory`` (default: the system's temporary one) left there longer than
    ``max_age_s``; returns their names."""
    removed = []
    for entry in Path(directory or tempfile.gettempdir()).glob(OCR_PAGE_PREFIX + "*"):
        try:
            stale = entry.is_dir() and time.time() - entry.stat().st_mtime > max_age_s
        except OSError:
            continue  # removed meanwhile
        if stale:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    return removed
