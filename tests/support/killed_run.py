"""Child side of tests/mendel/core/test_run_guard.py: a guarded run that is killed during extraction.

    python -m tests.support.killed_run

It guards itself as ``mendel run`` does, starts a crawl subprocess the way the crawl assets do (bound to this
process by its parent-death signal) that opens Chromium through Playwright, as the board crawl does (Playwright
starts the browser in a session of its own), then extracts the stored documents (the scanned PDFs of the sample
corpus: OCR) over a pool of two worker processes, and waits to be killed. ``KILLED_RUN_DATABASE_URL`` and
``KILLED_RUN_HOME`` say where the documents are; the run's token is written to ``KILLED_RUN_TOKEN_FILE``. Nothing
here changes what the product code does: the pool's size and threshold are its own parameters."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from mendel.core.run_guard import guard_run

# A crawl with a browser: Debian's Chromium through Playwright, as the board crawl opens it; then it waits.
CRAWL_WITH_BROWSER = """
import threading
from playwright.sync_api import sync_playwright

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
    browser.new_page().goto("about:blank")
    print("browser open", flush=True)
    threading.Event().wait()
"""


def main() -> None:
    token = guard_run()
    Path(os.environ["KILLED_RUN_TOKEN_FILE"]).write_text(token)
    from orchestration.parent_death import bound_command

    subprocess.Popen(bound_command([sys.executable, "-c", CRAWL_WITH_BROWSER]))

    import psycopg

    from mendel.core.rawstore import RawStore
    from mendel.extract import document
    from mendel.nightly import extract_stage

    document.extract_files.__defaults__ = (2, 1)  # two workers, a pool for any number of files
    with psycopg.connect(os.environ["KILLED_RUN_DATABASE_URL"], autocommit=True) as conn:
        print(extract_stage.extract_pending(conn, RawStore(Path(os.environ["KILLED_RUN_HOME"]) / "raw")), flush=True)
    threading.Event().wait()  # extraction done before the kill: the test says so


if __name__ == "__main__":
    main()
