"""A query naming a municipality or a year: among the positions the boards' documents hold, that municipality's and
that year's lead (``serving.ranking.place_rules``); acts and decisions keep their positions."""

import pytest

from serving.ranking.place_rules import with_boards_ordered, with_place_notices_leading, years_named

# item -> (its board's municipality, "" a board of no one municipality; its title); absent: an act or a decision
BOARDS = {
    10: ("Hranice", "Svoz odpadu 2021"),
    11: ("Hranice", "Svoz odpadu 2019"),
    20: ("Blešno", "Svozový plán 2018"),
    21: ("Blešno", "Svozový plán 2019"),
    30: ("", "Zlínský kraj - rozpočet 2019"),
}


def fused_of(items):
    return [(item, 1.0 / rank, ["bm25"]) for rank, item in enumerate(items, start=1)]


@pytest.mark.parametrize(
    ("items", "places", "years", "expected", "moved"),
    [
        ([10, 1, 20, 11, 21], {"Blešno"}, [], [20, 1, 21, 10, 11], {"place"}),  # the act (1) keeps rank 2
        ([10, 30, 20], {"Blešno"}, [], [20, 10, 30], {"place"}),  # a region's board document is a board's too
        ([20, 21, 10], {"Blešno"}, [], [20, 21, 10], set()),  # already first: nothing moves
        ([1, 2, 10], {"Blešno"}, [], [1, 2, 10], set()),  # none of the place's documents among them
        ([10, 20, 11, 21], {"Blešno", "Hranice"}, [], [10, 20, 11, 21], set()),
        ([10, 1, 20, 30, 11], set(), ["2019"], [30, 1, 11, 10, 20], {"year"}),
        ([10, 20, 11, 21], {"Blešno"}, ["2019"], [21, 20, 11, 10], {"place", "year"}),  # the place's year first
        ([1, 2], set(), ["2019"], [1, 2], set()),
    ],
)
def test_the_named_places_and_years_lead_the_boards_positions(items, places, years, expected, moved):
    placed, did = with_boards_ordered(fused_of(items), BOARDS.get, places, years, {"svoz", "odpad", "rozpocet"})
    assert [item for item, _, _ in placed] == expected and did == moved
    assert [score for _, score, _ in placed] == [score for _, score, _ in fused_of(items)]  # scores by position
    marked = {item for item, _, lists in placed if {"place", "year"} & set(lists)}
    boards = [item for item in items if item in BOARDS]
    ordered = [item for item in expected if item in BOARDS]

    def named(item):
        place, title = BOARDS[item]
        return place in places or any(year in title for year in years)

    assert marked == {item for item in boards if named(item) and ordered.index(item) < boards.index(item)}


@pytest.mark.parametrize(
    ("query", "years"),
    [
        ("schválený rozpočet na rok 2026", ["2026"]),
        ("Jaký je svozový den odpadu v Blešně v roce 2019?", ["2019"]),
        ("střednědobý výhled 2025-2026", ["2025", "2026"]),
        ("zákon č. 175/2025 Sb.", []),  # a number/year
        ("usnesení 20 Cdo 3327/2025", []),
        ("přerušení dodávky elektřiny 7.3.2025", []),  # a date
        ("pohledávka 881 960,65 Kč", []),
        ("Kolik je pokuta 2000 Kč?", []),  # an amount
        ("odpracoval jsem 2000 hodin", []),
        ("rozpočet 2026, 2027", ["2026", "2027"]),
    ],
)
def test_years_named(query, years):
    assert years_named(query) == years


@pytest.mark.parametrize(
    ("items", "own", "expected", "led"),
    [
        ([1, 10, 2, 20, 21], [], [20, 21, 1, 10, 2], True),  # the place's notices before the acts (1, 2) and Hranice's
        ([1, 20, 2], [1], [1, 20, 2], False),  # an exact reference's own passage leads whatever else
        ([5, 1, 20], [5], [5, 20, 1], True),
        ([20, 21, 1], [], [20, 21, 1], False),  # already first
        ([1, 10, 2], [], [1, 10, 2], False),  # none of the place's among them
    ],
)
def test_a_notice_search_naming_a_place_puts_its_boards_documents_first(items, own, expected, led):
    placed, moved = with_place_notices_leading(fused_of(items), BOARDS.get, {"Blešno"}, own)
    assert [item for item, _, _ in placed] == expected and moved == led
    assert [score for _, score, _ in placed] == [score for _, score, _ in fused_of(items)]
    ahead = {item for rank, item in enumerate(expected) if rank < items.index(item)}
    assert {item for item, _, lists in placed if "place" in lists} == ahead & {20, 21}


def test_a_search_naming_a_municipality_gets_its_documents_first_and_says_so(tmp_path):
    from fastapi.testclient import TestClient

    from serving.ranking.search import Searcher
    from serving.web.api import create_app
    from tests.support.bundle import EMBEDDER, board_doc, build_bundle

    docs = [
        board_doc(
            "hranice-1",
            "Svoz nebezpečného odpadu",
            "Svoz odpadu proběhne v sobotu 8. 6. 2019; svoz odpadu zajistí technické služby, roku 2019 opět.",
            "2019-01-10",
            "Hranice",
            "notice",
        ),
        board_doc(
            "blesno-1",
            "Svozový plán pro rok 2019",
            "Plán svozu odpadu: popelnice se vyvážejí každou středu.",
            "2019-01-10",
            "Blešno",
            "municipal_document",
        ),
        board_doc(
            "blesno-2",
            "Zpravodaj obce Blešno 2019",
            "Svoz odpadu, svoz odpadu a zase svoz odpadu: odpadu je čím dál víc.",
            "2019-01-10",
            "Blešno",
            "municipal_document",
        ),
        {
            "doc_id": "/eli/cz/sb/2020/541",
            "title": "Zákon o odpadech",
            "source": "esbirka",
            "url": "u-act",
            "citation": "541/2020 Sb.",
            "doc_type": "law",
            "published": "2020-12-23",
            "pages": ["§ 59 Obec určí místa pro odkládání odpadu a svoz odpadu stanoví obecně závaznou vyhláškou."],
        },
    ]
    bundles = build_bundle(tmp_path / "bundles", docs).parent
    searcher = Searcher.latest(bundles, embedder=EMBEDDER)
    assert searcher.board_places == {"Hranice", "Blešno"}
    # the place and a year: the place's title with the year and a word of the query first, not one with the place's
    # name for its only shared word
    both: dict = {}
    order = [hit.doc_id for hit in searcher.search("svoz odpadu Blešno 2019", k=8, details=both)]
    assert order.index("blesno-1") < order.index("blesno-2") < order.index("hranice-1")
    assert both["coverage"]["years_first"] == ["2019"]
    # a question naming the place: among the boards' positions only (an act may answer a question)
    details: dict = {}
    hits = searcher.search("Kdy je svoz odpadu v Blešně?", k=5, details=details)
    boards = [hit.doc_id for hit in hits if hit.doc_id != "/eli/cz/sb/2020/541"]
    assert boards.index("blesno-1") < boards.index("hranice-1")
    assert details["coverage"]["places_first"] == ["Blešno"] and "place_notices_first" not in details["coverage"]
    plain: dict = {}
    searcher.search("svoz odpadu", k=5, details=plain)
    assert "places_first" not in plain["coverage"] and "place_notices_first" not in plain["coverage"]
    client = TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))
    note = "Dotaz jmenuje obec Blešno: mezi písemnostmi úředních desek řadíme její před písemnosti jiných míst."
    assert note in client.get("/", params={"q": "Kdy je svoz odpadu v Blešně?"}).text
    # a year named: the board documents titled with it first
    dated: dict = {}
    hits = searcher.search("svoz odpadu 2019", k=5, details=dated)
    boards = [hit.doc_id for hit in hits if hit.doc_id != "/eli/cz/sb/2020/541"]
    assert boards.index("blesno-1") < boards.index("hranice-1") and dated["coverage"]["years_first"] == ["2019"]
    assert "places_first" not in dated["coverage"]
    note = "Dotaz jmenuje rok 2019: mezi písemnostmi úředních desek řadíme ty, které ho mají v názvu, před ostatní."
    assert note in client.get("/", params={"q": "svoz odpadu 2019"}).text
    several = "Dotaz jmenuje roky 2019, 2018: mezi písemnostmi úředních desek řadíme ty, které některý z nich mají"
    assert several in client.get("/", params={"q": "svoz odpadu 2019 a 2018"}).text
    # a keyword search naming the place (a kind of notice, what its board posts, any words): its documents before
    # the act too
    note = "Dotaz jmenuje obec Blešno: písemnosti její úřední desky řadíme první, před předpisy, rozhodnutí a"
    for query in ("svoz odpadu Blešno", "co je na úřední desce v Blešně", "odkládání odpadu Blešno"):
        led: dict = {}
        order = [hit.doc_id for hit in searcher.search(query, k=5, details=led)]
        assert {order[0], order[1]} == {"blesno-1", "blesno-2"}, (query, order)
        assert led["coverage"]["place_notices_first"] == ["Blešno"] and "places_first" not in led["coverage"]
        assert note in client.get("/", params={"q": query}).text


def test_a_title_with_the_year_but_none_of_the_querys_words_does_not_move():
    fused = [(10, 0.5, ["bm25"]), (11, 0.4, ["bm25"]), (21, 0.3, ["bm25", "dense"])]
    placed, moved = with_boards_ordered(fused, BOARDS.get, set(), ["2019"], {"plan"})  # "Svozový plán 2019"
    assert [item for item, _, _ in placed] == [21, 10, 11] and moved == {"year"}
    assert placed[0][2] == ["year", "bm25", "dense"]
    placed, moved = with_boards_ordered(fused, BOARDS.get, set(), ["2019"], {"uzavirk"})
    assert placed == fused and not moved


@pytest.mark.parametrize(
    ("words", "terms", "shared"),
    [
        ({"rozpocet"}, frozenset({"navrh", "rozpoct", "2022"}), True),  # "rozpočet" and "rozpočtu", stemmed apart
        ({"svoz"}, frozenset({"svozov", "plan"}), True),
        ({"uzavirk"}, frozenset({"rozpocet", "2020"}), False),
        ({"dan"}, frozenset({"danov"}), True),
        ({"prodej"}, frozenset({"program"}), False),
        ({"k"}, frozenset({"kadan", "kraj"}), False),  # a letter is no stem
    ],
)
def test_a_title_shares_a_word_as_the_stemmer_left_it(words, terms, shared):
    from serving.ranking.place_rules import shares_a_word

    assert shares_a_word(words, terms) is shared
