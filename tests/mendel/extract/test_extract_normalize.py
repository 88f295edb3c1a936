"""Text normalisation keeps a map back to the original: NFC, de-hyphenation, whitespace, OCR fixes."""

from __future__ import annotations

import unicodedata

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.normalize import fix_ocr_text, meaningful_chars, normalize_with_map
from mendel.extract.pdf import pdf_pages


def _check_map(raw: str, normalized: str, mapping: list[int]) -> None:
    assert len(mapping) == len(normalized)
    assert all(a <= b for a, b in zip(mapping, mapping[1:])), "the map never goes backwards"
    assert all(0 <= m < len(raw) for m in mapping)
    for char, origin in zip(normalized, mapping):
        if char.isalnum():
            # a letter points at itself or at the base letter it was composed from (or at a ligature)
            source = raw[origin]
            assert (
                unicodedata.normalize("NFD", char)[0] == unicodedata.normalize("NFD", source)[0] or source in "ﬀﬁﬂﬃﬄ"
            ), (char, source)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Tento zá-\nkon stanoví", "Tento zákon stanoví"),
        ("zá\u00ad\nkon", "zákon"),  # soft hyphen at a line end
        ("Frýdek-\nMístek", "Frýdek-\nMístek"),  # next line starts upper case: kept
        ("body:\n- první\n- druhá", "body:\n- první\n- druhá"),  # list dashes kept
        ("§ 5 -\nodst. 2", "§ 5 -\nodst. 2"),  # a dash after a space is no hyphenation
        (unicodedata.normalize("NFD", "Čl. 5 příliš žluťoučký kůň"), "Čl. 5 příliš žluťoučký kůň"),
        ("ﬁnanční  \t úřad\u00a0Praha", "finanční úřad Praha"),
        ("a\r\nb\rc\u2028d", "a\nb\nc\nd"),
        ("  první\n\n\n\n  druhý  \n", "první\n\ndruhý"),
        ("zero\u200bwidth\ufeff", "zerowidth"),
    ],
)
def test_normalize_cases(raw, expected):
    normalized, mapping = normalize_with_map(raw)
    assert normalized == expected
    assert unicodedata.is_normalized("NFC", normalized)
    _check_map(raw, normalized, mapping)


def test_dehyphenated_word_maps_back_to_both_halves():
    raw = "Tento zá-\nkon stanoví"
    normalized, mapping = normalize_with_map(raw)
    k = normalized.index("kon")
    assert raw[mapping[k]] == "k" and mapping[k] == raw.index("kon")
    assert raw[mapping[k - 1]] == "á"


def test_real_pdf_page_maps_back():
    raw = pdf_pages((SAMPLE_CORPUS / "esbirka" / "pdf" / "324-2025.pdf").read_bytes())[2].text
    assert "násle-\ndujícího" in raw and "infor-\nmační" in raw
    normalized, mapping = normalize_with_map(raw)
    _check_map(raw, normalized, mapping)
    assert "následujícího" in normalized and "informační" in normalized
    assert meaningful_chars(normalized) > 1000


def test_meaningful_chars_ignores_cid_placeholders():
    assert meaningful_chars("(cid:12)(cid:13) (cid:14)") == 0
    assert meaningful_chars("§ 5 odst. 2") == 6  # 5, o, d, s, t, 2


def test_ocr_paragraph_sign_fix():
    text = "ve smyslu ustanovení S 12 odst. 3 Zákona 137/2006 Sb., podle zásad S 6 zákona; Sídlo S 12"
    fixed = fix_ocr_text(text)
    assert fixed == "ve smyslu ustanovení § 12 odst. 3 Zákona 137/2006 Sb., podle zásad § 6 zákona; Sídlo S 12"
    assert len(fixed) == len(text)
