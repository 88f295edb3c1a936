"""A query naming a municipality: among the positions the boards' documents hold, that municipality's lead
(``serving.ranking.place_rules``); acts and decisions keep their positions."""

import pytest

from serving.ranking.place_rules import with_named_places_first

# item -> its board's municipality; "" a board of no one municipality; absent: an act or a decision
PLACES = {10: "Hranice", 11: "Hranice", 20: "Blešno", 21: "Blešno", 30: ""}


def fused_of(items):
    return [(item, 1.0 / rank, ["bm25"]) for rank, item in enumerate(items, start=1)]


@pytest.mark.parametrize(
    ("items", "places", "expected", "moved"),
    [
        ([10, 1, 20, 11, 21], {"Blešno"}, [20, 1, 21, 10, 11], True),  # the act (1) keeps rank 2
        ([10, 30, 20], {"Blešno"}, [20, 10, 30], True),  # a region's board document is a board's too
        ([20, 10, 21], {"Blešno"}, [20, 21, 10], True),
        ([20, 21, 10], {"Blešno"}, [20, 21, 10], False),  # already first: nothing moves
        ([1, 2, 10], {"Blešno"}, [1, 2, 10], False),  # none of the place's documents among them
        ([10, 20, 11, 21], {"Blešno", "Hranice"}, [10, 20, 11, 21], False),
    ],
)
def test_the_named_places_documents_lead_the_boards_positions(items, places, expected, moved):
    placed, did = with_named_places_first(fused_of(items), PLACES.get, places)
    assert [item for item, _, _ in placed] == expected and did is moved
    assert [score for _, score, _ in placed] == [score for _, score, _ in fused_of(items)]  # scores by position
    assert sorted(item for item, _, lists in placed if "place" in lists) == sorted(
        item for item, position in zip(expected, items) if item != position and PLACES.get(item) in places
    )


def test_a_search_naming_a_municipality_gets_its_documents_first_and_says_so(tmp_path):
    from fastapi.testclient import TestClient

    from serving.ranking.search import Searcher
    from serving.web.api import create_app
    from tests.support.bundle import EMBEDDER, build_bundle

    def board_document(doc_id, obec, doc_type, title, text):
        return {
            "doc_id": doc_id,
            "title": title,
            "source": "boards",
            "url": f"u-{doc_id}",
            "citation": None,
            "doc_type": doc_type,
            "published": "2019-01-10",
            "obec": obec,
            "pages": [text],
        }

    docs = [
        board_document(
            "hranice-1",
            "Hranice",
            "notice",
            "Svoz nebezpečného odpadu",
            "Svoz odpadu nebezpečného proběhne v sobotu; svoz odpadu zajistí technické služby, odpadu se svozem zbavíte.",
        ),
        board_document(
            "blesno-1",
            "Blešno",
            "municipal_document",
            "Svozový plán pro rok 2019",
            "Plán svozu odpadu pro rok 2019: popelnice se vyvážejí každou středu.",
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
    details: dict = {}
    hits = searcher.search("svoz odpadu Blešno", k=5, details=details)
    boards = [hit.doc_id for hit in hits if hit.doc_id != "/eli/cz/sb/2020/541"]
    assert boards.index("blesno-1") < boards.index("hranice-1")
    assert details["coverage"]["places_first"] == ["Blešno"]
    plain: dict = {}
    searcher.search("svoz odpadu", k=5, details=plain)
    assert "places_first" not in plain["coverage"]
    client = TestClient(create_app(bundles, embedder=EMBEDDER, reload_interval=0))
    note = "Dotaz jmenuje obec Blešno: mezi písemnostmi úředních desek řadíme její před písemnosti jiných míst."
    assert note in client.get("/", params={"q": "svoz odpadu Blešno"}).text
