"""A board's own series of titles (``serving.ranking.title_series``): a keyword search opening as many board titles
do, with words no act or decision writes, looks for that series' notices."""

import pytest

from serving.ranking.title_series import TitleSeries, opening, title_openings, written_in

HASICI = [f"Hasiči radí - {topic} e.č. {n}/2021" for n, topic in enumerate(["sirény", "komíny", "turistika"] * 4)]


@pytest.mark.parametrize(
    ("text", "words", "expected"),
    [
        ("Hasiči radí - sirény", 2, "hasici radi"),
        ("Hasiči radí - sirény", 3, "hasici radi sireny"),
        ("Smlouva o dílo", 2, None),  # "o": too short to tell a series
        ("RP02-20 smlouvy", 2, None),  # a number is no word of a series
        ("Záměr", 2, None),
    ],
)
def test_an_opening_is_folded_words_long_enough(text, words, expected):
    assert opening(text, words) == expected


def test_openings_of_enough_titles_are_series_written_as_the_titles_mostly_write_them():
    found = title_openings(HASICI + ["HASIČI RADÍ - požáry", "Svoz odpadu 2019"], least=10)
    assert set(found) == {"hasici radi"}  # the three-word openings vary; one title of the waste is no series
    assert found["hasici radi"].label == "Hasiči radí" and {"sireny", "komin", "kominy"} & found["hasici radi"].words
    assert title_openings(HASICI, least=13) == {}


def test_a_phrase_is_written_as_its_words_in_a_row_in_any_form():
    assert written_in("smlouva o", ["Smlouvou o dílo se zhotovitel zavazuje", "smlouva  o dílo"])
    assert not written_in("hasici radi", ["Hasiči jednotky požární ochrany radí obyvatelům"])
    assert written_in("verejna vyhlaska", ["Písemnost se doručuje veřejnou vyhláškou."])  # in another case


@pytest.mark.parametrize(
    ("query", "series"),
    [
        ("hasiči radí", "Hasiči radí"),
        ("hasici radi", "Hasiči radí"),  # typed without diacritics
        ("Hasiči radí sirény", "Hasiči radí"),  # a word of the series' titles
        ("hasiči radí sirény?", None),  # a question
        ("jak hasiči radí", None),
        ("hasiči radí o dani z příjmů", None),  # words no title of the series holds: not a search of it
        ("hasiči", None),
    ],
)
def test_a_keyword_search_opening_a_series_names_it(query, series):
    found = TitleSeries(title_openings(HASICI, least=10)).searched(query)
    assert (found.label if found else None) == (f"řada písemností „{series}“" if series else None)
    assert found is None or found.id == "title_series"


def test_an_opening_the_law_writes_is_no_series():
    titles = [f"Smlouva nájemní {n}" for n in range(12)] + HASICI
    law = {"smlouva najemni": ["Smlouva nájemní se uzavírá písemně."], "hasici radi": ["Hasiči zasahují."]}
    series = TitleSeries.of_collection(titles, lambda phrase: law.get(phrase, []), least=10)
    assert set(series.series) == {"hasici radi"}


def test_a_search_for_a_series_gets_its_notices_before_an_act_and_says_so(tmp_path):
    from serving.ranking.search import Searcher
    from tests.support.bundle import EMBEDDER, board_doc, build_bundle

    notices = [
        board_doc(
            f"hasici-{n}", title, f"Rada hasičů občanům č. {n}: {title.split(' - ')[1]}.", "2021-03-01", "Hranice"
        )
        for n, title in enumerate(HASICI)
    ]
    act = {
        "doc_id": "/eli/cz/sb/1985/133",
        "title": "Zákon o požární ochraně",
        "source": "esbirka",
        "url": "u-act",
        "citation": "133/1985 Sb.",
        "doc_type": "law",
        "published": "1985-12-17",
        "pages": ["§ 29 Jednotka hasičů zasahuje u požáru; sirény a komíny kontroluje kominík."],
    }
    searcher = Searcher.latest(build_bundle(tmp_path / "bundles", [act, *notices]).parent, embedder=EMBEDDER)
    assert set(searcher.title_series.series) == {"hasici radi"}
    details: dict = {}
    hits = searcher.search("hasiči radí sirény", k=5, details=details)
    assert hits[0].doc_id.startswith("hasici-") and "sirény" in hits[0].title
    assert details["coverage"]["notice_kind"] == {"id": "title_series", "label": "řada písemností „Hasiči radí“"}
    assert not details["governing"]
    asked: dict = {}
    searcher.search("Kdo kontroluje komíny a sirény?", k=5, details=asked)
    assert "notice_kind" not in asked["coverage"]
    # the law's own wording in the searcher's acts stops a series: BM25 over the acts' passages is asked
    law = TitleSeries.of_collection(HASICI, lambda phrase: ["Hasiči radí a pomáhají."], least=10)
    assert law.searched("hasiči radí") is None and law.openings
