"""Court decision pages read by their own markup: the six real NALUS ``GetText.aspx`` pages and the mirror's
Nejvyšší soud decision pages — header fields, the text, and the výrok / odůvodnění / dissent as sections."""

from __future__ import annotations

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.court_pages import decision_page
from mendel.extract.document import extract_document
from mirror.courts import NsoudSite

NALUS = SAMPLE_CORPUS / "courts" / "nalus_html"

# file → (file number, date, form, the výrok's start, the dissenting judge, words of the text)
PAGES = {
    "1-2-95.html": ("I.ÚS 2/95", "30. 4. 1996", "NÁLEZ", "Rozsudek Městského soudu v Praze", "Ivy Brožové", "250f"),
    "2-287-96.html": ("II.ÚS 287/96", "29. 10. 1997", "NÁLEZ", "Rozsudek Krajského soudu", "soudkyně I. B.", "tíseň"),
    "1-689-05.html": (
        "I.ÚS 689/05",
        "21. 6. 2006",
        "NÁLEZ",
        "Usnesení Vrchního soudu v Praze",
        "Ivany Janů",
        "blanketní",
    ),
    "2-549-06.html": (
        "II.ÚS 549/06",
        "29. 11. 2006",
        "NÁLEZ",
        "Ústavní stížnost se zamítá.",
        "Stanislava Balíka",
        "nákladů",
    ),
    "4-899-15_1.html": (
        "IV.ÚS 899/15",
        "11. 10. 2016",
        "NÁLEZ",
        "I. Rozsudkem Krajského soudu",
        "Jana Musila",
        "moderační",
    ),
    "3-1773-19_1.html": (
        "III.ÚS 1773/19",
        "12. 1. 2021",
        "USNESENÍ",
        "Ústavní stížnost se odmítá.",
        "Josefa Fialy",
        "stěžovatel",
    ),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_real_nalus_page(name):
    number, decided, form, verdict, dissenter, word = PAGES[name]
    data = (NALUS / name).read_bytes()
    page = decision_page(data, "utf-8")
    assert page is not None and page.site == "nalus"
    assert page.fields["Spisová značka"] == number and page.fields["Datum rozhodnutí"] == decided
    assert page.fields["Forma rozhodnutí"] == form
    document = extract_document(data, "text/html; charset=utf-8")
    text = document.pages[0].text
    sections = {s.label: text[s.char_start : s.char_end] for s in document.sections if s.kind == "decision_part"}
    assert list(sections) == ["Výrok", "Odůvodnění", "Odlišné stanovisko"]
    assert sections["Výrok"].startswith(verdict)
    assert sections["Odůvodnění"].lstrip().startswith(("Odůvodnění", "O d ů v o d n ě n í"))
    assert (
        sections["Odlišné stanovisko"].upper().startswith("ODLIŠNÉ STANOVISKO")
        and dissenter in sections["Odlišné stanovisko"]
    )
    assert word in text and len(text) > 10_000 and "__VIEWSTATE" not in text
    assert document.title == f"{form.capitalize()} Ústavního soudu sp. zn. {number}"


def test_a_nejvyssi_soud_page_keeps_its_header_but_not_the_provisions_as_text():
    site = NsoudSite(SAMPLE_CORPUS)
    decision = next(d for d in site.decisions if d.case_number == "27 Cdo 935/2022")
    data = site.decision_page(decision).body
    page = decision_page(data)
    assert page.site == "nsoud" and page.fields["ECLI"] == "ECLI:CZ:NS:2022:27.CDO.935.2022.1"
    assert page.fields["Předpisy"].splitlines() == [
        "§ 2758 odst. 2 o. z.",
        "§ 556 o. z.",
        "§ 582 o. z.",
        "§ 586 o. z.",
        "§ 588 o. z.",
    ]
    text = extract_document(data, "text/html; charset=UTF-8").pages[0].text
    assert text.startswith("Soud: Nejvyšší soud\n") and "Hesla: Forma právních jednání" in text
    assert "Předpisy:" not in text  # metadata: the citator's court witness, not text for the recogniser
    assert "Nejvyšší soud k dovolání žalobkyně zrušil rozsudek Městského soudu v Praze" in text


@pytest.mark.parametrize("encoding", ["windows-1250", "utf-16"])
def test_a_transcoded_page_reads_the_same(encoding):
    site = NsoudSite(SAMPLE_CORPUS)
    decision = next(d for d in site.decisions if d.case_number == "13 Cmo 115/2002")
    utf8 = site.decision_page(decision).body
    data = utf8.decode("utf-8").replace('charset="UTF-8"', f'charset="{encoding}"').encode(encoding)
    assert decision_page(data).text == decision_page(utf8).text


def test_other_html_is_not_a_decision_page():
    assert decision_page(b"<html><body><div id='content'>Obec Blesno</div></body></html>") is None
