"""Chunk boundaries on a real Sbírka PDF: headings start chunks, pages and offsets point back to the text."""

from __future__ import annotations

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.pdf import ExtractionError, pdf_pages
from mendel.extract.sections import find_headings
from mendel.passages.chunking import chunk_pages, join_pages

PDF = SAMPLE_CORPUS / "esbirka" / "pdf" / "176-2025.pdf"


@pytest.fixture(scope="module")
def pages() -> list[str]:
    return [p.text for p in pdf_pages(PDF.read_bytes())]


def test_chunks_map_back_to_text_and_pages(pages):
    text, starts = join_pages(pages)
    chunks = chunk_pages(pages)
    assert len(chunks) > 20
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.text in "\n\n".join(pages[chunk.page_start - 1 : chunk.page_end])
        assert len(chunk.text) <= 800


def test_paragraph_headings_open_chunks(pages):
    chunks = chunk_pages(pages)
    text, _ = join_pages(pages)
    starts = {c.char_start for c in chunks}
    paragraph_offsets = [h.offset for h in find_headings(text) if h.kind == "§"]
    assert paragraph_offsets
    # Every § heading begins a chunk unless the chunk before it would be tiny.
    opened = sum(1 for off in paragraph_offsets if off in starts)
    assert opened / len(paragraph_offsets) > 0.8
    paragraph_chunks = [c for c in chunks if c.text.startswith("§")]
    assert all(c.section_path.endswith(c.text.split("\n", 1)[0].strip()) for c in paragraph_chunks)


def test_unreadable_pdfs_raise_with_reason():
    body = PDF.read_bytes()
    with pytest.raises(ExtractionError, match="not a PDF"):
        pdf_pages(b"<html>error</html>")
    with pytest.raises(ExtractionError):
        pdf_pages(body[:2000])  # truncated real file
