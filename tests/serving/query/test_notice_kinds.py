"""A keyword search for a kind of notice (``serving.query.notice_kinds``, the table ``mendel/data/notice_kinds.yaml``)
is no plain question about the law: no acts' own lists, no lay-to-legal bridge, no governing act -- the boards'
notices it looks for lead; a question naming the same kind stays a question."""

import pytest

from mendel.data import DATA_DIR
from serving.query.analyze import understand
from serving.query.notice_kinds import notice_kind_searched, notice_kinds
from serving.ranking.query_lists import QueryLists


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("záměr prodeje pozemku", "intent"),
        ("zamer pronajmu", "intent"),
        ("veřejná vyhláška územní plán", "public_notice"),
        ("dražební vyhláška byt", "auction"),
        ("rozpočtové opatření", "budget"),
        ("schválený rozpočet na rok 2026", "budget"),
        ("rozpočet obce 2026", "budget"),
        ("střednědobý výhled rozpočtu", "budget"),
        ("uzavírka silnice", "traffic"),
        ("výběrové řízení na místo", "vacancy"),
        ("volné pracovní místo úřad", "vacancy"),
        ("pozvánka na zasedání zastupitelstva", "council"),
        ("záměr", "intent"),
        ("harmonogram svozu odpadu", "waste_collection"),
        ("výroční zpráva", "annual_report"),
        ("usnesení zastupitelstva obce", "council"),
        ("svoz odpadu", "waste_collection"),
        ("přerušení dodávky elektřiny", "outage"),
        ("ztráty a nálezy", "lost_and_found"),
        ("změna územního plánu", "land_use"),
        ("obecně závazná vyhláška o psech", "bylaw"),
        ("výroční zpráva o poskytování informací", "annual_report"),
        ("smlouva o poskytnutí dotace", "grant"),
        ("mimořádné opatření ministerstva", "emergency_measure"),
        ("zjišťovací řízení EIA", "environmental_review"),
        ("úřední deska", "notice_board"),
        ("na úřední desce Blešna", "notice_board"),  # the locative
        # a question asking what a board posts looks for its notices
        ("co je na úřední desce v Blešně", "notice_board"),
        ("jaké vyhlášky visí na úřední desce Kadaně?", "notice_board"),
        ("co nového na úřední desce obce Kadaň", "notice_board"),
    ],
)
def test_a_keyword_search_names_its_kind_of_notice(query, kind):
    found = notice_kind_searched(query)
    assert found is not None and found.id == kind, (query, found)


@pytest.mark.parametrize(
    "query",
    [
        "rozpočtové opatření obce, kdo ho schvaluje",  # a question about the law
        "Může občan vystoupit na zasedání zastupitelstva obce?",
        "Jak dlouho musí viset záměr prodeje na úřední desce",  # a question word, without the mark
        "Kdo povoluje uzavírku silnice?",
        # a word the codes use on their own names no kind
        "Stavební firma chce o třetinu víc, než bylo v rozpočtu",
        "smlouva o dílo vady",
        "dražba nemovitosti v exekuci",
        "našel jsem peněženku nález",
        "veřejná zakázka malého rozsahu limit bez výběrového řízení",
        "jednal záměrně",
        "kupní smlouva pozemek",
        "stavební záměr povolení",  # the building act's word
        "podnikatelský záměr",
        "doručení veřejnou vyhláškou lhůta",  # the administrative procedure's way of service
        "volné místo ve školce",
        "harmonogram splátek úvěru",
        "pozvánka na valnou hromadu",  # a company's general meeting
        "výroční zpráva společnosti povinnost zveřejnit",
        # what the law asks a board to post is a question about the law
        "co musí obec zveřejnit na úřední desce",
        "co je na úřední desce povinné zveřejnit?",
        "co je to úřední deska",
    ],
)
def test_a_question_or_a_code_word_names_no_kind(query):
    assert notice_kind_searched(query) is None


def test_the_table_is_well_formed():
    kinds = notice_kinds()
    assert len({kind.id for kind in kinds}) == len(kinds) and all(kind.label and kind.patterns for kind in kinds)
    assert (DATA_DIR / "notice_kinds.yaml").is_file()


def test_a_notice_search_is_no_plain_question():
    assert QueryLists.lay_question(understand("zahradní domek pozemek"))
    found = understand("záměr prodeje pozemku")
    assert found.notice_kind.id == "intent"
    assert not QueryLists.plain_question(found) and not QueryLists.lay_question(found)


def _searcher(tmp_path):
    from serving.ranking.search import Searcher
    from tests.support.bundle import EMBEDDER, board_doc, build_bundle

    def act(number, paragraph, text):
        return {
            "doc_id": f"/eli/cz/sb/2012/{number}",
            "title": "Zákon občanský zákoník",
            "source": "esbirka",
            "url": f"u{paragraph}",
            "citation": f"{number}/2012 Sb.",
            "doc_type": "law",
            "published": "2012-03-22",
            "pages": [f"§ {paragraph} {text}"],
        }

    docs = [
        act(89, 2079, "Kupní smlouvou se prodávající zavazuje, že kupujícímu odevzdá věc, která je předmětem koupě."),
        board_doc(
            "notice-intent",
            "Záměr na prodej pozemku v k.ú. Slavíč",
            "Město Hranice zveřejňuje záměr prodeje pozemku parc. č. 123 v katastrálním území Slavíč.",
            "2020-06-01",
        ),
        board_doc(
            "notice-closure",
            "Veřejná vyhláška - stanovení přechodné úpravy provozu",
            "Úplná uzavírka silnice III/4404 v obci Slavíč, objížďka po silnici II/440.",
            "2021-04-01",
        ),
    ]
    return Searcher.latest(build_bundle(tmp_path / "bundles", docs).parent, embedder=EMBEDDER)


def test_a_notice_search_gets_the_notice_without_the_acts_lists_and_says_so(tmp_path):
    searcher = _searcher(tmp_path)
    details: dict = {}
    hits = searcher.search("záměr prodeje pozemku", k=5, details=details)
    assert hits[0].doc_id == "notice-intent"
    assert not any({"acts_bm25", "acts_dense", "wordings"} & set(hit.lists) for hit in hits)
    assert details["coverage"]["notice_kind"]["id"] == "intent"
    assert not details["governing"] and not details["coverage"]["missing"]
    # the same words asked as a question about the law: the acts' own lists join, no kind is reported
    asked: dict = {}
    searcher.search("Jak se uzavírá smlouva o prodeji pozemku?", k=5, details=asked)
    assert "notice_kind" not in asked["coverage"]


def test_the_search_page_says_what_it_searched_for(tmp_path):
    from fastapi.testclient import TestClient

    from serving.web.api import create_app
    from tests.support.bundle import EMBEDDER

    searcher = _searcher(tmp_path)
    client = TestClient(create_app(searcher.path.parent, embedder=EMBEDDER, reload_interval=0))
    page = client.get("/", params={"q": "uzavírka silnice"}).text
    assert "Dotaz hledáme jako písemnost úředních desek (druh: uzavírka a úprava provozu)" in page
    assert "Dotaz hledáme jako písemnost" not in client.get("/", params={"q": "Kdo povoluje uzavírku silnice?"}).text


def test_the_analysis_reports_the_kind():
    from serving.query.analyze import analyze_query

    assert analyze_query("svoz odpadu")["notice_kind"] == {"id": "waste_collection", "label": "svoz odpadu"}
    assert analyze_query("Kdo platí svoz odpadu?")["notice_kind"] is None
