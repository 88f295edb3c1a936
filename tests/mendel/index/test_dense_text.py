"""What the encoder reads of a chunk (mendel.index.corpus.dense_text): the contextual text less web addresses and
less a document summary the chunk already holds; BM25 keeps the whole contextual text."""

import pytest

from mendel.index.corpus import ChunkRecord, contextual_text, dense_text

NOTICE = (
    "Název: VEŘEJNÁ VYHLÁŠKA, oznámení o možnosti převzít písemnost - MORARU Liudmyla\n"
    "Vyvěšeno: 29. 2. 2024\nRelevantní do: 15. 3. 2024\nČíslo jednací: OAM-01515-4/ZR-2024\nDokumenty:\n"
    "- MORARU Liudmyla.pdf – https://www.mvcr.cz/soubor/moraru-liudmyla-pdf.aspx\n"
    "Odkaz: https://www.mvcr.cz/clanek/verejna-vyhlaska-oznameni-o-moznosti-prevzit-pisemnost-moraru.aspx"
)
NOTICE_SUMMARY = (
    "Název: VEŘEJNÁ VYHLÁŠKA, oznámení o možnosti převzít písemnost - MORARU Liudmyla Vyvěšeno: 29. 2. 2024 "
    "Relevantní do…"
)
ACT_TEXT = "§ 53\nInformace o průběhu hlasování\n(1) Členové okrskové volební komise nesmějí poskytovat informace."
ACT_SUMMARY = (
    "OBECNÁ USTANOVENÍ § 1 Předmět úpravy (1) Tento zákon upravuje společná pravidla výkonu státní správy voleb…"
)

DECISION_HEADER = (
    "Soud: Krajský soud v Brně Jednací číslo: 13 Co 204/2024-650 ECLI: ECLI:CZ:KSBR:2025:13.Co.204.2024.1 "
    "Datum vydání: 2025-06-26 Datum zveřejnění…"
)
DECISION_PROSE = (
    "K odvolání žalobkyně Městský soud v Praze (dále jen „odvolací soud“) rozsudkem ze dne 10. 6. 2020, č. j. "
    "11 Co 414/2019-160, rozsudek soudu…"
)
DECISION_TEXT = "Odvolací soud přezkoumal napadený rozsudek a dospěl k závěru, že odvolání není důvodné."


@pytest.mark.parametrize(
    "summary, text, kept, dropped",
    [
        # a one-passage notice: its summary is its own opening, its links are tokens without meaning
        (
            NOTICE_SUMMARY,
            NOTICE,
            ["MORARU Liudmyla.pdf", "Číslo jednací: OAM-01515-4/ZR-2024", "Vyvěšeno: 29. 2. 2024"],
            ["https://", "Odkaz:", "– \n", "Relevantní do…"],
        ),
        # an act's passage: the act's summary is context the passage does not hold
        (ACT_SUMMARY, ACT_TEXT, [ACT_SUMMARY, ACT_TEXT], []),
        # a decision whose summary is its header of labelled fields keeps it too (left out, dense recall fell)
        (DECISION_HEADER, DECISION_TEXT, [DECISION_HEADER, DECISION_TEXT], []),
        # a decision whose summary is prose keeps it in every passage
        (DECISION_PROSE, DECISION_TEXT, [DECISION_PROSE, DECISION_TEXT], []),
        # a web address inside a sentence goes, the sentence stays
        (
            "",
            "Žádosti podávejte na https://portal.gov.cz/sluzby do 30. 6.",
            ["Žádosti podávejte na", "do 30. 6."],
            ["portal.gov.cz"],
        ),
    ],
)
def test_dense_text_keeps_meaning_and_drops_what_only_costs_tokens(summary, text, kept, dropped):
    dense = dense_text("88/2024 Sb.", "Zákon o správě voleb", "ČÁST ŠESTÁ > § 53", summary, text)
    assert dense.startswith("88/2024 Sb. — Zákon o správě voleb — ČÁST ŠESTÁ > § 53\n")
    for piece in kept:
        assert piece in dense
    for piece in dropped:
        assert piece not in dense


def test_bm25_keeps_the_whole_contextual_text_and_the_record_embeds_the_dense_one():
    record = ChunkRecord(
        chunk_id="c1",
        doc_id="d1",
        title="Oznámení",
        source="boards",
        url="https://example.cz",
        citation=None,
        page_start=1,
        page_end=1,
        section="",
        text=NOTICE,
        document_summary=NOTICE_SUMMARY,
    )
    assert record.context_text == contextual_text(None, "Oznámení", "", NOTICE_SUMMARY, NOTICE)
    assert "https://www.mvcr.cz" in record.context_text and "https://" not in record.dense_text
    assert len(record.dense_text) < len(record.context_text) / 2 + 120


@pytest.mark.parametrize(
    "title, text, dropped, kept",
    [
        # a notice's Název line repeats the title the head gives (~12 % of the corpus's tokens)
        (
            "VEŘEJNÁ VYHLÁŠKA - oznámení o nálezu zbraně",
            "Název: VEŘEJNÁ  VYHLÁŠKA - oznámení o nálezu zbraně\nVyvěšeno: 3. 5. 2024",
            "Název: VEŘEJNÁ",
            ["Vyvěšeno: 3. 5. 2024"],
        ),
        # a line holding more than the title stays
        (
            "Rozpočet",
            "Název: Rozpočet obce na rok 2025\nVyvěšeno: 3. 5. 2024",
            None,
            ["Název: Rozpočet obce na rok 2025"],
        ),
        # the title as a bare line of a PDF page goes too
        (
            "Zpravodaj obce",
            "Zpravodaj obce\nZastupitelstvo schválilo rozpočet.",
            "Zpravodaj obce\nZpravodaj",
            ["Zastupitelstvo schválilo rozpočet."],
        ),
    ],
)
def test_dense_text_drops_a_line_repeating_the_title(title, text, dropped, kept):
    dense = dense_text(None, title, "", "", text)
    assert dense.startswith(title + "\n")
    if dropped:
        assert dropped not in dense
    for piece in kept:
        assert piece in dense


DISCLAIMER = (
    "Popis: V souladu s ustanovením § 10d odst. 3 zákona č. 250/2000 Sb. byla provedena v příslušné "
    "veřejnoprávní smlouvě o poskytnutí dotace anonymizace údajů, které jsou vyloučeny ze zpřístupnění."
)


def _notice(doc_id: str, title: str, description: str) -> ChunkRecord:
    return ChunkRecord(
        chunk_id=f"c-{doc_id}",
        doc_id=doc_id,
        title=title,
        source="boards",
        url="https://kraj.cz",
        citation=None,
        page_start=1,
        page_end=1,
        section="",
        text=f"Název: {title}\n{description}\nVyvěšeno: 9. 6. 2020",
    )


def test_a_long_line_many_notices_of_one_listing_share_is_not_embedded(fresh_db):
    import psycopg

    from mendel.index.corpus import BOILERPLATE_MIN_DOCUMENTS, boilerplate_lines, dense_texts

    shared = [
        _notice(f"kraj#{i}", f"Smlouva o poskytnutí dotace D/{i:04}/2020", DISCLAIMER)
        for i in range(BOILERPLATE_MIN_DOCUMENTS)
    ]
    # the same line on too few documents of another listing, and a short line on every notice, are kept
    elsewhere = [_notice(f"obec#{i}", f"Oznámení {i}", DISCLAIMER) for i in range(BOILERPLATE_MIN_DOCUMENTS - 1)]
    records = shared + elsewhere
    with psycopg.connect(fresh_db) as conn:
        conn.cursor().executemany(
            "INSERT INTO documents (doc_id, source, url, doc_type, listing) VALUES (%s, 'boards', %s, 'notice', %s)",
            [(r.doc_id, r.url, r.doc_id.split("#")[0]) for r in records],
        )
        found = boilerplate_lines(conn, records)
        texts = dense_texts(conn, records)
        assert set(found) == {r.doc_id for r in shared}
        for record, text in zip(records, texts):
            assert ("anonymizace" in text) == (record in elsewhere)
            assert text.startswith(record.title + "\n") and "Vyvěšeno: 9. 6. 2020" in text
        # one notice gone from the listing: the line is no longer shared by enough of them
        conn.execute("UPDATE documents SET status = 'gone' WHERE doc_id = 'kraj#0'")
        assert boilerplate_lines(conn, shared[1:]) == {}
