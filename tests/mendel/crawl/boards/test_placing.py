"""Boards know their place: the municipalities register is generated from the registry files (never hand-kept),
each board is linked to its municipality (kód obce, okres, kraj) or region, and search filters by kraj / okres /
obec over the documents that inherit it."""

from __future__ import annotations

import json
import urllib.parse
from collections import Counter

from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.catalogue import boards_from_bindings, nkod_query
from mendel.registers import municipalities
from mirror.nkod import NkodSite
from serving.ranking.filters import SearchFilters

MVCR_FEEDS = SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json"


def test_the_data_file_is_what_the_registry_files_give():
    built = municipalities.build(SAMPLE_CORPUS)
    assert built == municipalities.read_data()  # regenerate with python -m mendel.registers.municipalities
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

    boards, placed = municipalities.place_boards(
        [
            board(
                "hranice", "Město Hranice", "00301311"
            ),  # two municipalities are called Hranice: the town is Přerov's
            board("karvina", "Statutární město Karviná", "00297534"),
            board("zlin", "Zlínský kraj", "70891320"),
            board("kadan-feed", "Město Kadaň", "00261912"),
            board("kadan-page", "Město Kadaň (an HTML board)", "00261912"),  # no municipality's name: its publisher's
            board("spatial", "Obec Neznámá", None, "569879"),  # the catalogue's RÚIAN obec
            board("police", None, "00007064"),  # a public body the registers do not place
        ]
    )
    places = {b.key: (b.obec_kod, b.obec, b.okres, b.kraj) for b in boards}
    assert places == {
        "hranice": ("513750", "Hranice", "Přerov", "Olomoucký kraj"),
        "karvina": ("598917", "Karviná", "Karviná", "Moravskoslezský kraj"),
        "zlin": (None, None, None, "Zlínský kraj"),
        "kadan-feed": ("563102", "Kadaň", "Chomutov", "Ústecký kraj"),
        "kadan-page": ("563102", "Kadaň", "Chomutov", "Ústecký kraj"),
        "spatial": ("569879", "Blešno", "Hradec Králové", "Královéhradecký kraj"),
        "police": (None, None, None, None),
    }
    assert placed == 6
    # A name several municipalities share, with nothing to tell them apart, places nothing.
    assert municipalities.register().find("Nová Ves") is None


def test_a_region_is_found_in_a_bodys_name_or_page_address_only_when_named_exactly():
    known = municipalities.register()
    assert known.kraj_named("Hasičský záchranný sbor Jihomoravského kraje") == "Jihomoravský kraj"
    assert (
        known.kraj_named("https://www.hzscr.cz/hzs-kraje-vysocina-menu-sluzby-pro-verejnost-uredni-deska.aspx")
        == "Kraj Vysočina"
    )
    assert known.kraj_named("https://www.policie.cz/sprava-hl-m-prahy-uredni-deska.aspx") == "Hlavní město Praha"
    assert known.kraj_named("https://www.policie.cz/jihocesky-kraj-uredni-deska.aspx") == "Jihočeský kraj"
    # A region of before 2000, a police abbreviation, two regions, a municipality: no region.
    assert known.kraj_named("https://www.policie.cz/sprava-zapadoceskeho-kraje-o-nas-uredni-deska.aspx") is None
    assert known.kraj_named("https://www.policie.cz/krajske-reditelstvi-policie-olk-o-nas-uredni-deska.aspx") is None
    assert known.kraj_named("Smlouva Zlínského kraje a Jihomoravského kraje") is None
    assert known.kraj_named("Město Hranice") is None and known.kraj_named(None) is None


def test_a_place_passes_between_boards_of_one_publisher_only_when_the_publishers_boards_agree():
    boards, placed = municipalities.place_boards(
        [
            Board(
                key="a", kind="ofn", url="https://a/", name="Hasičský záchranný sbor Zlínského kraje", publisher_ico="1"
            ),
            Board(key="b", kind="ofn", url="https://b/", publisher_ico="1"),  # no name: its publisher's place
            Board(
                key="c",
                kind="ofn",
                url="https://c/",
                name="Krajské ředitelství policie Zlínského kraje",
                publisher_ico="2",
            ),
            Board(
                key="d",
                kind="ofn",
                url="https://d/",
                name="Krajské ředitelství policie Olomouckého kraje",
                publisher_ico="2",
            ),
            Board(key="e", kind="ofn", url="https://e/", publisher_ico="2"),  # its publisher's boards disagree
            # A page names its board, not the publisher: board f is placed, g (same IČO, no page) is not.
            Board(
                key="f",
                kind="ofn",
                url="https://f/",
                publisher_ico="3",
                page="https://www.hzscr.cz/hzs-libereckeho-kraje-menu-sluzby-pro-verejnost-uredni-deska.aspx",
            ),
            Board(key="g", kind="ofn", url="https://g/", publisher_ico="3"),
        ]
    )
    assert {b.key: b.kraj for b in boards} == {
        "a": "Zlínský kraj",
        "b": "Zlínský kraj",
        "c": "Zlínský kraj",
        "d": "Olomoucký kraj",
        "e": None,
        "f": "Liberecký kraj",
        "g": None,
    }
    assert placed == 5


def _catalogue_boards() -> list[Board]:
    """The boards of the mirror's NKOD catalogue (the real feeds' publisher IČO and page), read with the register's
    own query."""
    site = NkodSite(SAMPLE_CORPUS)
    answer = site.handle(
        "GET",
        "/sparql",
        "/sparql",
        urllib.parse.urlencode({"query": nkod_query()}),
        {"Accept": "application/sparql-results+json"},
        b"",
    )
    return boards_from_bindings(json.loads(answer.body)["results"]["bindings"])


def test_the_real_feeds_are_placed_by_what_their_records_name():
    boards, placed = municipalities.place_boards(_catalogue_boards())
    feeds = {feed["iri"]: feed for feed in json.loads(MVCR_FEEDS.read_text(encoding="utf-8"))}
    mvcr = [b for b in boards if b.url in feeds]
    assert len(boards) == 186 and len(mvcr) == 182
    # Every MVČR feed placed is placed in the region its own page names, and only there.
    for board in mvcr:
        page = feeds[board.url]["stránka"]
        assert board.page == page
        assert board.kraj == municipalities.register().kraj_named(page)
        assert board.obec is None and board.okres is None  # regional bodies: a region, no municipality
    by_kind = Counter(
        ("hzs" if "hzscr.cz" in b.page else "policie" if "policie.cz" in b.page else "mv", bool(b.kraj)) for b in mvcr
    )
    # The 14 regional fire-and-rescue services; 8 police boards (Praha, Středočeský, Jihočeský, Jihomoravský kraj).
    # Unplaced: 20 police boards whose pages name a region of before 2000 or an abbreviation and the national
    # police board; the national fire-and-rescue unit and school; the ministry's departments (IČO 00007064).
    assert by_kind == {
        ("hzs", True): 14,
        ("hzs", False): 4,
        ("policie", True): 8,
        ("policie", False): 22,
        ("mv", False): 134,
    }
    assert {b.kraj for b in mvcr if b.kraj and "hzscr.cz" in b.page} == {
        m.kraj for m in municipalities.register().municipalities
    }
    assert not any(b.kraj for b in mvcr if b.publisher_ico == "00007064")
    named = {b.name: (b.obec, b.kraj) for b in boards if b.name}
    assert named == {
        "Město Kadaň": ("Kadaň", "Ústecký kraj"),
        "Město Hranice": ("Hranice", "Olomoucký kraj"),
        "Statutární město Karviná": ("Karviná", "Moravskoslezský kraj"),
        "Zlínský kraj": (None, "Zlínský kraj"),
    }
    assert placed == 4 + 22


def test_the_demo_register_s_boards_placed_by_municipality_region_or_public_body():
    """The 189 boards a demo run registers (the mirror's catalogue and the maintained list): before the public
    bodies, 29 had a place and 160 none; with the notices of the real feeds as the crawl stores them, the police's
    and the ministry's boards are linked to their bodies (mendel.registers.public_bodies) and 9 stay unplaced, each with its
    reason."""
    from mendel.core.config import HTML_BOARDS_FILE
    from mendel.crawl.boards.maintained_list import load_html_boards
    from mendel.registers import public_bodies

    boards, placed = municipalities.place_boards(_catalogue_boards() + load_html_boards(str(HTML_BOARDS_FILE)))
    assert (len(boards), placed) == (189, 29)
    assert Counter(b.placed_by for b in boards) == {None: 160, "page": 22, "municipality": 6, "name": 1}
    feeds = json.loads(MVCR_FEEDS.read_text(encoding="utf-8"))
    numbers = {f["iri"]: [n.get("číslo_jednací") for n in f["informace"]] for f in feeds}
    bodies = public_bodies.place_boards(boards, numbers)
    assert sum(1 for b in bodies if b.obec or b.kraj or b.body) == 180
    assert public_bodies.place_summary(bodies) == {
        "placed_by_municipality": 6,
        "placed_by_body": 155,
        "placed_by_region": 19,
        "unplaced_by_reason": {"no_numbers": 8, "tie": 1},
    }
    # Every board a kraj placed before keeps it; the 16 regional police boards no page placed gain theirs.
    assert all(after.kraj == before.kraj for before, after in zip(boards, bodies) if before.kraj)
    assert sum(1 for b in bodies if b.kraj) - sum(1 for b in boards if b.kraj) == 16


def test_search_filters_by_place():
    documents = {
        "kadan-1": {"source": "boards", "kraj": "Ústecký kraj", "okres": "Chomutov", "obec": "Kadaň"},
        "zlin-1": {"source": "boards", "kraj": "Zlínský kraj"},
        "act": {"source": "esbirka"},
    }
    assert SearchFilters.of({"kraj": "Ústecký kraj"}).matching_documents(documents) == {"kadan-1"}
    assert SearchFilters.of({"kraj": ["Zlínský kraj", "Ústecký kraj"]}).matching_documents(documents) == {
        "kadan-1",
        "zlin-1",
    }
    assert SearchFilters.of({"okres": "Chomutov", "obec": "Kadaň"}).matching_documents(documents) == {"kadan-1"}
    assert SearchFilters.of({"obec": "Blešno"}).matching_documents(documents) == set()
    assert SearchFilters.of({"obec": "Kadaň"}).is_empty() is False and SearchFilters.of({}).is_empty()
