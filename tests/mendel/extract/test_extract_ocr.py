"""OCR of real scans with Tesseract (ces+eng): a scanned Blešno PDF, a mixed PDF made from a real law and
a real scan, and a scan turned sideways as a PNG. Four Tesseract page runs in all (plus one orientation
check); each asserts a phrase read off the page image once by hand."""

from __future__ import annotations

import io
from dataclasses import replace

import pypdf
import pypdfium2 as pdfium
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import DEFAULT_LIMITS, extract_document
from mendel.extract.ocr import ocr_available, parse_tsv

SCANNED = SAMPLE_CORPUS / "municipal" / "blesno" / "scanned"
COMMITTEE = SCANNED / (
    "vr-na-dodavatele-projektove-dokumentace-pro-stavebni-rizeni-a-realizaci-kanalizace__jmenovani-vyberove-komise.pdf"
)
PROTOCOL = SCANNED / "vr-na-realizaci-akce-vodacke-pristaviste-blesno__protokol-vr.pdf"
RADARS = SCANNED / "poptavkove-rizeni-radary-blesno__vr-radary-protokol.pdf"
LAW = SAMPLE_CORPUS / "esbirka" / "pdf" / "87-2024.pdf"

needs_tesseract = pytest.mark.skipif(
    not ocr_available("ces+eng"), reason="tesseract with ces+eng is not installed (see .ci/run)"
)


@needs_tesseract
def test_scanned_pdf_reads_as_czech():
    document = extract_document(COMMITTEE.read_bytes(), "application/pdf")
    assert document.format == "pdf" and len(document.pages) == 1
    page = document.pages[0]
    assert page.is_ocr and page.ocr_confidence is not None and page.ocr_confidence > 0.8
    assert "Jmenování členů hodnotící komise pro otevírání obálek s nabídkami" in page.text
    assert "Do hodnotící komise byli přizváni všichni zastupitelé obce Blešno." in page.text
    assert "Jaroslava Novotná" in page.text
    assert document.warnings == []


@pytest.mark.slow
@needs_tesseract
def test_mixed_pdf_is_ocrd_page_by_page():
    writer = pypdf.PdfWriter()
    writer.append(pypdf.PdfReader(LAW), pages=[0, 1])
    writer.append(pypdf.PdfReader(PROTOCOL), pages=[0])
    out = io.BytesIO()
    writer.write(out)
    document = extract_document(out.getvalue(), "application/pdf")
    assert [(p.page_no, p.is_ocr) for p in document.pages] == [(1, False), (2, False), (3, True)]
    assert document.pages[0].ocr_confidence is None and document.pages[2].ocr_confidence > 0.8
    assert "ÚSTAVNÍ ZÁKON" in document.pages[1].text
    scan = document.pages[2].text
    assert "„VODÁCKÉ PŘÍSTAVIŠTĚ Blešno“" in scan
    assert "konané v Blešně dne 23. 5. 2011 v 20:00 hod." in scan
    assert "Zadavatel přijal do konce soutěžní lhůty dvě nabídky." in scan
    # the sections still come from the text layer pages, and point into the joined text
    assert [s.path for s in document.sections] == ["ČÁST PRVNÍ", "ČÁST PRVNÍ > Čl. I"]


@pytest.mark.slow
@needs_tesseract
def test_sideways_scan_image_is_turned_upright():
    image = pdfium.PdfDocument(str(RADARS))[2].render(scale=1.0, grayscale=True).to_pil().rotate(90, expand=True)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(300, 300))
    document = extract_document(buffer.getvalue(), "image/png")
    assert document.format == "image" and document.pages[0].is_ocr
    assert "Komise doporučila uzavřít smlouvu s firmou Jiří Darebníček" in document.pages[0].text
    assert "Jednání ukončeno dne 21. 10. 2011 ve 18:30 hod." in document.pages[0].text


def test_ocr_off_or_over_budget_leaves_pages_empty_with_a_warning():
    data = COMMITTEE.read_bytes()
    off = extract_document(data, "application/pdf", limits=replace(DEFAULT_LIMITS, ocr=False))
    assert off.pages[0].text == "" and not off.pages[0].is_ocr
    assert off.warnings == ["1 page(s) without a text layer (OCR disabled)", "no text found on any page"]
    budget = extract_document(data, "application/pdf", limits=replace(DEFAULT_LIMITS, ocr_max_pages=0))
    assert budget.warnings[0] == "OCR budget: 1 page(s) past the first 0 left without OCR"


def test_tsv_to_lines_and_confidence():
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t96.0\tObec",
        "5\t1\t1\t1\t1\t2\t0\t0\t10\t10\t90.0\tBlešno",
        "5\t1\t1\t1\t2\t1\t0\t0\t10\t10\t80.0\t§",
        "4\t1\t1\t1\t2\t0\t0\t0\t10\t10\t-1\t",
        "5\t1\t2\t1\t1\t1\t0\t0\t10\t10\t-1\t ",
        "5\t1\t2\t1\t1\t2\t0\t0\t10\t10\t50.0\tpodpis",
    ]
    result = parse_tsv("\n".join([header, *rows]))
    assert result.text == "Obec Blešno\n§\n\npodpis"
    assert result.words == 4
    assert result.confidence == round((96 * 4 + 90 * 6 + 80 * 1 + 50 * 6) / 17 / 100, 4)


SCAN_PHRASES = [
    # (scan, page, phrases read off the page image by hand)
    (
        "opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno-smlouva-a-dodatek"
        "__sod-eltodo-dodatek-c-1.pdf",
        2,
        ["Závěrečná ustanovení", "Tento dodatek nabývá platnosti a účinnosti dnem jeho podpisu oběma smluvními"],
    ),
    (
        "vr-na-realizaci-akce-vodacke-pristaviste-blesno__jmenovani-clenu-komise.pdf",
        1,
        ["Do hodnotící komise byli přizváni a účast přijali všichni zastupitelé obce Blešno.", "Vladimír Krejcar"],
    ),
    (
        "vr-podtlakova-kanalizace-v-obci-blesno-s-napojenim-do-hradce-kralove-bankovni-uver"
        "__vyzva-zmr-bankovni-uver-kanalizace-blesno.pdf",
        2,
        ["Předpokládaná hodnota veřejné zakázky je do 1 950 000,- Kč", "Zahájení splácení jistiny: leden 2016"],
    ),
]


@pytest.mark.slow
@needs_tesseract
@pytest.mark.parametrize("name, page_no, phrases", SCAN_PHRASES, ids=["dodatek", "komise", "vyzva"])
def test_the_other_scans_read_as_czech(name, page_no, phrases):
    """With the three scans above, every scanned Blešno PDF has a page read back (one page each, to stay quick)."""
    writer = pypdf.PdfWriter()
    writer.append(pypdf.PdfReader(SCANNED / name), pages=[page_no - 1])
    out = io.BytesIO()
    writer.write(out)
    document = extract_document(out.getvalue(), "application/pdf")
    page = document.pages[0]
    assert page.is_ocr and page.ocr_confidence > 0.8
    for phrase in phrases:
        assert phrase in page.text, (phrase, page.text[:600])


# --- both cores ----------------------------------------------------------------------------------------------


def test_one_tesseract_per_core_by_default(monkeypatch):
    import os

    from mendel.extract import ocr

    monkeypatch.delenv(ocr.WORKERS_ENV, raising=False)
    assert DEFAULT_LIMITS.ocr_workers is None  # decided where the pages are OCR'd
    assert ocr.default_workers() == len(os.sched_getaffinity(0))
    monkeypatch.setenv(ocr.WORKERS_ENV, "3")
    assert ocr.default_workers() == 3
    assert ocr._env()["OMP_THREAD_LIMIT"] == "1"  # each process one thread: the parallelism is across pages


@pytest.mark.slow
def test_pages_of_a_scan_are_ocrd_in_parallel_and_kept_in_order(monkeypatch):
    """A stand-in for Tesseract that takes a while per page: with two workers two pages are read at once, and
    the pages still come back in their order with their own text."""
    import hashlib
    import threading
    import time

    from mendel.extract import ocr

    running, peak, lock = [0], [0], threading.Lock()

    def slow_ocr(image, **kwargs):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.4)
        with lock:
            running[0] -= 1
        mark = hashlib.sha256(image.tobytes()).hexdigest()[:10]  # the page's own text, whichever order
        return ocr.OcrResult(text=f"Strana {mark} s textem.\nDalší řádek strany {mark}.", confidence=0.9, words=8)

    monkeypatch.setattr(ocr, "ocr_image", slow_ocr)
    monkeypatch.setenv(ocr.WORKERS_ENV, "2")  # the default (one per core) on any machine
    data = RADARS.read_bytes()
    texts = {}
    for workers, expected_peak in ((1, 1), (None, 2)):
        peak[0] = 0
        document = extract_document(data, "application/pdf", limits=replace(DEFAULT_LIMITS, ocr_workers=workers))
        assert peak[0] == expected_peak and len(document.pages) >= 3
        assert [p.page_no for p in document.pages] == list(range(1, len(document.pages) + 1))
        assert all(p.is_ocr and p.text.startswith("Strana ") for p in document.pages), document.pages[0].text
        texts[workers] = [p.text for p in document.pages]
    assert texts[1] == texts[None] and len(set(texts[1])) == len(texts[1])
