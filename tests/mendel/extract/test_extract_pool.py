"""Documents extracted by worker processes (mendel.extract.document.extract_files) give what extraction in this
process gives, in the same order, bad input included."""

import pytest

from mendel.extract import document
from mendel.extract.document import POOL_MIN_FILES, extract_file, extract_files
from tests.support import REPO_ROOT

CORPUS = REPO_ROOT / "sample_corpus"
PDF = "application/pdf"


def jobs(tmp_path) -> list[tuple[str, str | None, str | None]]:
    """One real PDF, bad input, and small plain-text records: enough files for the pool, cheap to extract."""
    pdf = sorted((CORPUS / "municipal" / "blesno" / "text").glob("*.pdf"))[0]
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot really a pdf")
    work = [
        (str(pdf), PDF, f"https://blesno.cz/{pdf.name}"),
        (str(broken), PDF, "https://x.cz/broken.pdf"),
        (str(tmp_path / "missing.pdf"), PDF, "https://x.cz/gone.pdf"),
    ]
    for number in range(POOL_MIN_FILES):
        record = tmp_path / f"record-{number}.txt"
        record.write_text(
            f"Obec Blešno\nČást obce č. {number}: Blešno {number}\nPočet adresních míst: {number * 7}\n",
            encoding="utf-8",
        )
        work.append((str(record), "text/plain; charset=utf-8", f"https://ruian.cz/obec/{number}"))
    return work


def outline(result):
    doc, failure = result
    return failure if doc is None else [(p.page_no, p.text) for p in doc.pages]


@pytest.mark.slow
def test_worker_processes_extract_what_this_process_extracts_in_order(tmp_path, monkeypatch):
    work = jobs(tmp_path)
    here = [outline(r) for r in extract_files(work, workers=1)]
    pooled = [outline(r) for r in extract_files(work, workers=2)]
    assert pooled == here
    assert sum(isinstance(o, str) for o in here) == sum(1 for j in work if "x.cz" in j[2])  # bad input: a reason
    assert any("missing.pdf" in o or "No such file" in o for o in here if isinstance(o, str))
    assert all(o for o in here if not isinstance(o, str))  # real files: pages


@pytest.mark.slow
def test_few_files_need_no_worker_processes(tmp_path, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started for a few files")

    monkeypatch.setattr(document, "ProcessPoolExecutor", no_pool)
    work = jobs(tmp_path)[:3]
    assert [outline(r) for r in extract_files(work, workers=2)] == [outline(extract_file(*j)) for j in work]


def test_the_worker_count_can_be_set(monkeypatch):
    monkeypatch.setenv(document.EXTRACT_WORKERS_ENV, "3")
    assert document.extract_workers() == 3
    monkeypatch.delenv(document.EXTRACT_WORKERS_ENV)
    assert document.extract_workers() >= 1


KILLED_RUN = """
import sys
from pathlib import Path
from mendel.extract.document import extract_files

scans = sorted(Path(sys.argv[1]).glob("*.pdf"))
work = [(str(scan), "application/pdf", None) for scan in scans] * 4
for _ in extract_files(work, workers=2, min_files=1):
    pass
"""


def test_a_run_killed_during_extraction_leaves_no_worker_alive():
    """SIGKILL to the process extracting with a pool (it can't clean up): its workers get the parent-death signal."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import psutil

    scans = CORPUS / "municipal" / "blesno" / "scanned"
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(scans)], cwd=REPO_ROOT)
    deadline = time.monotonic() + 120
    ocr: list[psutil.Process] = []
    while time.monotonic() < deadline and not ocr:  # a worker OCRs a page: it started and took its first task
        ocr = [p for p in psutil.Process(run.pid).children(recursive=True) if p.name() == "tesseract"]
        time.sleep(0.1)
    assert ocr, "the pool's workers never started OCR"
    descendants = psutil.Process(run.pid).children(recursive=True)
    os.kill(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    gone, alive = psutil.wait_procs(descendants, timeout=60)  # a page's Tesseract may finish that page first
    assert alive == [], f"still running after the run was killed: {[(p.pid, p.name()) for p in alive]}"
