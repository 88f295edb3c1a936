"""The lay list (serving.ranking.wordings_list): the acts' provisions nearest a lay question by their own everyday
wordings' vectors, and those whose wordings hold its words, each as its first passage the search may show; read
from a bundle's ``wordings`` part."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mendel.index.layout import BUILD_INFO, WORDING_KEYS, WORDING_VECTORS, WORDINGS_PART
from serving.ranking.search import Searcher
from serving.ranking.wordings_list import WordingsList
from tests.support.bundle import EMBEDDER, base_docs, build_bundle, load_corpus

UNIT = np.eye(3, dtype=np.float32)


@pytest.mark.parametrize(
    ("vector", "allowed", "n", "expected"),
    [
        ([1, 0, 0], None, 3, [10, 20, 30]),  # nearest provision first, each as its first passage
        ([0, 1, 0], None, 3, [20, 10, 30]),
        ([0, 1, 0], None, 1, [20]),  # at most n
        ([0, 1, 0], [11, 30], 3, [11, 30]),  # the first passage the filter allows; none allowed: passed over
        ([0.1, 0.2, 0.9], [], 3, []),
    ],
)
def test_nearest_provisions_as_their_first_allowed_passage(vector, allowed, n, expected):
    wordings = WordingsList(UNIT, [[10, 11], [20, 21], [30]])
    mask = None
    if allowed is not None:
        mask = np.zeros(40, dtype=bool)
        mask[allowed] = True
    assert wordings.ranking(np.asarray(vector, dtype=np.float32), n, mask) == expected


def _write_part(root, keys, vectors, model="test/hashed-bow"):
    part = root / WORDINGS_PART
    part.mkdir(parents=True, exist_ok=True)
    with open(part / WORDING_VECTORS, "wb") as handle:
        np.save(handle, np.asarray(vectors, dtype=np.float32))
    (part / WORDING_KEYS).write_text(json.dumps({"model": model, "keys": keys}), encoding="utf-8")
    (part / BUILD_INFO).write_text("{}", encoding="utf-8")


CHUNKS = [
    {"citation": "89/2012 Sb.", "section": "díl 15 > Sázka > § 2874"},
    {"citation": "89/2012 Sb.", "section": "díl 15 > Sázka > § 2874"},
    {"citation": "1/1993 Sb.", "section": "HLAVA DRUHÁ > Čl. 16"},
    {"citation": "1 Cdo 1/2020", "section": "§ 2874"},  # a decision's passage: not an act's row
    {"citation": "89/2012 Sb.", "section": "§ 1"},  # no wordings
]


def test_loads_the_part_over_the_acts_rows(tmp_path):
    _write_part(tmp_path, [["1/1993 Sb.", "čl. 16"], ["40/2009 Sb.", "§ 205"], ["89/2012 Sb.", "§ 2874"]], UNIT)
    acts = np.array([True, True, True, False, True])
    wordings = WordingsList.load(tmp_path, CHUNKS, acts, "test/hashed-bow")
    assert wordings is not None and len(wordings) == 2  # the criminal code's § is not in this layer
    assert wordings.rows == [[2], [0, 1]]
    assert wordings.ranking(UNIT[2], 2) == [0, 2]


@pytest.mark.parametrize(
    ("write", "acts", "model"),
    [
        (False, [True] * 5, "test/hashed-bow"),  # a bundle published before the part
        (True, [True] * 5, "e5-small/other"),  # another model's vectors: never beside this bundle's
        (True, None, "test/hashed-bow"),  # a layer without acts
        (True, [False] * 5, "test/hashed-bow"),  # no worded provision among the acts' rows
    ],
)
def test_no_list_without_a_part_this_bundle_can_read(tmp_path, write, acts, model):
    if write:
        _write_part(tmp_path, [["89/2012 Sb.", "§ 2874"]], UNIT[:1])
    mask = None if acts is None else np.array(acts)
    assert WordingsList.load(tmp_path, CHUNKS, mask, model) is None


@pytest.fixture(scope="module")
def worded(tmp_path_factory):
    """The small bundle of real documents with a wordings part for its acts' provisions (the test embedder's)."""
    path = build_bundle(tmp_path_factory.mktemp("wl") / "bundles", base_docs(load_corpus()))
    searcher = Searcher(path, embedder=EMBEDDER)
    keys = []
    for chunk in searcher.chunks:
        last = (chunk.get("section") or "").rsplit(" > ", 1)[-1]
        if chunk.get("citation") == "573/2025 Sb." and last.startswith("§") and [chunk["citation"], last] not in keys:
            keys.append([chunk["citation"], last])
    searcher.close()
    assert keys, "the small bundle holds the travel-allowance decree's provisions"
    texts = ["kolik dostanu na jídlo na služební cestě"] + ["peníze za ujeté kilometry vlastním autem"] * (
        len(keys) - 1
    )
    _write_part(path, keys, EMBEDDER.passages(texts), EMBEDDER.name)
    searcher = Searcher(path, embedder=EMBEDDER)
    yield searcher, keys
    searcher.close()


def test_a_lay_question_searches_the_provisions_by_their_wordings(worded):
    searcher, keys = worded
    trace: list = []
    searcher.search("kolik dostanu na jídlo na služební cestě", k=10, trace=trace)
    _, ranked, _ = trace[0]
    assert ranked.signals.lay and ranked.signals.rankings.get("wordings")
    first = searcher.chunks[ranked.signals.rankings["wordings"][0]]
    assert [first["citation"], first["section"].rsplit(" > ", 1)[-1]] == keys[0]  # its own wordings nearest
    assert "wordings" in ranked.signals.weights
    other: list = []
    searcher.search("rozsudek Nejvyššího soudu 1 Cdo 1/2020", k=5, trace=other)
    assert "wordings" not in other[0][1].signals.rankings  # not a lay question


@pytest.mark.parametrize(
    ("query", "allowed", "expected"),
    [
        ("sex s 14letou trestný", None, [30, 10]),  # the wordings holding more of its words first
        ("SEX", None, [10, 30]),  # the words as the analyser reads them; of equal matches the shorter first
        ("sex", [11, 12], [11]),  # the first passage the filter allows; none allowed: passed over
        ("nájem bytu", None, []),  # no word of the wordings: no list, not a list of everything
        ("", None, []),
    ],
)
def test_provisions_whose_wordings_hold_the_questions_words(query, allowed, expected):
    texts = ["sex s kamarádkou", "sázka s kamarádem o peníze", "sex s dítětem pod 15 let; trestný čin"]
    wordings = WordingsList(UNIT, [[10, 11], [20, 21], [30]], texts)
    mask = None
    if allowed is not None:
        mask = np.zeros(40, dtype=bool)
        mask[allowed] = True
    assert wordings.lexical_ranking(query, 5, mask) == expected


@pytest.mark.parametrize("texts", [None, [], ["", "a", "?"]])
def test_no_lexical_list_without_words(texts):
    assert WordingsList(UNIT, [[10], [20], [30]], texts).lexical_ranking("sex a", 5) == []


@pytest.mark.parametrize(
    ("section", "query"),
    [
        ("hlava 3 > Pohlavní zneužití > § 187", "sex s 14letou"),  # the provision's own wording
        ("hlava 5 > Krádež > § 205", "to je zlodějna"),  # its heading's alone ("Krádež": "zlodějna", ...)
    ],
)
def test_a_part_is_searched_by_the_words_of_its_provisions_and_their_headings(tmp_path, section, query):
    _write_part(tmp_path, [["40/2009 Sb.", "§ 187"], ["40/2009 Sb.", "§ 205"]], UNIT[:2])
    chunks = [{"citation": "40/2009 Sb.", "section": section}, {"citation": "89/2012 Sb.", "section": "§ 1"}]
    wordings = WordingsList.load(tmp_path, chunks, np.array([True, True]), "test/hashed-bow")
    assert wordings is not None and len(wordings) == 1
    assert wordings.lexical_ranking(query, 5) == [0]
    assert wordings.lexical_ranking("nájem bytu", 5) == []
