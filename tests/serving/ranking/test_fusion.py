"""The learned stage's features (serving.ranking.fusion): telling an amendment clause by its words first answers
exactly as the expression alone, on real decisions of the sample corpus and on each form of the expression. And the
rank a court decision's passage keeps among the acts' passages when BM25 ranks it first (with_decision_slot, the
ranking it considers chosen by slot_ranking), and
BM25's own first passages leading when BM25 and dense agree that court decisions answer (decisions_agreed), and a
decision's passage both rank first leading (with_agreed_decision_first), and a decision both rank among their first
passages kept at rank 2 (with_agreed_decision_slot)."""

from __future__ import annotations

import json

import pytest

from mendel.core.config import SAMPLE_CORPUS
from serving.ranking.decision_rules import (
    decisions_agreed,
    is_story,
    slot_ranking,
    with_agreed_decision_first,
    with_agreed_decision_slot,
    with_decision_slot,
    with_decisions_first,
    with_decisions_leading,
)
from serving.ranking.fusion import (
    AMENDMENT_RE,
    AMENDMENT_WORDS,
    is_amendment,
)


@pytest.mark.parametrize(
    ("text", "amendment"),
    [
        ("Zákon č. 99/1963 Sb. se mění takto:", True),
        ("V § 5 odstavec 2 se zrušuje.", True),
        ("V § 5 se odstavec 2 zrušuje.", False),  # "se" must come right before it
        ("V § 7 SE VKLÁDÁ nový odstavec", True),
        ("slova „do 30 dnů“ se nahrazují slovy „do 60 dnů“", False),  # "slov" whole, then "se slova „"...
        ("a dále se slova „do 30 dnů“ zrušují", True),  # ...as here
        ("za slovo „soud“ se slova „nebo úřad“ vkládají", True),
        ("Odstavec 3 zní: „(3) Obec", False),  # after the colon the expression wants a word character
        ("Odstavec 3 zní:obec", True),
        ("po novele zákona", True),
        ("ſe zrušuje", True),  # the long s is an s to the expression
        ("podle zrušujícího rozhodnutí", False),  # the word, not the form
        ("xnovela", False),  # no word boundary before it
        ("slovo „soud“ ve větě první", False),
        ("Soud rozhodl o dovolání.", False),
        ("", False),
    ],
)
def test_each_form_is_told_as_the_expression_tells_it(text, amendment):
    assert is_amendment(text) is amendment
    assert (AMENDMENT_RE.search(text) is not None) is amendment


def test_real_texts_are_told_as_the_expression_tells_them():
    """Decisions of the supreme court and versions of an act, in the 600 characters candidate_features reads."""
    fulls = [
        json.loads(line)["full_text"]
        for path in sorted((SAMPLE_CORPUS / "courts").glob("ns_decisions*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    fulls += [
        path.read_text(encoding="utf-8") for path in sorted((SAMPLE_CORPUS / "esbirka" / "versions").glob("*.md"))
    ]
    texts = [full[start : start + 600] for full in fulls for start in range(0, len(full), 250)]
    found = [is_amendment(text) for text in texts]
    assert found == [AMENDMENT_RE.search(text) is not None for text in texts]
    assert len(texts) > 500 and 0 < sum(found) < len(texts)  # both answers occur


def test_what_is_amendment_assumes_of_each_form_of_the_expression():
    """Each form starts with an s, n or z and holds one of the words (or all of a tuple): change the expression,
    change these too."""
    body = AMENDMENT_RE.pattern
    assert body.startswith(r"\b(?:") and body.endswith(r")\b")
    forms = body[len(r"\b(?:") : -len(r")\b")].split("|")
    assert len(forms) == len(AMENDMENT_WORDS)
    for form, words in zip(forms, AMENDMENT_WORDS):
        assert form[0].lower() in "snz", form
        for word in (words,) if isinstance(words, str) else words:
            assert word in form.replace(r"\s+", " ").lower(), (form, word)


# Items 1..5 are act passages (docs A..E); 7 and 8 are two passages of decision D, 9 one of decision E2.
SLOT_DOCS = {1: "A", 2: "B", 3: "C", 4: "Dx", 5: "Ex", 7: "D", 8: "D", 9: "E2"}
SLOT_FUSED = [(1, 0.09, ["acts_dense"]), (2, 0.08, ["routed"]), (3, 0.07, ["bm25"]), (4, 0.06, []), (7, 0.05, ["bm25"])]
WORDS_LEAD = [(1, 0.09, ["bm25", "acts_bm25", "wordings_bm25"]), *SLOT_FUSED[1:]]  # its first found by words alone


@pytest.mark.parametrize(
    "fused, bm25, expected_order",
    [
        (SLOT_FUSED, [7, 1], [1, 2, 7, 3, 4]),  # BM25's first is a decision below rank 3: it takes rank 3
        (SLOT_FUSED, [9, 1], [1, 2, 9, 3, 4, 7]),  # one the fused list did not hold at all joins at rank 3
        (SLOT_FUSED, [1, 7], [1, 2, 3, 4, 7]),  # BM25's first is an act's passage: nothing moves
        ([(1, 0.09, []), (8, 0.08, []), (2, 0.07, []), (7, 0.06, [])], [7], [1, 8, 2, 7]),  # its decision is shown
        ([(1, 0.09, []), (7, 0.08, []), (2, 0.07, [])], [7], [1, 7, 2]),  # already in the first three
        ([(1, 0.09, []), (2, 0.08, [])], [7], [1, 2]),  # fewer hits than the slot: nothing to make room in
        (SLOT_FUSED, [], [1, 2, 3, 4, 7]),
        (WORDS_LEAD, [7, 1], [7, 1, 2, 3, 4]),  # the acts' first rests on the words alone: the decision leads
        (WORDS_LEAD, [9, 1], [9, 1, 2, 3, 4, 7]),
        (WORDS_LEAD, [1, 7], [1, 2, 3, 4, 7]),  # BM25's first is an act's passage: nothing moves
        ([(8, 0.09, ["bm25"]), (1, 0.08, []), (2, 0.07, [])], [7], [8, 1, 2]),  # the decision leads already
        ([(1, 0.09, ["wordings", "dense"]), (2, 0.08, []), (3, 0.07, []), (7, 0.06, ["bm25"])], [7], [1, 2, 7, 3]),
        ([(1, 0.09, ["bm25", "governing"]), (2, 0.08, []), (3, 0.07, []), (7, 0.06, ["bm25"])], [7], [1, 2, 7, 3]),
    ],
)
def test_the_decision_bm25_ranks_first_keeps_rank_three(fused, bm25, expected_order):
    slotted = with_decision_slot(fused, bm25, SLOT_DOCS.__getitem__, lambda item: item in (7, 8, 9))
    assert [item for item, _, _ in slotted] == expected_order
    scores = [score for _, score, _ in slotted]
    assert scores == sorted(scores, reverse=True)  # the order the scores say
    moved = [entry for entry in slotted if "decision_slot" in entry[2]]
    assert len(moved) == (expected_order != [item for item, _, _ in fused])
    if moved and moved[0][0] == 7:
        assert moved[0][2] == ["decision_slot", "bm25"]  # the lists it came from stay named


@pytest.mark.parametrize(
    "bm25, plain, considered, plain_asked",
    [
        ([7, 1], [9, 1], [9, 1], True),  # both firsts are decisions': the query's own words choose which
        ([7, 1], [1, 9], [7, 1], True),  # the plain first is an act's: the bridged ranking's decision stays
        ([7, 1], [], [7, 1], True),  # the plain search found nothing
        ([1, 7], [9, 1], [1, 7], False),  # the bridged first is an act's: no slot, and no second search
        ([], [9], [], False),
    ],
)
def test_the_slot_considers_the_query_s_own_words_when_both_firsts_are_decisions(bm25, plain, considered, plain_asked):
    asked = []

    def plain_search():
        asked.append(True)
        return plain

    assert slot_ranking(bm25, plain_search, lambda item: item in (7, 8, 9)) == considered
    assert bool(asked) is plain_asked


# Items 7..9 and 11..19 are court decisions' passages; 1..5 acts' passages.
DECISION_ITEMS = frozenset({7, 8, 9, *range(11, 20)})
AGREED_BM25 = [11, 12, 13, 14, 15, 16, 17, 18, 19, 7, 1]  # ten decisions' passages, then an act's
AGREED_DENSE = [12, 11, 9, 8, 7, 13, 14, 15, 16, 17]


@pytest.mark.parametrize(
    "bm25, scores, dense, agreed",
    [
        (AGREED_BM25, [9.0] + [5.0] * 9 + [6.0], AGREED_DENSE, True),  # 9.0 >= 1.5 x 6.0: the components agree
        (AGREED_BM25, [8.0] + [5.0] * 9 + [6.0], AGREED_DENSE, False),  # 8.0 < 1.5 x 6.0: an act's passage is near
        (AGREED_BM25[:10], [2.0] * 10, AGREED_DENSE, True),  # BM25 found nothing of another kind
        ([1] + AGREED_BM25[:9], [9.0] + [5.0] * 9, AGREED_DENSE, False),  # BM25's first ten hold an act's passage
        (AGREED_BM25, [9.0] + [5.0] * 9 + [6.0], AGREED_DENSE[:9] + [2], False),  # so do dense's
        (AGREED_BM25, [9.0] + [5.0] * 9 + [6.0], AGREED_DENSE[:9], False),  # dense found fewer than ten
        (AGREED_BM25, [9.0] + [5.0] * 9 + [6.0], [], False),  # no dense list (dense=False)
    ],
)
def test_bm25_and_dense_agree_that_decisions_answer(bm25, scores, dense, agreed):
    assert decisions_agreed(bm25, scores, dense, DECISION_ITEMS.__contains__) is agreed


@pytest.mark.parametrize(
    "fused, bm25, own, expected_order",
    [
        # the acts' passages led; BM25's first three lead now, in its order, the rest as fused
        (
            [(1, 0.9, ["acts_bm25"]), (2, 0.8, ["routed"]), (12, 0.7, ["bm25"]), (11, 0.6, ["bm25"])],
            [11, 12],
            [],
            [11, 12, 1, 2],
        ),
        # the exact reference's own passage still leads
        (
            [(3, 0.9, ["reference"]), (1, 0.8, []), (12, 0.7, ["bm25"]), (11, 0.6, ["bm25"])],
            [11, 12],
            [3],
            [3, 11, 12, 1],
        ),
        # a BM25 passage the fused list did not hold joins among them
        ([(1, 0.9, []), (11, 0.8, ["bm25"])], [13, 11], [], [13, 11, 1]),
    ],
)
def test_bm25s_first_passages_lead_when_the_components_agree(fused, bm25, own, expected_order):
    led = with_decisions_leading(fused, bm25, own, depth=2)
    assert [item for item, _, _ in led] == expected_order
    assert [score for _, score, _ in led][: len(fused)] == sorted((s for _, s, _ in fused), reverse=True)
    lists = {item: names for item, _, names in led}
    assert all(lists[item][0] == "decision_lead" for item in bm25[:2] if item not in own)
    assert all("decision_lead" not in lists[item] for item in expected_order if item not in bm25[:2])
    assert lists.get(11, [None, None])[1:] == ["bm25"]  # the lists it came from stay named


AGREED_FUSED = [(1, 0.9, ["acts_dense"]), (2, 0.8, ["routed"]), (11, 0.7, ["bm25", "dense"]), (12, 0.6, ["bm25"])]


@pytest.mark.parametrize(
    ("plain_first", "dense", "own", "expected_order"),
    [
        # BM25's first of the query's own words is a decision's passage dense ranks third: it leads
        (11, [2, 1, 11], [], [11, 1, 2, 12]),
        (13, [13], [], [13, 1, 2, 11, 12]),  # one the fused list did not hold joins at the head
        (11, [2, 1, 12, 11], [], [1, 2, 11, 12]),  # dense ranks it fourth: no agreement
        (1, [1], [], [1, 2, 11, 12]),  # an act's passage: the fused order stands
        (12, [12], [2], [2, 12, 1, 11]),  # the exact reference's own passage still leads
        (2, [2], [2], [1, 2, 11, 12]),  # it is the reference's own: nothing moves
        (None, [11], [], [1, 2, 11, 12]),  # BM25 found nothing
    ],
)
def test_a_decision_bm25_and_dense_agree_on_leads(plain_first, dense, own, expected_order):
    led = with_agreed_decision_first(AGREED_FUSED, plain_first, dense, lambda item: item > 10, own)
    assert [item for item, _, _ in led] == expected_order
    lists = {item: names for item, _, names in led}
    moved = expected_order != [item for item, _, _ in AGREED_FUSED]
    assert (lists[plain_first][0] == "agreed") is moved if plain_first in lists else not moved
    if moved:
        assert lists[plain_first][1:] == dict((i, n) for i, _, n in AGREED_FUSED).get(plain_first, ["bm25", "dense"])
        assert led[len(own)][1] == 0.9  # scored as the fused first


# Items 11 and 13 are passages of one decision ("D1"), 12 of another ("D2"); 1 and 2 acts' passages.
AGREED_DOCS = {1: "A", 2: "B", 11: "D1", 13: "D1", 12: "D2"}


@pytest.mark.parametrize(
    ("plain_first", "dense", "story", "expected_order"),
    [
        (11, [2, 13], True, [11, 1, 2, 12]),  # a story: dense ranks another passage of its decision second
        (11, [2, 13], False, [1, 2, 11, 12]),  # a short question wants the same passage
        (11, [2, 1, 12, 13], True, [1, 2, 11, 12]),  # its decision's passage is fourth in dense: no agreement
        (12, [13], True, [1, 2, 11, 12]),  # dense's decision is another one
    ],
)
def test_a_story_s_question_agrees_on_the_decision_not_the_passage(plain_first, dense, story, expected_order):
    doc_of = AGREED_DOCS.__getitem__ if story else None
    led = with_agreed_decision_first(AGREED_FUSED, plain_first, dense, lambda item: item > 10, (), doc_of)
    assert [item for item, _, _ in led] == expected_order


@pytest.mark.parametrize(
    ("text", "story"),
    [
        ("Co hrozí za výtržnosti na veřejnosti?", False),
        ("Se sousedem jsme se kvůli parkovacímu místu před domem poprali, nikdo další u toho nebyl.", True),
        ("jedna dva tři čtyři pět šest sedm osm devět", False),
        ("jedna dva tři čtyři pět šest sedm osm devět deset", True),  # STORY_WORDS
    ],
)
def test_a_story_is_told_in_ten_words_or_more(text, story):
    assert is_story(text) is story


def test_a_decision_both_agree_on_stays_below_an_exact_references_passages():
    fused = [(5, 0.9, ["reference"]), (6, 0.8, ["reference", "bm25"]), (1, 0.7, ["dense"]), (11, 0.6, ["bm25"])]
    led = with_agreed_decision_first(fused, 11, [11], lambda item: item > 10)
    assert [item for item, _, _ in led] == [5, 6, 11, 1]
    assert with_agreed_decision_first(fused, 6, [6], lambda item: True) == fused  # a citing passage stays where it is


# passages: a decision's are 100 and up, its document the hundreds digit (101 and 102 are one decision's)
SLOT_FUSED = [(1, 0.9, ["wordings"]), (2, 0.8, ["acts_dense"]), (3, 0.7, ["acts_bm25"]), (101, 0.6, ["bm25"])]


@pytest.mark.parametrize(
    ("bm25", "dense", "own", "expected_order"),
    [
        # one decision among both lists' first five (BM25 its 101, dense its 102): dense's passage takes rank 2
        ([101, 1], [2, 102], [], [1, 102, 2, 3, 101]),
        ([101], [101], [], [1, 101, 2, 3]),  # the same passage: it moves up from rank 4
        ([1, 2, 3, 4, 5, 101], [101], [], [1, 2, 3, 101]),  # BM25's sixth: no agreement
        ([101], [1, 2, 3, 4, 5, 102], [], [1, 2, 3, 101]),  # dense's sixth: no agreement
        ([101, 201], [201, 101], [], [1, 201, 2, 3, 101]),  # the better rank sum (ties: dense's better passage)
        ([301, 101], [101, 301], [], [1, 101, 2, 3]),  # 1 + 1 against 2 + 0 and 0 + 2: dense's first of them
        ([1, 2], [1, 2], [], [1, 2, 3, 101]),  # acts' passages: the fused order stands
        ([101], [101], [2], [2, 1, 101, 3]),  # after the exact reference's own passage
        ([1], [1], [], [1, 2, 3, 101]),
    ],
)
def test_a_decision_both_lists_find_takes_rank_two(bm25, dense, own, expected_order):
    placed = with_agreed_decision_slot(SLOT_FUSED, bm25, dense, lambda item: item // 100, lambda item: item >= 100, own)
    assert [item for item, _, _ in placed] == expected_order
    lists = {item: names for item, _, names in placed}
    moved = [item for item in expected_order if lists[item][:1] == ["agreed"]]
    assert len(moved) <= 1 and all(expected_order.index(item) == len(own) + 1 for item in moved)
    below = placed[len(own) :]
    assert all(below[i][1] >= below[i + 1][1] for i in range(len(below) - 1))  # scores still descend


def test_a_decision_already_at_the_head_is_not_shown_twice():
    fused = [(102, 0.9, ["bm25"]), (1, 0.8, ["wordings"]), (2, 0.7, ["acts_dense"])]
    assert with_agreed_decision_slot(fused, [101], [101], lambda i: i // 100, lambda i: i >= 100) == fused
    cited = [(5, 0.9, ["reference"]), (6, 0.8, ["reference"]), (1, 0.7, ["wordings"]), (101, 0.6, ["dense"])]
    placed = with_agreed_decision_slot(cited, [101], [101], lambda i: i // 100, lambda i: i >= 100)
    assert [item for item, _, _ in placed] == [5, 6, 1, 101]  # rank 2 after the citing passages: already there


@pytest.mark.parametrize(
    ("fused", "own", "expected_order", "marked", "holds"),
    [
        # the decisions' passages first, each kind in fused order; the moved ones marked
        (SLOT_FUSED + [(4, 0.5, ["bm25"]), (201, 0.4, ["dense"])], [], [101, 201, 1, 2, 3, 4], [101, 201], True),
        # after the exact reference's own passage and the passages citing it that lead
        (
            [(2, 0.9, ["reference"]), (5, 0.8, ["reference"]), (1, 0.7, ["bm25"]), (101, 0.6, ["bm25"])],
            [2],
            [2, 5, 101, 1],
            [101],
            True,
        ),
        ([(101, 0.9, ["bm25"]), (1, 0.8, ["wordings"])], [], [101, 1], [], True),  # already first: nothing marked
        (SLOT_FUSED[:3], [], [1, 2, 3], [], False),  # no decision among them: the fused order, and says so
    ],
)
def test_a_question_asking_for_case_law_gets_the_decisions_first(fused, own, expected_order, marked, holds):
    placed, has_decisions = with_decisions_first(fused, lambda item: item >= 100, own)
    assert [item for item, _, _ in placed] == expected_order and has_decisions is holds
    assert [item for item, _, lists in placed if lists[:1] == ["case_law"]] == marked
    assert [score for _, score, _ in placed] == [score for _, score, _ in fused]  # the scores, in the new order
