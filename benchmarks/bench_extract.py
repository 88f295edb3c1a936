"""Extraction speed on the real sample corpus, one core: text-layer PDFs, and OCR of the Blešno scans against the
bare `tesseract` command on the same page images (the goal: ours >= 0.9 of bare, in pages per core-second).

    .venv/bin/python benchmarks/bench_extract.py [--quick]

Pages are divided by CPU seconds (this process and its Tesseract children), so the figures hold on a busy machine;
every OCR'd page must come back with Czech text. Writes benchmarks/results/extract.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

from mendel.core.config import SAMPLE_CORPUS  # noqa: E402
from mendel.extract.document import DEFAULT_LIMITS, extract_document  # noqa: E402
from mendel.extract.ocr import tesseract_path  # noqa: E402

TEXT_PDFS = [
    "esbirka/pdf/87-2024.pdf",
    "esbirka/pdf/573-2025.pdf",
    "esbirka/pdf/324-2025.pdf",
    "esbirka/pdf/176-2025.pdf",
    "esbirka/pdf/285-2025.pdf",
    "esbirka/pdf/120-2025.pdf",
    "esbirka/pdf/323-2025.pdf",
    "esbirka/pdf/234-2025.pdf",
    "municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
    "municipal/blesno/text/obecni-knihovna__smernice-pro-nakladani-s-osobnimi-udaji.pdf",
    "municipal/blesno/text/informacni-noviny__bib-2020-02.pdf",
]
QUICK_TEXT = TEXT_PDFS[:4]


class Clock:
    """Wall time and CPU time of this process plus its waited-for children."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), self._cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = self._cpu() - self.cpu

    @staticmethod
    def _cpu() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def bench_text(paths: list[str]) -> dict:
    pages = 0
    with Clock() as clock:
        for path in paths:
            document = extract_document((SAMPLE_CORPUS / path).read_bytes(), "application/pdf")
            assert not any(p.is_ocr for p in document.pages), path
            pages += len(document.pages)
    return {
        "files": len(paths),
        "pages": pages,
        "wall_s": round(clock.wall, 2),
        "cpu_s": round(clock.cpu, 2),
        "pages_per_s_wall": round(pages / clock.wall, 2),
        "pages_per_core_s": round(pages / clock.cpu, 2),
    }


def bench_ocr(paths: list[Path]) -> dict:
    import pypdfium2 as pdfium

    from mendel.extract.pdf import _read_pdfplumber, render_scale

    per_file, pages, confidences = [], 0, []
    with Clock() as ours:
        for path in paths:
            document = extract_document(path.read_bytes(), "application/pdf")
            ocr_pages = [p for p in document.pages if p.is_ocr]
            assert len(ocr_pages) == len(document.pages), path
            assert sum(document.text.count(c) for c in "ěščřžýáíé") > 20, path
            pages += len(document.pages)
            confidences += [p.ocr_confidence for p in ocr_pages]
            text = document.text
            per_file.append(
                {
                    "file": path.name,
                    "pages": len(document.pages),
                    "ocr_pages": len(ocr_pages),
                    "mean_confidence": round(sum(p.ocr_confidence for p in ocr_pages) / max(len(ocr_pages), 1), 3),
                    "czech_letters": sum(text.count(c) for c in "áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ"),
                    "start": text[:80],
                }
            )

    # The bare command on the same images: render once (not timed), then time tesseract alone.
    with tempfile.TemporaryDirectory() as tmp:
        images = []
        for path in paths:
            data = path.read_bytes()
            raws = _read_pdfplumber(data, DEFAULT_LIMITS)
            document = pdfium.PdfDocument(data)
            for raw in raws:
                scale = render_scale(raw, DEFAULT_LIMITS)
                image = document[raw.page_no - 1].render(scale=scale, grayscale=True).to_pil()
                target = Path(tmp) / f"{path.stem[:40]}-{raw.page_no}.png"
                image.save(target, dpi=(round(72 * scale),) * 2)
                images.append(target)
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        with Clock() as bare:
            for image in images:
                subprocess.run(
                    [tesseract_path(), str(image), "stdout", "-l", "ces+eng"], check=True, capture_output=True, env=env
                )
    return {
        "files": len(paths),
        "pages": pages,
        "ours": {
            "wall_s": round(ours.wall, 2),
            "cpu_s": round(ours.cpu, 2),
            "pages_per_s_wall": round(pages / ours.wall, 3),
            "pages_per_core_s": round(pages / ours.cpu, 3),
        },
        "bare_tesseract": {
            "wall_s": round(bare.wall, 2),
            "cpu_s": round(bare.cpu, 2),
            "pages_per_s_wall": round(len(images) / bare.wall, 3),
            "pages_per_core_s": round(len(images) / bare.cpu, 3),
        },
        "overhead_cpu": round(ours.cpu / bare.cpu, 3),
        "ratio_to_bare": round((pages / ours.cpu) / (len(images) / bare.cpu), 3),
        "goal_ratio": 0.9,
        "mean_confidence": round(sum(confidences) / max(len(confidences), 1), 3),
        "per_file": per_file,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="4 text PDFs and 2 scans")
    args = parser.parse_args()
    if tesseract_path() is None:
        raise SystemExit("tesseract is missing: apt-get install tesseract-ocr tesseract-ocr-ces tesseract-ocr-eng")
    scans = sorted((SAMPLE_CORPUS / "municipal" / "blesno" / "scanned").glob("*.pdf"))
    if args.quick:
        scans = [s for s in scans if "jmenovani" in s.name]
    version = subprocess.run([tesseract_path(), "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    result = {
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "tesseract": version,
        "ocr_dpi": DEFAULT_LIMITS.ocr_dpi,
        "ocr_languages": DEFAULT_LIMITS.ocr_languages,
        "text_pdf": bench_text(QUICK_TEXT if args.quick else TEXT_PDFS),
        "ocr": bench_ocr(scans),
    }
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "extract.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    summary = {k: result[k] for k in ("cpus", "load_avg_1m")}
    summary["text_pdf_pages_per_s_wall"] = result["text_pdf"]["pages_per_s_wall"]
    summary["text_pdf_pages_per_core_s"] = result["text_pdf"]["pages_per_core_s"]
    summary["ocr_pages_per_core_s"] = result["ocr"]["ours"]["pages_per_core_s"]
    summary["bare_tesseract_pages_per_core_s"] = result["ocr"]["bare_tesseract"]["pages_per_core_s"]
    summary["ocr_ratio_to_bare"] = result["ocr"]["ratio_to_bare"]
    summary["ocr_mean_confidence"] = result["ocr"]["mean_confidence"]
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    main()
