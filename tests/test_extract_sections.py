"""Czech legal headings and the section tree on real documents: the Ústava DOCX and the zbraně law PDF."""

from __future__ import annotations

from collections import Counter

import pypdfium2 as pdfium
import pytest

from mendel.config import SAMPLE_CORPUS
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
        "podle\n§ 5 odst. 2 zákona",            # a reference wrapped onto its own line
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
        assert text[section.char_start:].upper().startswith(first_word.upper()), section
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
    document = extract_document((ESBIRKA / "docx" / "Sb_1993_1_IZ.docx").read_bytes(),
                                "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    assert document.format == "docx" and len(document.pages) == 1
    kinds = Counter(s.kind for s in document.sections)
    assert kinds["HLAVA"] == 8 and kinds["Čl."] == 113
    hlavy = [s for s in document.sections if s.kind == "HLAVA"]
    assert [h.label for h in hlavy[:3]] == ["HLAVA PRVNÍ", "HLAVA DRUHÁ", "HLAVA TŘETÍ"]
    first = [s for s in document.sections if s.parent == document.sections.index(hlavy[0])]
    assert [s.label for s in first] == [f"Čl. {n}" for n in range(1, 15)]
    assert first[0].path == "HLAVA PRVNÍ > Čl. 1" and first[0].depth == 2
    text = document.text
    assert text[first[0].char_start:first[0].char_end].startswith("Čl. 1\nČeská republika je svrchovaný")
    assert "ÚSTAVA ČESKÉ REPUBLIKY" in document.title
    _check_tree(text, document.sections, 1)


def test_layout_headings_nest_between_divisions_and_articles():
    text = "HLAVA TŘETÍ\nMOC VÝKONNÁ\nPrezident republiky\nČl. 54\nPrezident je hlavou státu.\nVláda\nČl. 67\nVláda je."
    extra = [ExtraHeading(text.index("Prezident republiky"), "Prezident republiky", level=6.1),
             ExtraHeading(text.index("Vláda\n"), "Vláda", level=6.1)]
    sections = build_sections(text, [0], extra)
    assert [s.path for s in sections] == [
        "HLAVA TŘETÍ", "HLAVA TŘETÍ > Prezident republiky", "HLAVA TŘETÍ > Prezident republiky > Čl. 54",
        "HLAVA TŘETÍ > Vláda", "HLAVA TŘETÍ > Vláda > Čl. 67",
    ]
    assert sections[1].kind == "heading"
    _check_tree(text, sections, 1)
