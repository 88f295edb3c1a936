"""Boards know their place: the municipalities register is generated from the registry files (never hand-kept),
each board is linked to its municipality (kód obce, okres, kraj) or region, and search filters by kraj / okres /
obec over the documents that inherit it."""

from __future__ import annotations

from mendel import municipalities
from mendel.boards import Board
from mendel.config import SAMPLE_CORPUS
from serving.filters import SearchFilters


def test_the_data_file_is_what_the_registry_files_give():
    built = municipalities.build(SAMPLE_CORPUS)
    assert built == municipalities.read_data()  # regenerate with python -m mendel.municipalities
    assert len(built) == 6258 and len({m.code for m in built}) == 6258
    assert len({m.okres_code for m in built}) == 77 and len({m.kraj for m in built}) == 14
    kadan = municipalities.register().by_code["563102"]
    assert (kadan.name, kadan.kind, kadan.okres, kadan.kraj) == ("Kadaň", "město", "Chomutov", "Ústecký kraj")
    assert "Úhošťany" in kadan.parts and kadan.postcodes == ("43201",)
    praha = next(m for m in built if m.name == "Praha")
    assert (praha.kind, praha.kraj) == ("hlavní město", "Hlavní město Praha")
    assert {m.kraj for m in built} >= {"Kraj Vysočina", "Zlínský kraj"}


def test_boards_are_linked_to_their_municipality_or_region():
    def board(key, name=None, ico=None, obec_kod=None):
        return Board(key=key, kind="ofn", url=f"https://{key}/", name=name, publisher_ico=ico, obec_kod=obec_kod)

    boards, placed = municipalities.place_boards([
        board("hranice", "Město Hranice", "00301311"),  # two municipalities are called Hranice: the town is Přerov's
        board("karvina", "Statutární město Karviná", "00297534"),
        board("zlin", "Zlínský kraj", "70891320"),
        board("kadan-feed", "Město Kadaň", "00261912"),
        board("kadan-page", "Město Kadaň (an HTML board)", "00261912"),  # no municipality's name: its publisher's
        board("spatial", "Obec Neznámá", None, "569879"),  # the catalogue's RÚIAN obec
        board("police", None, "00007064"),  # a public body the registers do not place
    ])
    places = {b.key: (b.obec_kod, b.obec, b.okres, b.kraj) for b in boards}
    assert places == {
        "hranice": ("513750", "Hranice", "Přerov", "Olomoucký kraj"),
        "karvina": ("598917", "Karviná", "Karviná", "Moravskoslezský kraj"),
        "zlin": (None, None, None, "Zlínský kraj"),
        "kadan-feed": ("563102", "Kadaň", "Chomutov", "Ústecký kraj"),
        "kadan-page": ("563102", "Kadaň", "Chomutov", "Ústecký kraj"),
        "spatial": ("569879", "Blešno", "Hradec Králové", "Královéhradecký kraj"),
        "police": (None, None, None, None)}
    assert placed == 6
    # A name several municipalities share, with nothing to tell them apart, places nothing.
    assert municipalities.register().find("Nová Ves") is None


def test_search_filters_by_place():
    documents = {
        "kadan-1": {"source": "boards", "kraj": "Ústecký kraj", "okres": "Chomutov", "obec": "Kadaň"},
        "zlin-1": {"source": "boards", "kraj": "Zlínský kraj"},
        "act": {"source": "esbirka"},
    }
    assert SearchFilters.of({"kraj": "Ústecký kraj"}).matching_documents(documents) == {"kadan-1"}
    assert SearchFilters.of({"kraj": ["Zlínský kraj", "Ústecký kraj"]}).matching_documents(documents) == {
        "kadan-1", "zlin-1"}
    assert SearchFilters.of({"okres": "Chomutov", "obec": "Kadaň"}).matching_documents(documents) == {"kadan-1"}
    assert SearchFilters.of({"obec": "Blešno"}).matching_documents(documents) == set()
    assert SearchFilters.of({"obec": "Kadaň"}).is_empty() is False and SearchFilters.of({}).is_empty()
