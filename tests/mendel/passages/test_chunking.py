"""Chunk boundaries on a real Sbírka PDF: headings start chunks, pages and offsets point back to the text."""

from __future__ import annotations

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mendel.extract.pdf import ExtractionError, pdf_pages
from mendel.extract.sections import build_sections, find_headings
from mendel.passages.chunking import build_layers, chunk_pages, join_pages

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
    # every § heading begins a chunk, or its division's headings above it do
    opened = sum(1 for off in paragraph_offsets if off in starts)
    assert opened / len(paragraph_offsets) > 0.8
    for offset in paragraph_offsets:
        holder = next(c for c in chunks if c.char_start <= offset < c.char_end)
        assert holder.char_start == offset or "§" not in text[holder.char_start : offset]
    paragraph_chunks = [c for c in chunks if c.text.startswith("§")]
    assert all(c.section_path.endswith(c.text.split("\n", 1)[0].strip()) for c in paragraph_chunks)


def test_unreadable_pdfs_raise_with_reason():
    body = PDF.read_bytes()
    with pytest.raises(ExtractionError, match="not a PDF"):
        pdf_pages(b"<html>error</html>")
    with pytest.raises(ExtractionError):
        pdf_pages(body[:2000])  # truncated real file


# Real text of the acts as the sample corpus's DOCX give it (občanský zákoník 89/2012 Sb., Listina 2/1993 Sb.,
# Ústava 1/1993 Sb.), heading lines as printed.
CIVIL_CODE_START = (
    "ČÁST PRVNÍ\nOBECNÁ ČÁST\nHLAVA I\nPŘEDMĚT ÚPRAVY A JEJÍ ZÁKLADNÍ ZÁSADY\nDíl 1\nSoukromé právo\n§ 1\n"
    "(1) Ustanovení právního řádu upravující vzájemná práva a povinnosti osob vytvářejí ve svém souhrnu soukromé "
    "právo. Uplatňování soukromého práva je nezávislé na uplatňování práva veřejného.\n"
    "(2) Nezakazuje-li to zákon výslovně, mohou si osoby ujednat práva a povinnosti odchylně od zákona; zakázána "
    "jsou ujednání porušující dobré mravy, veřejný pořádek nebo právo týkající se postavení osob, včetně práva na "
    "ochranu osobnosti.\n"
    "§ 2\n(1) Každé ustanovení soukromého práva lze vykládat jenom ve shodě s Listinou základních práv a svobod a "
    "ústavním pořádkem vůbec, se zásadami, na nichž spočívá tento zákon, jakož i s trvalým zřetelem k hodnotám, "
    "které se tím chrání."
)
CIVIL_CODE_PERSONS = (
    "§ 14\nSvépomoc\n(1) Každý si může přiměřeným způsobem pomoci k svému právu sám, je-li jeho právo ohroženo a "
    "je-li zřejmé, že by zásah veřejné moci přišel pozdě.\n"
    "HLAVA II\nOSOBY\nDíl 1\nVšeobecná ustanovení\n§ 15\n"
    "(1) Právní osobnost je způsobilost mít v mezích právního řádu práva a povinnosti.\n"
    "(2) Svéprávnost je způsobilost nabývat pro sebe vlastním právním jednáním práva a zavazovat se k povinnostem "
    "(právně jednat).\n"
    "§ 16\nPrávní osobnosti ani svéprávnosti se nikdo nemůže vzdát ani zčásti; učiní-li tak, nepřihlíží se k tomu."
)
CIVIL_CODE_THINGS = (
    "§ 495\nSouhrn všeho, co osobě patří, tvoří její majetek. Jmění osoby tvoří souhrn jejího majetku a jejích "
    "dluhů.\nDíl 2\nRozdělení věcí\n§ 496\nVěci hmotné a nehmotné\n"
    "(1) Hmotná věc je ovladatelná část vnějšího světa, která má povahu samostatného předmětu.\n"
    "(2) Nehmotné věci jsou práva, jejichž povaha to připouští, a jiné věci bez hmotné podstaty."
)
CHARTER_RIGHTS = (
    "Čl. 4\n(1) Povinnosti mohou být ukládány toliko na základě zákona a v jeho mezích a jen při zachování "
    "základních práv a svobod.\n"
    "(2) Meze základních práv a svobod mohou být za podmínek stanovených Listinou základních práv a svobod (dále "
    "jen „Listina“) upraveny pouze zákonem.\n"
    "(3) Zákonná omezení základních práv a svobod musí platit stejně pro všechny případy, které splňují stanovené "
    "podmínky.\n"
    "HLAVA DRUHÁ\nLIDSKÁ PRÁVA A ZÁKLADNÍ SVOBODY\nOddíl první\nZákladní lidská práva a svobody\nČl. 5\n"
    "Každý je způsobilý mít práva.\nČl. 6\n(1) Každý má právo na život. Lidský život je hoden ochrany již před "
    "narozením.\n(2) Nikdo nesmí být zbaven života.\n(3) Trest smrti se nepřipouští.\n"
    "Čl. 7\n(1) Nedotknutelnost osoby a jejího soukromí je zaručena. Omezena může být jen v případech stanovených "
    "zákonem."
)
CONSTITUTION_START = (
    "odhodláni řídit se všemi osvědčenými principy právního státu,\nprostřednictvím svých svobodně zvolených "
    "zástupců přijímáme tuto Ústavu České republiky\n"
    "HLAVA PRVNÍ\nZÁKLADNÍ USTANOVENÍ\nČl. 1\nČeská republika je svrchovaný, jednotný a demokratický právní stát "
    "založený na úctě k právům a svobodám člověka a občana.\n"
    "Čl. 2\n(1) Lid je zdrojem veškeré státní moci; vykonává ji prostřednictvím orgánů moci zákonodárné, výkonné a "
    "soudní.\n(2) Ústavní zákon může stanovit, kdy lid vykonává státní moc přímo."
)
# Trestní zákoník 40/2009 Sb. (the sample's consolidated wording): § 186's last subsections, then § 187 whole.
CRIMINAL_CODE_SEXUAL = (
    "(6) Odnětím svobody na deset až šestnáct let bude pachatel potrestán, způsobí-li činem uvedeným v odstavci 1 "
    "smrt.\n(7) Příprava je trestná.\n§ 187\nPohlavní zneužití\n(1) Kdo vykoná soulož s dítětem mladším patnácti "
    "let nebo kdo je jiným způsobem pohlavně zneužije, bude potrestán odnětím svobody na jeden rok až osm let.\n"
    "(2) Odnětím svobody na pět až dvanáct let bude pachatel potrestán, způsobí-li činem uvedeným v odstavci 1 "
    "těžkou újmu na zdraví.\n(3) Odnětím svobody na deset až šestnáct let bude pachatel potrestán, způsobí-li "
    "činem uvedeným v odstavci 1 smrt.\n(4) Příprava je trestná.\n§ 188\nSoulož mezi příbuznými\nKdo vykoná "
    "soulož s příbuzným v pokolení přímém nebo se sourozencem, bude potrestán odnětím svobody až na tři léta."
)
# Občanský zákoník: a division's label and title, a group heading, then its first §.
CIVIL_CODE_PARTS = (
    "§ 504\nObchodním tajemstvím se rozumí konkurenčně významné, určitelné, ocenitelné a v příslušných obchodních "
    "kruzích běžně nedostupné skutečnosti, které souvisejí se závodem.\n"
    "Díl 3\nSoučást věci a příslušenství věci\nSoučást věci\n§ 505\nSoučást věci je vše, co k ní podle její "
    "povahy náleží a co nemůže být od věci odděleno, aniž se tím věc znehodnotí.\n"
    "§ 506\n(1) Součástí pozemku je prostor nad povrchem i pod povrchem, stavby zřízené na pozemku a jiná "
    "zařízení."
)
# Občanský zákoník: a one-sentence §, then the group heading of the §§ after it.
CIVIL_CODE_ASSOCIATION = (
    "§ 225\nÚčastní-li se ustavující schůze alespoň tři osoby, mohou schválit stanovy podle § 218.\nVznik spolku\n"
    "§ 226\n(1) Spolek vzniká dnem zápisu do veřejného rejstříku.\n(2) Návrh na zápis spolku do veřejného rejstříku "
    "podávají zakladatelé nebo osoba určená ustavující schůzí."
)
# Živnostenský zákon 455/1991 Sb., its annex's own ČÁST B / ČÁST C: divisions with no § after them.
TRADES_ANNEX = (
    "ČÁST B\nBarvení a chemická úprava textilií Čištění a praní textilu a oděvů Kominictví\n"
    "ČÁST C\nHostinská činnost Kosmetické služby Pedikúra, manikúra strana 47"
)


def _sections(text: str) -> list[tuple[int, str]]:
    """(offset, path) as the chunk stage reads them from extraction's section tree."""
    return sorted((s.char_start, s.path) for s in build_sections(text, [0]))


@pytest.mark.parametrize("from_extraction", [False, True], ids=["headings-in-text", "extracted-sections"])
@pytest.mark.parametrize(
    ("text", "opening", "section"),
    [
        # a division's headings, then its first §: the passage is that §'s, the headings stay in its text
        (CIVIL_CODE_START, "ČÁST PRVNÍ\nOBECNÁ ČÁST\nHLAVA I", "ČÁST PRVNÍ > HLAVA I > Díl 1 > § 1"),
        (CIVIL_CODE_PERSONS, "HLAVA II\nOSOBY\nDíl 1\nVšeobecná ustanovení\n§ 15", "HLAVA II > Díl 1 > § 15"),
        (CHARTER_RIGHTS, "HLAVA DRUHÁ\nLIDSKÁ PRÁVA", "HLAVA DRUHÁ > Oddíl první > Čl. 5"),
        (CONSTITUTION_START, "HLAVA PRVNÍ\nZÁKLADNÍ USTANOVENÍ\nČl. 1", "HLAVA PRVNÍ > Čl. 1"),
        # a passage opened by a § keeps it though a division and the next § follow inside it
        (CIVIL_CODE_THINGS, "§ 495", "§ 495"),
        # a division closed by the next one before any §: its own section
        (TRADES_ANNEX, "ČÁST B", "ČÁST B"),
    ],
)
def test_a_passage_opening_a_division_takes_its_first_provision(text, opening, section, from_extraction):
    chunks = chunk_pages([text], sections=_sections(text) if from_extraction else None)
    passage = next(c for c in chunks if c.text.startswith(opening))
    assert passage.section_path == section
    # no text moves: the passage is still the document's text from the division's heading on
    assert text[passage.char_start : passage.char_end] == passage.text


@pytest.mark.parametrize("from_extraction", [False, True], ids=["headings-in-text", "extracted-sections"])
@pytest.mark.parametrize(
    ("text", "provisions"),
    [
        # § 187 starts 140 characters into a passage of § 186's tail: it opens its own passage all the same
        (CRIMINAL_CODE_SEXUAL, ["§ 187", "§ 188"]),
        # § 495 is one sentence: § 496 and its division's headings open the next passage
        (CIVIL_CODE_THINGS, ["§ 495", "Díl 2 > § 496"]),
        (CIVIL_CODE_PARTS, ["§ 504", "Díl 3 > § 505", "Díl 3 > § 506"]),
        (CIVIL_CODE_ASSOCIATION, ["§ 225", "§ 226"]),
        (
            CHARTER_RIGHTS,
            [
                "Čl. 4",
                "HLAVA DRUHÁ > Oddíl první > Čl. 5",
                "HLAVA DRUHÁ > Oddíl první > Čl. 6",
                "HLAVA DRUHÁ > Oddíl první > Čl. 7",
            ],
        ),
    ],
)
def test_no_passage_runs_into_the_next_provision(text, provisions, from_extraction):
    chunks = chunk_pages([text], sections=_sections(text) if from_extraction else None)
    found = [c.section_path for c in chunks]
    for provision in provisions:
        assert any(path == provision or path.endswith(" > " + provision) for path in found), (provision, found)
    for chunk in chunks:
        label = chunk.section_path.rsplit(" > ", 1)[-1]
        assert [line for line in chunk.text.splitlines() if line.startswith(("§ ", "Čl. "))] in ([], [label])
        assert text[chunk.char_start : chunk.char_end] == chunk.text


@pytest.mark.parametrize("from_extraction", [False, True], ids=["headings-in-text", "extracted-sections"])
def test_a_group_heading_opens_the_passage_of_the_provision_under_it(from_extraction):
    text = CIVIL_CODE_ASSOCIATION
    chunks = chunk_pages([text], sections=_sections(text) if from_extraction else None)
    assert [(c.section_path, c.text.splitlines()[0]) for c in chunks] == [
        ("§ 225", "§ 225"),
        ("§ 226", "Vznik spolku"),
    ]
    assert chunks[0].text.endswith("podle § 218.")


def test_the_division_headings_join_their_provisions_section():
    layers = build_layers([CIVIL_CODE_PERSONS], section_min=100)  # the snippet's §§ are short: each its own section
    by_path = {s.section_path: s for s in layers.sections}
    assert set(by_path) == {"§ 14", "HLAVA II > Díl 1 > § 15", "HLAVA II > Díl 1 > § 16"}
    assert by_path["HLAVA II > Díl 1 > § 15"].text.startswith("HLAVA II\nOSOBY\nDíl 1\nVšeobecná ustanovení\n§ 15")
