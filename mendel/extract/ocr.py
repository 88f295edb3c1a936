"""OCR with the Tesseract command (`tesseract-ocr`, `-ces`, `-eng` Debian packages), one thread per process.

An image goes to `tesseract <file> stdout tsv` as an uncompressed 8-bit grayscale PGM in a private temporary
directory: writing it costs ~7 ms where a PNG cost ~0.1 s of this process's CPU a page (300 dpi A4), and
Tesseract reads a file faster than the same image from stdin (it spent ~0.3 s more a page on an uncompressed
image through stdin, ~0.15 s more on a PNG). The render and the file are the only work a page costs this process
while the pages' Tesseracts run in parallel, so they bound the speed-up on every core. One run gives both the
text and the confidence:
the TSV holds every word with its confidence and its block / paragraph / line, and the page text is rebuilt
from it line by line. Only a page read with low confidence gets a second look: Tesseract's orientation
detection (`--psm 0`), and a second OCR run if the page is upside down or sideways.

Each Tesseract process runs one thread (`OMP_THREAD_LIMIT=1`: its OpenMP threads only contend on a busy machine),
so the pages of a scanned document are OCR'd in parallel instead, one process per usable core
(`default_workers`, the default of `ExtractionLimits.ocr_workers`; `MENDEL_OCR_WORKERS` overrides it).
`benchmarks/bench_ocr.py` measures pages/s with one worker and with one per core.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from mendel.extract.model import ExtractionError, configured_workers


class OcrUnavailableError(RuntimeError):
    """Tesseract (or a requested language) is not installed: a deployment problem, not a bad document."""


@dataclass(frozen=True)
class OcrResult:
    text: str
    confidence: float | None  # character-weighted mean word confidence, 0.0-1.0; None without words
    words: int


WORKERS_ENV = "MENDEL_OCR_WORKERS"


def default_workers() -> int:
    """Tesseract processes to run at once: ``MENDEL_OCR_WORKERS``, else one per CPU this process may use."""
    return configured_workers(WORKERS_ENV)


def tesseract_path() -> str | None:
    return shutil.which("tesseract")


@lru_cache(maxsize=1)
def tesseract_languages() -> frozenset[str]:
    path = tesseract_path()
    if path is None:
        return frozenset()
    result = subprocess.run([path, "--list-langs"], capture_output=True, text=True, timeout=30)
    lines = (result.stdout or result.stderr).splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip())


def ocr_available(languages: str = "ces+eng") -> bool:
    return tesseract_path() is not None and set(languages.split("+")) <= tesseract_languages()


def _env() -> dict[str, str]:
    return dict(os.environ, OMP_THREAD_LIMIT="1")


def _bitmap(image: Image.Image, directory: str, name: str) -> str:
    """``image`` as an 8-bit grayscale PGM file in ``directory``; its path."""
    if image.mode != "L":
        image = image.convert("L")
    path = os.path.join(directory, f"{name}.pgm")
    image.save(path, format="PPM")
    return path


def _run(args: list[str], image_path: str, timeout_s: float) -> str:
    path = tesseract_path()
    if path is None:
        raise OcrUnavailableError("tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-ces)")
    try:
        result = subprocess.run(
            [path, image_path, "stdout", *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=_env(),
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as exc:
        raise ExtractionError(f"OCR timed out after {timeout_s:.0f} s") from exc
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        if any("Failed loading language" in line for line in message):
            raise OcrUnavailableError("; ".join(message[:2]))
        raise ExtractionError(f"OCR failed: {message[-1] if message else f'exit {result.returncode}'}")
    return result.stdout.decode("utf-8", "replace")


def parse_tsv(tsv: str) -> OcrResult:
    """Page text from Tesseract TSV: words joined into lines, paragraphs on new lines, blocks apart."""
    blocks: dict[tuple[int, int], dict[tuple[int, int], list[str]]] = {}
    weighted, weight, words = 0.0, 0, 0
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) != 12 or cols[0] != "5":
            continue
        word = cols[11].strip()
        try:
            conf = float(cols[10])
        except ValueError:
            continue
        if not word or conf < 0:
            continue
        page, block, par, line = (int(c) for c in cols[1:5])
        blocks.setdefault((page, block), {}).setdefault((par, line), []).append(word)
        weighted += conf * len(word)
        weight += len(word)
        words += 1
    text = "\n\n".join("\n".join(" ".join(line_words) for line_words in lines.values()) for lines in blocks.values())
    return OcrResult(text=text, confidence=round(weighted / weight / 100.0, 4) if weight else None, words=words)


_ROTATE = re.compile(r"Rotate:\s*(\d+)")
_ORIENTATION_CONF = re.compile(r"Orientation confidence:\s*([\d.]+)")


def _orientation(image_path: str, timeout_s: float) -> int:
    """Degrees to rotate the image clockwise so the text stands upright (0 when unsure)."""
    try:
        out = _run(["--psm", "0", "-l", "osd"], image_path, timeout_s)
    except (ExtractionError, OcrUnavailableError):
        return 0
    rotate, conf = _ROTATE.search(out), _ORIENTATION_CONF.search(out)
    if not rotate or not conf or float(conf.group(1)) < 2.0:
        return 0
    return int(rotate.group(1)) % 360


def ocr_image(
    image: Image.Image,
    *,
    languages: str = "ces+eng",
    dpi: int | None = 300,
    timeout_s: float = 180.0,
    detect_orientation: bool = True,
) -> OcrResult:
    """OCR one page image. `dpi` is its resolution when known; below 150 it is not passed on (a scan stored
    one pixel per point says 72 dpi but holds 300 dpi text) and Tesseract estimates it from the glyphs."""
    args = ["-l", languages, *(["--dpi", str(int(dpi))] if dpi and 150 <= dpi <= 1200 else []), "--psm", "3", "tsv"]
    with tempfile.TemporaryDirectory(prefix="mendel-ocr-") as directory:
        page = _bitmap(image, directory, "page")
        result = parse_tsv(_run(args, page, timeout_s))
        if (
            detect_orientation
            and (result.confidence is None or result.confidence < 0.6)
            and "osd" in tesseract_languages()
        ):
            rotate = _orientation(page, timeout_s)
            if rotate:
                # Tesseract's "Rotate: N" is clockwise; PIL rotates counter-clockwise.
                turned = parse_tsv(
                    _run(args, _bitmap(image.rotate(-rotate, expand=True), directory, "turned"), timeout_s)
                )
                if (turned.confidence or 0) > (result.confidence or 0):
                    result = turned
    return result
