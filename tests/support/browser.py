"""Debian's Chromium driven through Playwright: where it is, how it is started, and screenshots a test keeps
(copied to ``MENDEL_SCREENSHOT_DIR`` when set). The ``browser`` fixture lives in tests/serving/web/conftest.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def screenshot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path))
    target = os.environ.get("MENDEL_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(target) / path.name)
    return path
