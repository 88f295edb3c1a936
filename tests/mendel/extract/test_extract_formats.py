"""extract_document on real documents of every format: PDF, DOCX, HTML, text in every Czech encoding, RTF,
OFN JSON; format detection; page joins that match mendel.passages.chunking."""

from __future__ import annotations

import json
import re

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.document import ExtractedDocument, extract_document, notice_text
from mendel.extract.formats import detect_format
from mendel.extract.model import join_pages, page_at
from mendel.extract.normalize import normalize_text

ESBIRKA = SAMPLE_CORPUS / "esbirka"
BLESNO = SAMPLE_CORPUS / "municipal" / "blesno"
KADAN = SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _decision_text() -> str:
    record = json.loads((SAMPLE_CORPUS / "courts" / "ns_decisions.jsonl").read_text("utf-8").splitlines()[0])
    return record["full_text"]


def _decision_html() -> bytes:
    from mirror.courts import NsoudSite

    site = NsoudSite(SAMPLE_CORPUS)
    return site.decision_page(next(d for d in site.decisions if d.case_number == "3 Tdo 289/2026")).body


def _offsets_consistent(document: ExtractedDocument) -> None:
    text, starts = join_pages([page.text for page in document.pages])
    assert text == document.text
    for section in document.sections:
        assert section.page_start == page_at(starts, section.char_start)
        assert text[section.char_start : section.char_end].strip()


# --- PDF -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ustavni_zakon() -> ExtractedDocument:
    return extract_document((ESBIRKA / "pdf" / "87-2024.pdf").read_bytes(), "application/pdf")


def test_text_pdf(ustavni_zakon):
    document = ustavni_zakon
    assert document.format == "pdf" and [p.page_no for p in document.pages] == [1, 2, 3, 4]
    assert not any(p.is_ocr or p.ocr_confidence is not None for p in document.pages)
    assert document.title.startswith("Ústavní zákon č. 87/2024 Sb. Ústavní zákon, kterým se mění ústavní zákon")
    page2 = document.pages[1].text
    assert "Strana 2" not in page2 and "Akt č. 87 / 2024 Sb." not in page2  # running header dropped
    assert "ÚSTAVNÍ ZÁKON\nze dne 6. března 2024," in page2
    assert "volebního" in page2 and "vo-\nlebního" not in page2  # de-hyphenated
    paths = [s.path for s in document.sections]
    assert "ČÁST PRVNÍ > Čl. I" in paths and "ČÁST DRUHÁ" in paths
    _offsets_consistent(document)
    assert document.warnings == []


def test_fallback_font_glyphs_stay_on_their_line():
    # The title "KANALIZAČNÍ ŘÁD" sets Č and Ř in another font, 3.6 pt higher than the rest.
    document = extract_document((BLESNO / "text" / "kanalizace__kanalizacni-rad.pdf").read_bytes(), "application/pdf")
    assert document.pages[0].text.startswith("KANALIZAČNÍ ŘÁD\nPODTLAKOVÉ KANALIZACE V OBCI BLEŠNO")
    assert document.title == "Kanalizační řád Blešno"  # from the PDF metadata
    # "Kanalizační řád podtlakové kanalizace v obci Blešno" heads every page: dropped from all but none
    assert not any(p.text.startswith("Kanalizační řád podtlakové") for p in document.pages[1:])


# --- DOCX, HTML ----------------------------------------------------------------------------------


def test_docx_small_act():
    document = extract_document((ESBIRKA / "docx" / "Sb_1918_8_IZ.docx").read_bytes(), DOCX_TYPE)
    assert document.format == "docx" and len(document.pages) == 1
    assert document.title == "Zákon ze dne 2. listopadu 1918, jímž se zrušuje zabavení jmění pro činy velezrádné."
    assert [s.label for s in document.sections] == ["§ 1", "§ 2", "§ 3"]
    assert "Zrušení toto proveďtež soudy, které zabavení povolily." in document.text


@pytest.mark.parametrize(
    "encoding, content_type, keep_meta",
    [
        ("utf-8", "text/html; charset=utf-8", True),
        ("windows-1250", "text/html", True),  # the page's own <meta charset>
        ("windows-1250", "text/html; charset=windows-1250", False),  # only the HTTP header says it
        ("iso-8859-2", "text/html", False),  # nobody says: detected
    ],
)
def test_html_decision_page_in_czech_encodings(encoding, content_type, keep_meta):
    html = _decision_html().decode("utf-8")
    html = html.replace('<meta charset="UTF-8">', f'<meta charset="{encoding}">' if keep_meta else "")
    data = html.encode(encoding, errors="replace")  # ISO-8859-2 has no typographic quotes
    document = extract_document(data, content_type, "https://rozhodnuti.nsoud.cz/x?openDocument")
    assert document.format == "html" and len(document.pages) == 1
    assert document.title == "3 Tdo 289/2026 Usnesení"
    text = document.pages[0].text
    assert text.startswith("Soud: Nejvyšší soud\n")  # the header rows, read by the page's own markup
    assert "Nejvyšší soud rozhodl v neveřejném zasedání konaném dne 28. 4. 2026 o dovolání" in text


def test_html_headings_keep_their_hierarchy():
    ustava = extract_document((ESBIRKA / "docx" / "Sb_1993_1_IZ.docx").read_bytes(), DOCX_TYPE).text
    article1 = ustava[ustava.index("Česká republika je svrchovaný") :].split("\n")[0]
    html = (
        "<!DOCTYPE html><html><head><title>Ústava České republiky</title></head><body>"
        "<h1>ÚSTAVA ČESKÉ REPUBLIKY</h1><h2>HLAVA PRVNÍ</h2><h3>ZÁKLADNÍ USTANOVENÍ</h3>"
        f"<p>Čl. 1</p><p>{article1}</p><h3>Státní symboly</h3><p>Čl. 14</p><p>Státními symboly jsou ...</p>"
        "<h2>HLAVA DRUHÁ</h2><p>Čl. 15</p><p>Zákonodárná moc náleží Parlamentu.</p></body></html>"
    ).encode("utf-8")
    document = extract_document(html, "text/html")
    assert document.title == "Ústava České republiky"
    assert [s.path for s in document.sections] == [
        "HLAVA PRVNÍ",
        "HLAVA PRVNÍ > ZÁKLADNÍ USTANOVENÍ",
        "HLAVA PRVNÍ > ZÁKLADNÍ USTANOVENÍ > Čl. 1",
        "HLAVA PRVNÍ > Státní symboly",
        "HLAVA PRVNÍ > Státní symboly > Čl. 14",
        "HLAVA DRUHÁ",
        "HLAVA DRUHÁ > Čl. 15",
    ]
    _offsets_consistent(document)


# --- text, RTF -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "encoding",
    ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "windows-1250", "iso-8859-2"],
)
def test_text_in_every_czech_encoding(encoding):
    sample = _decision_text()[:4000]
    sample = sample.encode(encoding, errors="replace").decode(encoding)  # what the encoding can hold
    assert "š" in sample and "ž" in sample  # the letters that tell windows-1250 from ISO-8859-2
    document = extract_document(sample.encode(encoding), "text/plain", "https://vyhledavac.nssoud.cz/x")
    assert document.format == "text"
    assert document.pages[0].text == normalize_text(sample)
    assert "Nejvyšší soud rozhodl v senátě složeném z předsedy Mgr. Hynka Zoubka" in document.text


def test_form_feeds_split_text_pages():
    pages = ["ČÁST PRVNÍ\n§ 1\nPrvní strana.", "§ 2\nDruhá strana.", "§ 3\nTřetí strana."]
    document = extract_document("\f".join(pages).encode("utf-8"), "text/plain")
    assert [p.text for p in document.pages] == pages
    assert [(s.label, s.page_start) for s in document.sections] == [
        ("ČÁST PRVNÍ", 1),
        ("§ 1", 1),
        ("§ 2", 2),
        ("§ 3", 3),
    ]
    _offsets_consistent(document)


def _to_rtf(text: str) -> bytes:
    body = []
    for char in text:
        if char == "\n":
            body.append("\\par\n")
        elif char in "\\{}":
            body.append("\\" + char)
        elif ord(char) < 128:
            body.append(char)
        else:
            try:
                body.append("\\'%02x" % char.encode("cp1250")[0])
            except UnicodeEncodeError:
                body.append(f"\\u{ord(char)}?")
    return (
        "{\\rtf1\\ansi\\ansicpg1250\\deff0{\\fonttbl{\\f0 Times New Roman;}}\\f0\\fs24 " + "".join(body) + "}"
    ).encode("ascii")


def test_rtf_decision():
    # Nejvyšší soud publishes decisions as RTF (`.rtf?openelement`): this one carries a real decision's text.
    sample = _decision_text()[:3000]
    document = extract_document(_to_rtf(sample), "application/rtf")
    assert document.format == "rtf"
    assert document.pages[0].text == normalize_text(sample)
    assert detect_format(_to_rtf(sample), "text/plain") == "rtf"


# --- JSON ----------------------------------------------------------------------------------------


def test_kadan_board():
    document = extract_document(KADAN.read_bytes(), "application/json", "https://www.mesto-kadan.cz/ud.json")
    feed = json.loads(KADAN.read_text("utf-8"))
    assert document.format == "json" and len(document.pages) == len(feed["informace"]) == 87
    assert document.title == "Úřední deska – IČO 00261912"
    assert [s.kind for s in document.sections] == ["notice"] * 87
    assert all(s.depth == 1 and s.page_start == s.page_end == n for n, s in enumerate(document.sections, 1))
    assert document.sections[0].label == feed["informace"][0]["název"]["cs"]
    _offsets_consistent(document)


def test_single_notice_and_notice_text():
    item = json.loads(KADAN.read_text("utf-8"))["informace"][0]
    document = extract_document(json.dumps(item, ensure_ascii=False).encode("utf-8"), "application/ld+json")
    title = "MÚ - odbor dopravy - opatření obecné povahy - stanovení přechodné úpravy provozu - Poláky"
    assert document.title == title and len(document.pages) == 1
    assert document.pages[0].text == notice_text(item)
    assert notice_text(item).splitlines() == [
        f"Název: {title}",
        "Vyvěšeno: 29. 6. 2020",
        "Relevantní do: nespecifikováno",
        "Číslo jednací: ODPK-24340/2020/Slu",
        "Spisová značka: 295/2020",
        "Agenda: MÚ - odbor dopravy; Opatření obecné povahy",
        "Dokumenty:",
        "- 24340 – https://www.mesto-kadan.cz/filemanager/files/895830.pdf",
        "Odkaz: https://www.mesto-kadan.cz/cs/mestsky-urad/uredni-deska-6.html-as4udetail-122912",
    ]


def test_ofn_example_with_people_and_places():
    board = json.loads((SAMPLE_CORPUS / "municipal" / "ofn-2021-07-20" / "příklady_4.jsonld").read_text("utf-8"))
    text = notice_text(board["informace"][1])
    assert "Popis: Program na podporu dobrovolných hasičů v roce 2018" in text
    assert "Autor: Mirek Starosta" in text
    assert "Dotčené subjekty: Sbor dobrovolných hasičů Dolní Datová (IČO 00258267);" in text
    assert "Hasičská 666, Dolní Datová, PSČ 33101, okres Plzeň-sever" in text
    assert re.search(r"^Relevantní do: 20\. 2\. 2019$", text, re.MULTILINE)


# --- format detection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, content_type, url, expected",
    [
        ("pdf", "application/pdf", None, "pdf"),
        ("pdf", "application/octet-stream", "https://x/zakon.pdf", "pdf"),
        ("pdf", None, None, "pdf"),
        ("docx", None, "https://x/download?id=5", "docx"),
        ("docx", "application/octet-stream", None, "docx"),
        ("html", "text/plain", None, "html"),
        ("html", None, "https://x/page", "html"),
        ("json", "application/ld+json", None, "json"),
        ("json", "application/octet-stream", "https://x/ud.jsonld", "json"),
        ("text", "text/plain; charset=windows-1250", None, "text"),
        ("text", None, None, "text"),
    ],
)
def test_detect_format(source, content_type, url, expected):
    data = {
        "pdf": (ESBIRKA / "pdf" / "573-2025.pdf").read_bytes(),
        "docx": (ESBIRKA / "docx" / "76_2004.docx").read_bytes(),
        "html": _decision_html(),
        "json": KADAN.read_bytes(),
        "text": _decision_text().encode("cp1250", errors="replace"),
    }[source]
    assert detect_format(data, content_type, url) == expected


@pytest.mark.parametrize("declared", ["iso-8859-2", "windows-1250"])
def test_utf8_served_with_an_8bit_charset_is_read_as_utf8(declared):
    """A Czech page in UTF-8 that the server labels ISO-8859-2 would decode to "NejvyĹˇĹˇĂ­"; valid UTF-8
    with non-ASCII bytes outranks the label (8-bit Czech text is practically never valid UTF-8)."""
    sample = _decision_text()[:3000]
    document = extract_document(sample.encode("utf-8"), f"text/plain; charset={declared}")
    assert document.pages[0].text == normalize_text(sample)
    html = extract_document(_decision_html(), f"text/html; charset={declared}")
    assert "Nejvyšší soud rozhodl v neveřejném zasedání" in html.text
