"""What the encoder reads of a chunk (mendel.index.corpus.dense_text): the contextual text less web addresses and
less a document summary the chunk already holds; BM25 keeps the whole contextual text."""

import pytest

from mendel.index.corpus import ChunkRecord, contextual_text, dense_text

NOTICE = ("Název: VEŘEJNÁ VYHLÁŠKA, oznámení o možnosti převzít písemnost - MORARU Liudmyla\n"
          "Vyvěšeno: 29. 2. 2024\nRelevantní do: 15. 3. 2024\nČíslo jednací: OAM-01515-4/ZR-2024\nDokumenty:\n"
          "- MORARU Liudmyla.pdf – https://www.mvcr.cz/soubor/moraru-liudmyla-pdf.aspx\n"
          "Odkaz: https://www.mvcr.cz/clanek/verejna-vyhlaska-oznameni-o-moznosti-prevzit-pisemnost-moraru.aspx")
NOTICE_SUMMARY = ("Název: VEŘEJNÁ VYHLÁŠKA, oznámení o možnosti převzít písemnost - MORARU Liudmyla Vyvěšeno: 29. 2. 2024 "
                  "Relevantní do…")
ACT_TEXT = "§ 53\nInformace o průběhu hlasování\n(1) Členové okrskové volební komise nesmějí poskytovat informace."
ACT_SUMMARY = "OBECNÁ USTANOVENÍ § 1 Předmět úpravy (1) Tento zákon upravuje společná pravidla výkonu státní správy voleb…"


@pytest.mark.parametrize("summary, text, kept, dropped", [
    # a one-passage notice: its summary is its own opening, its links are tokens without meaning
    (NOTICE_SUMMARY, NOTICE, ["MORARU Liudmyla.pdf", "Číslo jednací: OAM-01515-4/ZR-2024", "Vyvěšeno: 29. 2. 2024"],
     ["https://", "Odkaz:", "– \n", "Relevantní do…"]),
    # an act's passage: the act's summary is context the passage does not hold
    (ACT_SUMMARY, ACT_TEXT, [ACT_SUMMARY, ACT_TEXT], []),
    # a web address inside a sentence goes, the sentence stays
    ("", "Žádosti podávejte na https://portal.gov.cz/sluzby do 30. 6.", ["Žádosti podávejte na", "do 30. 6."],
     ["portal.gov.cz"]),
])
def test_dense_text_keeps_meaning_and_drops_what_only_costs_tokens(summary, text, kept, dropped):
    dense = dense_text("88/2024 Sb.", "Zákon o správě voleb", "ČÁST ŠESTÁ > § 53", summary, text)
    assert dense.startswith("88/2024 Sb. — Zákon o správě voleb — ČÁST ŠESTÁ > § 53\n")
    for piece in kept:
        assert piece in dense
    for piece in dropped:
        assert piece not in dense


def test_bm25_keeps_the_whole_contextual_text_and_the_record_embeds_the_dense_one():
    record = ChunkRecord(chunk_id="c1", doc_id="d1", title="Oznámení", source="boards", url="https://example.cz",
                         citation=None, page_start=1, page_end=1, section="", text=NOTICE,
                         document_summary=NOTICE_SUMMARY)
    assert record.context_text == contextual_text(None, "Oznámení", "", NOTICE_SUMMARY, NOTICE)
    assert "https://www.mvcr.cz" in record.context_text and "https://" not in record.dense_text
    assert len(record.dense_text) < len(record.context_text) / 2 + 120
