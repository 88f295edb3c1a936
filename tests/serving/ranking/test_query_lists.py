"""One query's lists (serving/ranking/query_lists.py): which questions are lay questions, the acts' own passages
they also search, first hits that do not depend on how many hits are asked for, and BM25's first passages leading
when BM25 and dense agree that court decisions answer (serving/ranking/answer.py)."""

from __future__ import annotations

import numpy as np
import pytest

from serving.query.analyze import understand
from serving.ranking.decision_rules import decisions_agreed
from serving.ranking.fusion import rrf_fuse, rrf_fuse_head
from serving.ranking.governing_part import (
    SMALL_PART_PASSAGES,
    heading_lines,
    small_part_in_order,
    with_part_kept,
    with_part_slot,
)
from serving.ranking.query_lists import ACTS_WEIGHTS, CANDIDATES, QueryLists
from serving.ranking.search import Searcher
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, ns_decision_docs


@pytest.mark.parametrize(
    ("question", "lay"),
    [
        ("Jaký trest hrozí za krádež?", True),
        ("Může mi majitel bytu zvýšit nájem a o kolik?", True),
        ("Co hrozí za rušení nočního klidu?", True),
        ("MUKK/6462/2025", False),  # a file number: a document is searched for
        ("výzva k odstranění vozidla 7J1 2989", False),  # a registration plate
        ("přerušení dodávky elektřiny 7.3.2025", False),  # a date
        ("29 Nd 461/2024", False),  # a file number
        ("sex s 14letou trestný", True),  # an age
        ("Půjčil jsem si 20 tisíc s úrokem 40 % měsíčně, je to lichva?", True),  # amounts
        ("Můžu odstoupit od smlouvy o spotřebitelském úvěru do 14 dnů?", True),  # a count of days
        ("IČ zhotovitele ELTODO-CITELUM", False),  # a name in capitals
        ("Co říká § 2079 občanského zákoníku?", False),  # names a provision
        ("Kdy bude v Kadani svoz odpadu?", False),  # names a place
    ],
)
def test_lay_questions(question, lay):
    assert QueryLists.lay_question(understand(question)) is lay


def test_fused_head_does_not_depend_on_how_deep_the_lists_go():
    shallow = {"bm25": [1, 2, 3, 4], "dense": [4, 5, 1, 6]}
    deep = {"bm25": [1, 2, 3, 4, 7, 5], "dense": [4, 5, 1, 6, 2, 8]}
    head = rrf_fuse_head(deep, 4)
    assert head[:6] == rrf_fuse(shallow)  # the deeper items (2 in dense, 5 in bm25) leave the order alone
    assert [item for item, _, _ in head[6:]] == [7, 8]  # only deeper lists reach these
    assert [score for _, score, _ in head] == sorted((score for _, score, _ in head), reverse=True)
    assert rrf_fuse_head(shallow, 4) == rrf_fuse(shallow)


# --- over a bundle with acts and more decisions than one list holds ----------------------------------------------

DECISIONS = 8  # whole decisions of courts/ns_decisions_sample.jsonl: hundreds of passages, lists deeper than 50


@pytest.fixture(scope="module")
def searcher(tmp_path_factory, corpus):
    amending = {
        "doc_id": "/eli/cz/sb/2025/999",
        "title": "Zákon, kterým se mění zákon o zbraních a střelivu",
        "source": "esbirka",
        "doc_type": "law",
        "citation": "999/2025 Sb.",
        "url": "https://www.e-sbirka.cz/sb/2025/999",
        "published": "2025-12-01",
        "pages": ["Čl. I\nV § 10 zákona č. 90/2024 Sb. se slova „18 let“ nahrazují slovy „21 let“."],
    }
    docs = base_docs(corpus) + ns_decision_docs(DECISIONS, id_suffix="#whole", original=False) + [amending]
    return Searcher.latest(build_bundle(tmp_path_factory.mktemp("bundles"), docs).parent, embedder=EMBEDDER)


def test_act_rows_hold_the_acts_and_leave_out_amending_acts_and_decisions(searcher):
    rows = searcher.act_rows(searcher.passages)
    held = {searcher.chunks[i]["citation"] for i in range(len(searcher.chunks)) if rows[i]}
    assert "175/2025 Sb." in held and "999/2025 Sb." not in held
    assert not any(searcher.chunks[i]["source"] == "nsoud" for i in range(len(searcher.chunks)) if rows[i])


@pytest.mark.parametrize("spans", [((1, 3),), ((2, 2), (5, 6)), ((9_000, 9_999),)])  # the bundle holds §§ 1–7
def test_the_part_of_a_governing_act_is_the_chunks_of_its_sections_in_the_spans(searcher, spans):
    from serving.query.governing import GoverningAct
    from serving.ranking.governing_part import SECTION_NUMBER_RE

    act = GoverningAct("175/2025 Sb.", "zákon o podpoře bydlení", "housing", "bydlení", sections=spans)
    layer = searcher.passages
    expected = sorted(
        row
        for (citation, label), rows in layer.section_chunks.items()
        if citation == act.citation and (m := SECTION_NUMBER_RE.match(label)) and act.covers(int(m.group(1)))
        for row in rows
    )
    acts, part = searcher.governing_rows([act], layer)
    assert acts is not None and acts[expected].all()
    assert (sorted(np.flatnonzero(part).tolist()) if part is not None else []) == expected
    assert (part is None) == (spans[0][0] == 9_000)


@pytest.mark.parametrize(
    "query",
    ["Nejvyšší soud rozhodl o dovolání", "dovolání odmítnuto", "Jaká je náhrada za jízdu autem?", "soud žalobce"],
)
def test_first_hits_do_not_depend_on_k(searcher, query):
    assert len(searcher.dense_ranking(query, n=200)) > CANDIDATES  # the lists go deeper than a search for 10
    ten = searcher.search(query, k=10)
    hundred = searcher.search(query, k=100)
    assert len(hundred) > CANDIDATES
    assert [(h.chunk_id, h.lists) for h in ten] == [(h.chunk_id, h.lists) for h in hundred[:10]]


def test_a_lay_question_also_searches_the_acts_and_keeps_its_fused_order(searcher, monkeypatch):
    monkeypatch.setattr(searcher, "lay_fusion", None)  # no lay stage stored: the fused order stands
    query = "Jaká je náhrada za jízdu autem?"
    trace: list = []
    hits = searcher.search(query, k=10, trace=trace)
    fused, ranked, _ = trace[0]
    assert ranked.signals.lay and {"acts_bm25", "acts_dense"} <= {name for _, _, lists in fused for name in lists}
    assert {"bm25", "dense", "acts_bm25", "acts_dense"} <= set(ranked.signals.rankings)  # what the lay stage reads
    assert ranked.signals.weights["acts_bm25"] == ACTS_WEIGHTS["acts_bm25"]
    assert [h.chunk_id for h in hits] == [searcher.chunks[item]["chunk_id"] for item, _, _ in fused[:10]]
    without = searcher.search(query, k=10, acts=False)
    assert all(not {"acts_bm25", "acts_dense"} & set(h.lists) for h in without)
    assert hits[0].source == "esbirka"


@pytest.mark.parametrize("query", ["žadatel o podporu bydlení podle 175/2025 Sb.", "Jaká je náhrada za jízdu autem?"])
def test_a_graph_walk_that_missed_the_acts_gets_them_read_exactly_beside_it(searcher, monkeypatch, query):
    """Through an approximate graph a dense list may miss the acts' passages (a minority among decisions); they
    are read exactly and join it by similarity, so the list is the exact one."""
    from concurrent.futures import Future

    from serving.query.analyze import understand

    exact = searcher.dense_scored(searcher.dense_text(understand(query), True), n=CANDIDATES)  # what rank() searches
    acts = searcher.act_rows(searcher.passages)
    started = searcher.dense_pending

    def walked(text, n=CANDIDATES, allowed=None, layer=None):
        if allowed is not None:
            return started(text, n=n, allowed=allowed, layer=layer)
        rows, sims = started(text, n=n, allowed=allowed, layer=layer).result()
        missed: Future = Future()  # a walk that found no act's passage
        missed.set_result(([r for r in rows if not acts[r]], [s for r, s in zip(rows, sims) if not acts[r]]))
        return missed

    monkeypatch.setattr(searcher, "dense_pending", walked)
    monkeypatch.setattr(searcher, "graph_searched", lambda layer: False)
    missing = searcher.rank(query).signals.dense
    assert any(acts[r] for r in exact[0]) and missing != exact[0]  # the walk's miss shows without the exact read
    monkeypatch.setattr(searcher, "graph_searched", lambda layer: True)
    ranked = searcher.rank(query)
    assert ranked.signals.dense == exact[0]
    assert ranked.signals.dense_sims == pytest.approx(exact[1])


@pytest.mark.parametrize(
    "part, allowed, rows",
    [
        ([0, 1, 1, 0, 1], None, [1, 2, 4]),  # the part's passages, in the order the layer holds them
        ([0, 1, 1, 0, 1], [1, 0, 1, 1, 1], [2, 4]),  # within a filter
        ([1] * (SMALL_PART_PASSAGES + 1), None, []),  # a part too large to stand in whole
        ([0, 0, 0], None, []),
        (None, None, []),  # no part
    ],
)
def test_a_small_part_stands_in_whole_in_the_codes_order(part, allowed, rows):
    mask = None if part is None else np.array(part, dtype=bool)
    assert small_part_in_order(mask, None if allowed is None else np.array(allowed, dtype=bool)) == rows


PART_FUSED = [(1, 0.09, ["bm25"]), (2, 0.08, ["dense"]), (3, 0.07, []), (4, 0.06, []), (5, 0.05, ["governing"])]


@pytest.mark.parametrize(
    ("governing", "part", "order"),
    [
        ([5, 4], {5, 4}, [1, 5, 2, 3, 4]),  # the part's first passage in the governing list takes rank 2
        ([4, 5], {5, 4}, [1, 4, 2, 3, 5]),  # ... the governing list's first, not the fused list's
        ([9], {9}, [1, 9, 2, 3, 4, 5]),  # one the fused list did not hold joins
        ([5], {5, 2}, [1, 2, 3, 4, 5]),  # a passage of the part already stands at rank 2: nothing moves
        ([5], {5, 1}, [1, 2, 3, 4, 5]),  # ... or at rank 1
        ([3, 5], {5}, [1, 2, 3, 4, 5]),  # the governing list's first lies outside the part: nothing moves
        ([], {5}, [1, 2, 3, 4, 5]),  # no governing list
        ([5], set(), [1, 2, 3, 4, 5]),  # no part
    ],
)
def test_the_first_passage_of_the_questions_part_stands_at_rank_two(governing, part, order):
    slotted = with_part_slot(PART_FUSED, governing, part)
    assert [item for item, _, _ in slotted] == order
    scores = [score for _, score, _ in slotted]
    assert scores == sorted(scores, reverse=True)  # the order the scores say
    moved = [lists for item, _, lists in slotted if "part" in lists]
    assert len(moved) == (order != [1, 2, 3, 4, 5])
    if order[1] == 5:
        assert moved == [["part", "governing"]]  # the lists it came from stay named


DECISIONS_FIRST = [(item, 0.1 - item / 100, ["decision_lead", "bm25"]) for item in range(1, 11)] + [
    (11, 0.001, ["governing"])
]


@pytest.mark.parametrize(
    ("fused", "part", "order"),
    [
        (DECISIONS_FIRST, {11}, [1, 11, *range(2, 11)]),  # ten decisions led: the part is back at rank 2
        (PART_FUSED, {3}, [1, 2, 3, 4, 5]),  # the part stands at rank 3: a decision's slot at 2 stays
        (PART_FUSED, {5}, [1, 5, 2, 3, 4]),  # at rank 5: it takes rank 2
        (DECISIONS_FIRST, set(), [*range(1, 12)]),  # no part
    ],
)
def test_the_part_keeps_a_place_among_the_first_three_after_the_decision_rules(fused, part, order):
    governing = sorted(part)
    assert [item for item, _, _ in with_part_kept(fused, governing, part)] == order


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("§ 205\nKrádež\n(1) Kdo si přisvojí cizí věc", ["§ 205", "Krádež"]),
        ("§ 2286\n(1) Výpověď nájmu vyžaduje písemnou formu", ["§ 2286"]),
        ("HLAVA II\nVymezení některých pojmů\n§ 2\nVyhovující bydlení\nVyhovujícím bydlením se", None),
        ("§ 4\nPodpůrná opatření v bydlení\nPodpůrnými opatřeními podle tohoto zákona jsou", None),
        ("§ 5\nPotřebným se pro účely tohoto zákona rozumí osoba, u které je v evidenci podpory bydlení", ["§ 5"]),
    ],
)
def test_heading_lines_leave_the_wording_out(text, heading):
    lines = heading_lines({"section": "ČÁST PRVNÍ", "text": text})
    expected = heading or [line for line in text.splitlines()[:-1]]
    assert lines == ["ČÁST PRVNÍ"] + expected


@pytest.fixture(scope="module")
def layered(tmp_path_factory, corpus):
    return Searcher.latest(
        build_bundle(tmp_path_factory.mktemp("layered"), base_docs(corpus), layers=True).parent, embedder=EMBEDDER
    )


def test_the_part_of_an_act_is_where_its_headings_carry_the_question(layered):
    part = layered.heading_part("kdo je podporovaná osoba", ["175/2025 Sb."])
    sections = {layered.chunks[row]["section"].rsplit(" > ", 1)[-1] for row in np.flatnonzero(part)}
    assert "§ 7" in sections  # "§ 7 Podporovaná osoba"
    # words only the sections' wording holds, or only the act's name ("bydlení"), choose no part
    assert layered.heading_part("pro účely tohoto zákona", ["175/2025 Sb."]) is None
    assert layered.heading_part("podpora bydlení", ["175/2025 Sb."]) is None


@pytest.mark.parametrize(
    "question, plain, plain_with_offices",
    [
        ("Jaké penále mi vyměří finanční úřad, když mi doměří daň?", False, True),  # a kind of office
        ("Jak dlouho má úřad na vydání rozhodnutí?", True, True),
        ("Kdy rozhodne Finanční úřad pro Jihomoravský kraj?", False, False),  # one office, by its name
    ],
)
def test_a_kind_of_office_leaves_a_question_plain_for_its_governing_act(question, plain, plain_with_offices):
    found = understand(question)
    assert QueryLists.plain_question(found) is plain
    assert QueryLists.plain_question(found, offices=True) is plain_with_offices


def test_bm25s_first_passages_lead_when_bm25_and_dense_agree_on_decisions(searcher):
    def is_decision(item: int) -> bool:
        return searcher.documents[searcher.chunks[item]["doc_id"]].get("doc_type") == "decision"

    query = "zaměstnavatel dal výpověď zaměstnanci pro nadbytečnost"
    trace: list = []
    hits = searcher.search(query, k=10, trace=trace)
    signals = trace[0][1].signals
    assert decisions_agreed(signals.bm25, signals.bm25_scores, signals.dense, is_decision)
    # BM25's first ten of the query's own words (without the bridge's legal wordings)
    plain = searcher.bm25_ranking(understand(query, searcher.lexicon).normalized, n=10)
    assert plain != signals.bm25[:10]  # the bridge adds words to this query and reorders BM25's list
    assert plain and [h.chunk_id for h in hits[: len(plain)]] == [searcher.chunks[item]["chunk_id"] for item in plain]
    assert [h.lists[0] == "decision_lead" for h in hits] == [i < len(plain) for i in range(len(hits))]
    # a filter that leaves only decisions makes the lists agree by itself: no lead there
    filtered = searcher.search(query, k=10, filters={"doc_type": "decision"})
    assert filtered and not any("decision_lead" in h.lists for h in filtered)
