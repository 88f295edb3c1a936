"""Decomposition: a query about several entities or areas becomes sub-queries, each searched and fused with the
whole query; a query about one thing stays whole (act titles with "a" or a comma included)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serving.query.decompose import MAX_SUBQUERIES, asks, decompose
from serving.ranking.fusion import interleave_fuse
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, base_docs, build_bundle


@pytest.mark.parametrize(
    "query, expected",
    [
        ("§ 51 odst. 1 ZP a čl. 10 Listiny", ["§ 51 odst. 1 ZP", "čl. 10 Listiny"]),
        ("§ 2079 a § 2099 občanského zákoníku", ["§ 2079 zákona č. 89/2012 Sb.", "§ 2099 zákona č. 89/2012 Sb."]),
        (
            "Jaká je výpovědní doba u pracovního poměru a do kdy můžu reklamovat vadu zboží?",
            ["Jaká je výpovědní doba u pracovního poměru", "do kdy můžu reklamovat vadu zboží"],
        ),
        # a two-document question of the dev set (retrieval_eval/questions/dev.jsonl, dev-mul-02)
        (
            "Kdo byl starostou Blešna při zakázce na radary i při dodatku smlouvy s ELTODO?",
            ["Kdo byl starostou Blešna při zakázce na radary", "při dodatku smlouvy s ELTODO"],
        ),
        (
            "Kolik činí sazba DPH; jak podat daňové přiznání k dani z příjmů",
            ["Kolik činí sazba DPH", "jak podat daňové přiznání k dani z příjmů"],
        ),
    ],
)
def test_queries_about_several_things(query, expected):
    assert decompose(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "Co říká § 2079 občanského zákoníku?",
        "§ 111 zákona o zbraních a střelivu",  # "a" inside an act's title
        "změna zákona č. 107/1999 Sb., o jednacím řádu Senátu",  # the comma before a title
        "§ 4 zákona č. 90/2024 Sb., kategorie zbraní",  # the words are about the act's own area
        "výpovědní doba a zkušební doba v pracovním poměru",  # both clauses: labour law
        # both clauses reach the civil code: the act's share of the area's score is near the best whatever the rounding
        "Kdo dědí, když zemřelý nenechal závěť a měl manželku a děti?",
        "Nejvyšší soud sp. zn. 15 EXE 746/2026",
        "podpora bydlení",
        "",
    ],
)
def test_queries_about_one_thing_stay_whole(query):
    assert decompose(query) == []


def test_interleave_fusion_takes_turns():
    fused = interleave_fuse(
        {"query": [1, 2, 3], "subquery:1": [4, 1], "subquery:2": [5, 6]},
        weights={"query": 1.0, "subquery:1": 0.9, "subquery:2": 0.9},
    )
    order = [item for item, _, _ in fused]
    # the query's best, then each sub-query's best, before the query's second
    assert order[:3] == [1, 4, 5] and order.index(2) > order.index(5)
    assert {item: lists for item, _, lists in fused}[1] == ["query", "subquery:1"]


@pytest.fixture(scope="module")
def searcher(tmp_path_factory, corpus):
    return Searcher.latest(
        build_bundle(tmp_path_factory.mktemp("bundles"), base_docs(corpus)).parent, embedder=EMBEDDER
    )


def test_each_part_of_a_two_topic_question_is_answered(searcher):
    query = "Jaká je sazba základní náhrady za používání osobního auta a co je vyhovující bydlení?"
    details: dict = {}
    hits = searcher.search(query, k=2, details=details)
    assert details["subqueries"] == [
        "Jaká je sazba základní náhrady za používání osobního auta",
        "co je vyhovující bydlení",
    ]
    # the whole query alone ranks the travel-rate decree first and second; with its parts, both acts lead
    assert {h.doc_id for h in searcher.search(query, k=2, decompose=False)} == {"/eli/cz/sb/2025/573"}
    assert {h.doc_id for h in hits} == {"/eli/cz/sb/2025/573", "/eli/cz/sb/2025/175"}
    by_doc = {h.doc_id: h.subqueries for h in hits}
    assert 1 in by_doc["/eli/cz/sb/2025/573"] and 2 in by_doc["/eli/cz/sb/2025/175"]


@pytest.mark.parametrize(
    "clause, asking",
    [
        ("Jaká je sazba základní náhrady", True),
        ("do kdy můžu reklamovat vadu zboží", True),  # a preposition before the question word
        ("co je vyhovující bydlení", True),
        ("jak dlouha je vypovedni doba", True),  # typed without diacritics
        ("když rodič neplatí výživné na dítě", False),  # a clause of the same question
        ("Přítel mě zamkl v bytě", False),
        ("Je to trestný čin", False),  # a yes-or-no question names no question word
    ],
)
def test_a_clause_asks_when_a_question_word_opens_it(clause, asking):
    assert asks(clause) is asking


def test_a_question_in_plain_words_told_in_parts_is_searched_whole(searcher):
    query = "Je trestný čin, když mi kamarád nevrátí půjčku?"
    assert decompose(query)  # its clauses route to different areas (criminal law, loans) ...
    details: dict = {}
    searcher.search(query, k=2, details=details)
    assert details["subqueries"] == []  # ... but only its first part asks: one question


def test_a_crime_named_by_its_lay_words_keeps_the_question_whole():
    # not paying maintenance is itself a crime's area (TZ § 196): both clauses route to the criminal code
    assert decompose("Je trestný čin, když rodič neplatí výživné na dítě?") == []


def test_two_references_each_lead_with_their_own_section(searcher):
    hits = searcher.search("§ 157 odst. 4 zákoníku práce a § 5 zákona o podpoře bydlení", k=2)
    assert {h.doc_id for h in hits} == {"/eli/cz/sb/2025/573", "/eli/cz/sb/2025/175"}
    assert all(h.lists[0] == "reference" for h in hits)
    housing = next(h for h in hits if h.doc_id == "/eli/cz/sb/2025/175")
    assert housing.section.rsplit(" > ", 1)[-1] == "§ 5"


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=200)
    | st.lists(
        st.sampled_from(
            [
                "§ 5",
                "zákona č. 175/2025 Sb.",
                "a",
                "i",
                ",",
                "Listiny",
                "čl. 10",
                "Nejvyšší soud",
                "bydlení",
                "?",
                ";",
                "výpovědní doba",
                "paragraf 204 OSŘ",
                "nebo",
                ":",
            ]
        ),
        max_size=12,
    ).map(" ".join)
)
def test_decomposition_never_fails(query):
    subqueries = decompose(query)
    assert len(subqueries) != 1 and len(subqueries) <= MAX_SUBQUERIES
    assert all(isinstance(s, str) and s.strip() for s in subqueries)
    assert len(set(subqueries)) == len(subqueries)
