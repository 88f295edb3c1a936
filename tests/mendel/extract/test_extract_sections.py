"""Czech legal headings and the section tree on real documents: the Ústava DOCX and the zbraně law PDF."""

from __future__ import annotations

from collections import Counter

import pypdfium2 as pdfium
import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import extract_document
from mendel.extract.normalize import normalize_text
from mendel.extract.sections import ExtraHeading, build_sections, find_headings, section_paths

ESBIRKA = SAMPLE_CORPUS / "esbirka"


@pytest.mark.parametrize(
    "line, label",
    [
        ("ČÁST PRVNÍ", "ČÁST PRVNÍ"),
        ("ČÁST DVACÁTÁ PRVNÍ", "ČÁST DVACÁTÁ PRVNÍ"),
        ("HLAVA II", "HLAVA II"),
        ("Hlava první", "Hlava první"),
        ("Díl 1", "Díl 1"),
        ("Oddíl 2", "Oddíl 2"),
        ("Pododdíl 3", "Pododdíl 3"),
        ("§ 74d", "§ 74d"),
        ("  § 5  ", "§ 5"),
        ("Čl. XIV", "Čl. XIV"),
        ("Článek 3.", "Čl. 3"),
        ("Příloha č. 1 k zákonu č. 175/2025 Sb.", "Příloha č. 1"),
        ("PŘÍLOHA", "Příloha"),
    ],
)
def test_heading_lines(line, label):
    headings = find_headings(f"Předchozí věta.\n{line}\nText ustanovení.")
    assert [h.label for h in headings] == [label]


@pytest.mark.parametrize(
    "text",
    [
        "podle\n§ 5 odst. 2 zákona",  # a reference wrapped onto its own line
        "stanoví-li tak\n§ 16.\n(2) Splnění",  # 90/2024 Sb., page 11: the end of a reference, not § 16
        "čl. 3 písm. a)",
        "Část obce Blešno",
        "Příloha: Zadávací dokumentace",
    ],
)
def test_not_headings(text):
    assert find_headings(text) == []


def test_dotted_paragraph_heading_after_a_sentence():
    # 8/1918 Sb. numbers its paragraphs "§ 1."
    text = "Národní výbor československý nařizuje:\n§ 1.\nZabavení jmění se zrušují.\n§ 2.\nZrušení proveďtež soudy."
    assert [h.label for h in find_headings(text)] == ["§ 1", "§ 2"]


def _check_tree(text: str, sections, pages: int) -> None:
    for index, section in enumerate(sections):
        assert 0 <= section.char_start <= section.char_end <= len(text)
        assert 1 <= section.page_start <= section.page_end <= pages
        first_word = section.label.split()[0]
        assert text[section.char_start :].upper().startswith(first_word.upper()), section
        if section.parent is None:
            assert section.depth == 1 and section.path == section.label
        else:
            parent = sections[section.parent]
            assert section.parent < index
            assert section.depth == parent.depth + 1
            assert section.path == f"{parent.path} > {section.label}"
            assert parent.char_start < section.char_start and section.char_end <= parent.char_end


@pytest.fixture(scope="module")
def zbrane() -> tuple[str, list[int], int]:
    """90/2024 Sb. (zákon o zbraních) text per page, read quickly with PDFium's text layer."""
    document = pdfium.PdfDocument(str(ESBIRKA / "pdf" / "90-2024.pdf"))
    pages = [normalize_text(document[i].get_textpage().get_text_range()) for i in range(len(document))]
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + 2
    return "\n\n".join(pages), starts, len(pages)


def test_deep_tree_of_a_real_law(zbrane):
    text, starts, pages = zbrane
    sections = build_sections(text, starts)
    kinds = Counter(s.kind for s in sections)
    assert kinds["ČÁST"] >= 10 and kinds["HLAVA"] >= 20 and kinds["DÍL"] >= 20 and kinds["§"] >= 150
    assert kinds["ODDÍL"] == 3 and kinds["PŘÍLOHA"] == 3
    assert max(s.depth for s in sections) == 5
    deep = next(s for s in sections if s.depth == 5)
    assert deep.path == "ČÁST ČTVRTÁ > HLAVA I > Díl 4 > Oddíl 1 > § 24"
    _check_tree(text, sections, pages)
    # the chunker's paths (find_headings + section_paths) agree with the tree
    tree_paths = {s.char_start: s.path for s in sections}
    for offset, path in section_paths(find_headings(text)):
        assert tree_paths[offset] == path


def test_ustava_docx_hierarchy():
    document = extract_document(
        (ESBIRKA / "docx" / "Sb_1993_1_IZ.docx").read_bytes(),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )
    assert document.format == "docx" and len(document.pages) == 1
    kinds = Counter(s.kind for s in document.sections)
    assert kinds["HLAVA"] == 8 and kinds["Čl."] == 113
    hlavy = [s for s in document.sections if s.kind == "HLAVA"]
    assert [h.label for h in hlavy[:3]] == ["HLAVA PRVNÍ", "HLAVA DRUHÁ", "HLAVA TŘETÍ"]
    first = [s for s in document.sections if s.parent == document.sections.index(hlavy[0])]
    assert [s.label for s in first] == [f"Čl. {n}" for n in range(1, 15)]
    assert first[0].path == "HLAVA PRVNÍ > Čl. 1" and first[0].depth == 2
    text = document.text
    assert text[first[0].char_start : first[0].char_end].startswith("Čl. 1\nČeská republika je svrchovaný")
    assert "ÚSTAVA ČESKÉ REPUBLIKY" in document.title
    _check_tree(text, document.sections, 1)


def test_layout_headings_nest_between_divisions_and_articles():
    text = "HLAVA TŘETÍ\nMOC VÝKONNÁ\nPrezident republiky\nČl. 54\nPrezident je hlavou státu.\nVláda\nČl. 67\nVláda je."
    extra = [
        ExtraHeading(text.index("Prezident republiky"), "Prezident republiky", level=6.1),
        ExtraHeading(text.index("Vláda\n"), "Vláda", level=6.1),
    ]
    sections = build_sections(text, [0], extra)
    assert [s.path for s in sections] == [
        "HLAVA TŘETÍ",
        "HLAVA TŘETÍ > Prezident republiky",
        "HLAVA TŘETÍ > Prezident republiky > Čl. 54",
        "HLAVA TŘETÍ > Vláda",
        "HLAVA TŘETÍ > Vláda > Čl. 67",
    ]
    assert sections[1].kind == "heading"
    _check_tree(text, sections, 1)


# --- PDF: § sections with their pages, and layout against false headings ---------------------------


@pytest.fixture(scope="module")
def act_324():
    """324/2025 Sb. (povinný příspěvek na produkty spoření na stáří): 7 pages, the last one the imprint."""
    return extract_document((ESBIRKA / "pdf" / "324-2025.pdf").read_bytes(), "application/pdf")


def test_sbirka_pdf_paragraphs_with_page_spans(act_324):
    # Where each heading sits was read off the PDF's glyphs (13.9 pt centred lines); a section ends where
    # the next one of the same or a higher rank begins.
    paragraphs = [(s.label, s.page_start, s.page_end) for s in act_324.sections if s.kind == "§"]
    assert paragraphs == [
        ("§ 1", 2, 2),
        ("§ 2", 2, 2),
        ("§ 3", 3, 3),
        ("§ 4", 3, 3),
        ("§ 5", 3, 3),
        ("§ 6", 3, 3),
        ("§ 7", 4, 4),
        ("§ 8", 4, 5),
        ("§ 9", 5, 5),
        ("§ 10", 5, 5),
        ("§ 11", 5, 6),
        ("§ 12", 6, 6),
    ]
    parts = [(s.label, s.page_start, s.page_end) for s in act_324.sections if s.kind == "ČÁST"]
    assert parts == [("ČÁST PRVNÍ", 2, 5), ("ČÁST DRUHÁ", 5, 5), ("ČÁST TŘETÍ", 5, 6), ("ČÁST ČTVRTÁ", 6, 6)]
    text = act_324.text
    by_label = {s.label: s for s in act_324.sections}
    assert text[by_label["§ 8"].char_start :].startswith("§ 8\nPřestupky\n(1) Fyzická, právnická nebo podnikající")
    assert by_label["§ 8"].path == "ČÁST PRVNÍ > § 8"
    # page 7 is the Sbírka imprint: the last section stops before it
    assert act_324.pages[6].text.startswith("ISSN 3029-5092\nVydavatel: Ministerstvo vnitra")
    assert text[: by_label["§ 12"].char_end].endswith("Pekarová Adamová v. r.\nPavel v. r.\nFiala v. r.")
    _check_tree(text, act_324.sections, 7)


def test_text_lines_rebuild_pdfplumbers_text():
    """The lines layout inspects are the lines of the page text, glyph for glyph."""
    import pdfplumber
    from pdfplumber.utils import extract_text

    from mendel.extract.pdf_layout import TEXT_OPTIONS, snap_chars, text_lines

    with pdfplumber.open(ESBIRKA / "pdf" / "87-2024.pdf") as pdf:
        for page in pdf.pages[:2]:
            chars = snap_chars(page.chars)
            lines = text_lines(chars)
            assert "\n".join(text for text, _ in lines) == extract_text(chars, **TEXT_OPTIONS)
            assert all(
                "".join(c["text"] for c in glyphs).replace(" ", "") == text.replace(" ", "") for text, glyphs in lines
            )


def _reference_wrapped_like_a_heading() -> bytes:
    """Pages 10-11 of 90/2024 Sb., edited with PDFium: on page 11 the reference that ends a sentence
    ("… stanoví-li tak" / "§ 16.") loses its full stop, so its line reads "§ 16" exactly like the heading of
    § 16 further down the page. The glyphs keep their real font, size and place."""
    import ctypes
    import io

    import pypdfium2.raw as pdfium_c

    source = pdfium.PdfDocument(str(ESBIRKA / "pdf" / "90-2024.pdf"))
    document = pdfium.PdfDocument.new()
    document.import_pages(source, [9, 10])
    page = document[1]
    textpage = page.get_textpage()

    def text_of(obj) -> str:
        size = pdfium_c.FPDFTextObj_GetText(obj.raw, textpage.raw, None, 0)
        buffer = ctypes.create_string_buffer(size)
        pdfium_c.FPDFTextObj_GetText(obj.raw, textpage.raw, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)), size)
        return buffer.raw[: size - 2].decode("utf-16-le")

    [dotted] = [o for o in page.get_objects() if o.type == pdfium_c.FPDF_PAGEOBJ_TEXT and text_of(o) == "16."]
    replacement = pdfium_c.FPDFPageObj_CreateTextObj(document.raw, dotted.get_font().raw, ctypes.c_float(1.0))
    digits = ctypes.create_string_buffer("16\0".encode("utf-16-le"))
    assert pdfium_c.FPDFText_SetText(replacement, ctypes.cast(digits, ctypes.POINTER(ctypes.c_ushort)))
    pdfium_c.FPDFPageObj_SetMatrix(replacement, pdfium_c.FS_MATRIX(*dotted.get_matrix().get()))
    pdfium_c.FPDFPage_InsertObject(page.raw, replacement)
    page.remove_obj(dotted)
    assert pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_layout_rejects_a_reference_line_that_reads_like_a_heading():
    document = extract_document(_reference_wrapped_like_a_heading(), "application/pdf")
    text = document.text
    assert "stanoví-li tak\n§ 16\n(2) Splnění podmínky" in text  # the edit took
    # the text rules alone would open § 16 twice on page 2 …
    assert [h.label for h in find_headings(text)].count("§ 16") == 2
    # … but that line is set like running text (10.6 pt, regular, at the left margin) in a document that
    # sets its § headings apart (13.9 pt, centred), so only the real heading opens § 16
    paragraphs = [(s.label, s.page_start, s.page_end) for s in document.sections if s.kind == "§"]
    assert paragraphs == [("§ 14", 1, 1), ("§ 15", 1, 2), ("§ 16", 2, 2), ("§ 17", 2, 2)]
    sixteen = next(s for s in document.sections if s.label == "§ 16")
    assert text[sixteen.char_start :].startswith("§ 16\n(1) Zdravotně způsobilou není osoba")
    assert text.index("stanoví-li tak\n§ 16") < sixteen.char_start


def test_layout_keeps_headings_without_evidence():
    """Only a document that sets headings of a kind apart can have one of that kind rejected."""
    from collections import Counter

    from mendel.extract.pdf_layout import HeadingLine, false_headings

    def line(key, size, x0, bold=0.0):
        return HeadingLine(1, key, 0, "§", size=size, bold=bold, x0=x0, left=85)

    body = Counter({10.6: 5000, 13.9: 50})
    plain = [line("§ 1", 10.6, 85), line("§ 2", 10.6, 85)]  # every § set like the text: no evidence
    assert false_headings(plain, body) == []
    styled = [line("§ 1", 13.9, 288), line("§ 2", 10.6, 280), line("§ 3", 10.6, 85, bold=1.0), line("§ 4", 10.6, 85)]
    assert [h.key for h in false_headings(styled, body)] == ["§ 4"]
