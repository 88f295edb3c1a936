"""The Great Expectations suites of mendel.checks.quality, called without Dagster.

Real extracted sample documents (a Sbírka PDF, the Ústava DOCX, a Nejvyšší soud decision page, the Kadaň
board and a scanned Blešno page read by Tesseract) pass every expectation. Page sets broken on purpose from
those same documents fail the expectation meant to catch them, and only that one: mojibake, a missing page,
a duplicated page and document id, a section past the document's end (hard); text without diacritics, a low
OCR confidence, empty pages (soft).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import replace

import pytest

from mendel.checks.quality.frames import frames_from_documents
from mendel.checks.quality.suites import QualityReport, validate_documents
from mendel.checks.quality.thresholds import THRESHOLDS_PATH, load_thresholds
from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import extract_document
from mendel.extract.ocr import ocr_available

ESBIRKA = SAMPLE_CORPUS / "esbirka"
SCAN = (
    SAMPLE_CORPUS
    / "municipal"
    / "blesno"
    / "scanned"
    / (
        "vr-na-dodavatele-projektove-dokumentace-pro-stavebni-rizeni-a-realizaci-kanalizace__jmenovani-vyberove-komise.pdf"
    )
)
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
HARD = {
    "unique_doc_ids",
    "at_least_one_page",
    "contiguous_page_numbers",
    "unique_page_numbers",
    "no_mojibake",
    "known_kinds",
    "page_span_ordered",
    "page_span_within_document",
    "char_span_within_text",
}
SOFT = {"czech_character_share", "non_empty_text_share", "ocr_confidence", "max_depth"}


def _decision_html() -> bytes:
    from mirror.courts import NsoudSite

    site = NsoudSite(SAMPLE_CORPUS)
    return site.decision_page(site.decisions[0]).body


@pytest.fixture(scope="module")
def real() -> dict:
    documents = {
        "/eli/cz/sb/2024/87": extract_document((ESBIRKA / "pdf" / "87-2024.pdf").read_bytes(), "application/pdf"),
        "/eli/cz/sb/1993/1": extract_document((ESBIRKA / "docx" / "Sb_1993_1_IZ.docx").read_bytes(), DOCX_TYPE),
        "ECLI:CZ:NS:2024:29.ND.461.2024.1": extract_document(_decision_html(), "text/html"),
        "kadan:ud": extract_document(
            (SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_bytes(), "application/json"
        ),
    }
    if ocr_available("ces+eng"):
        documents["blesno:komise"] = extract_document(SCAN.read_bytes(), "application/pdf")
    return documents


@pytest.fixture(scope="module")
def thresholds() -> dict:
    return load_thresholds()


def _failed(report: QualityReport) -> set[str]:
    return {o.name for o in report.outcomes if not o.success}


def _examples(report: QualityReport, name: str) -> list[str]:
    return [example for o in report.outcomes if o.name == name for example in o.unexpected_examples]


def test_severities_come_from_the_thresholds_file(thresholds, tmp_path):
    named = {
        name: rule["severity"]
        for suite in ("documents", "pages", "sections")
        for name, rule in thresholds[suite].items()
    }
    assert {n for n, s in named.items() if s == "hard"} == HARD
    assert {n for n, s in named.items() if s == "soft"} == SOFT
    broken = tmp_path / "thresholds.yaml"
    broken.write_text(
        THRESHOLDS_PATH.read_text("utf-8").replace("severity: hard", "severity: fatal", 1), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="severity must be one of"):
        load_thresholds(broken)


def test_real_documents_pass(real, thresholds):
    report = validate_documents(real.items(), thresholds)
    assert report.passed("hard") and report.passed("soft"), report.markdown()
    assert report.counts["documents"] == len(real)
    assert report.counts["pages"] == sum(len(d.pages) for d in real.values())
    assert report.counts["sections"] == sum(len(d.sections) for d in real.values()) > 200
    assert {o.name for o in report.outcomes} == HARD | SOFT
    [non_empty] = report.get("pages", "non_empty_text_share")
    assert non_empty.observed_value == 1.0 and non_empty.element_count == report.counts["pages"]
    frames = frames_from_documents(real.items(), thresholds)
    shares = {row["doc_id"]: row["czech_share"] for row in frames.documents}
    assert all(share is not None and share > 0.05 for share in shares.values()), shares
    if "blesno:komise" in real:  # the OCR'd scan is counted against the confidence floor
        [ocr] = report.get("pages", "ocr_confidence")
        assert ocr.success and ocr.element_count - ocr.unexpected_count >= 1 and ocr.observed_value == 1.0
    metadata = report.check_metadata("hard")
    assert metadata["failed"] == "none" and metadata["evaluated"] == metadata["successful"] == len(
        report.selected("hard")
    )
    json.dumps(metadata)  # plain values all the way down
    assert {"suite", "name", "severity", "expectation", "success", "observed_value", "unexpected_examples"} <= set(
        metadata["expectations"][0]
    )


def test_broken_page_sets_fail_the_hard_expectations(real, thresholds):
    law = real["/eli/cz/sb/2024/87"]
    decision = real["ECLI:CZ:NS:2024:29.ND.461.2024.1"]
    page = decision.pages[0]
    # UTF-8 bytes read as windows-1250 and as windows-1252, as a server with the wrong charset sends them
    as_1250 = replace(page, text=page.text.encode("utf-8").decode("cp1250", errors="replace"))
    as_1252 = replace(page, text=page.text.encode("utf-8").decode("cp1252", errors="replace"))
    p1, p2, p3, p4 = law.pages
    past_the_end = replace(law.sections[-1], page_end=len(law.pages) + 1)
    broken = [
        *real.items(),
        ("mojibake:1250", replace(decision, pages=[as_1250], sections=[])),
        ("mojibake:1252", replace(decision, pages=[as_1252], sections=[])),
        ("gap", replace(law, pages=[p1, p2, p4], sections=[])),  # page 3 lost
        ("duplicate-page", replace(law, pages=[p1, p2, p2, p3, p4], sections=[])),
        ("/eli/cz/sb/2024/87", law),  # the same id twice
        ("section-past-end", replace(law, sections=[*law.sections[:-1], past_the_end])),
    ]
    report = validate_documents(broken, thresholds)
    assert not report.passed("hard"), report.markdown()
    assert _failed(report) == {
        "no_mojibake",
        "contiguous_page_numbers",
        "unique_page_numbers",
        "unique_doc_ids",
        "page_span_within_document",
        "czech_character_share",
    }
    # the Czech letters turned into mojibake, so the soft Czech-share expectation sees those two as well
    assert [e.split(":")[1] for e in _examples(report, "czech_character_share")] == ["1250", "1252"]
    mojibake = _examples(report, "no_mojibake")
    assert [e.split(":")[1] for e in mojibake] == ["1250 p. 1", "1252 p. 1"]
    assert any(marker in mojibake[0] for marker in ("Ă", "Ĺ", "Ä"))  # "á" read as windows-1250 is "Ăˇ"
    assert any(marker in mojibake[1] for marker in ("Ã", "Å", "Ä"))  # … as windows-1252 "Ã¡"
    assert "gap p. 4: page_no=4, expected_page_no=3" in _examples(report, "contiguous_page_numbers")
    assert any(e.startswith("duplicate-page p. 2:") for e in _examples(report, "unique_page_numbers"))
    assert set(_examples(report, "unique_doc_ids")) == {"/eli/cz/sb/2024/87"}
    assert _examples(report, "page_span_within_document") == [
        f"section-past-end {past_the_end.label}: page_count=4, page_end=5"
    ]
    assert "no_mojibake" in report.check_metadata("hard")["failed"]


def test_broken_page_sets_fail_the_soft_expectations(real, thresholds):
    if "blesno:komise" not in real:
        pytest.skip("tesseract with ces+eng is not installed")
    law, scan = real["/eli/cz/sb/2024/87"], real["blesno:komise"]

    def without_diacritics(text: str) -> str:
        return unicodedata.normalize(
            "NFC", "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
        )

    stripped = replace(law, pages=[replace(p, text=without_diacritics(p.text)) for p in law.pages])
    unsure = replace(scan, pages=[replace(scan.pages[0], ocr_confidence=0.41)])
    blank = replace(law, pages=[law.pages[0], *(replace(p, text="") for p in law.pages[1:])], sections=[])
    report = validate_documents([("ascii", stripped), ("unsure-scan", unsure), ("blank", blank)], thresholds)
    assert report.passed("hard"), report.markdown()
    assert _failed(report) == {"czech_character_share", "ocr_confidence", "non_empty_text_share"}
    assert _examples(report, "czech_character_share") == ["ascii: czech_share=0.0"]
    assert _examples(report, "ocr_confidence") == ["unsure-scan p. 1: ocr_confidence=0.41"]
    [non_empty] = report.get("pages", "non_empty_text_share")
    assert non_empty.observed_value == round(6 / 9, 4) and non_empty.unexpected_count == 3
    assert _examples(report, "non_empty_text_share")[0].startswith("blank p. 2:")
    assert (
        report.check_metadata("soft")["failed"]
        == "documents.czech_character_share, pages.non_empty_text_share, pages.ocr_confidence"
    )
