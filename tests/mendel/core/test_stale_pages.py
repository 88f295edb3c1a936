"""Page images a killed OCR process left are swept (mendel.core.stale_pages), under the prefix the OCR gives them."""

from __future__ import annotations

import inspect
import os
import time

from mendel.core.stale_pages import OCR_PAGE_PREFIX, sweep_stale_pages
from mendel.extract import ocr


def test_page_directories_a_killed_process_left_are_swept(tmp_path):
    """A night stopped while a page was read leaves its page image (~8 MB) behind: an hour on, it is removed."""
    hour_ago = time.time() - 3700
    for name in ("mendel-ocr-left", "mendel-ocr-reading", "other-left"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "page.pgm").write_bytes(b"P5")
    for name in ("mendel-ocr-left", "other-left"):
        os.utime(tmp_path / name, (hour_ago, hour_ago))
    assert sweep_stale_pages(str(tmp_path)) == ["mendel-ocr-left"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mendel-ocr-reading", "other-left"]


def test_the_sweep_looks_for_the_prefix_the_ocr_writes():
    assert f'prefix="{OCR_PAGE_PREFIX}"' in inspect.getsource(ocr.ocr_image)
