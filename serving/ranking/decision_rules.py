"""Where a court decision's passage stands among the acts' passages a lay question weighs: BM25's first kept at a
slot, BM25's first passages leading when BM25 and dense agree that decisions answer, and a decision's passage both
lists rank first leading. Each rule takes the fused order (``serving.ranking.fusion``) and returns it reordered;
``serving.ranking.answer`` applies them, never in a filtered search."""

from __future__ import annotations

from serving.ranking.fusion import placed_at

# The rank a court decision's passage gets when BM25 ranks it first over the whole collection and the fused order
# (a lay question also weighs the acts' own passages) put no passage of that decision higher: on the dev set of
# decisions (retrieval_eval/questions/dev_decisions.jsonl) recall@10 0.472 -> 0.583, MRR 0.219 -> 0.270, for
# -0.001..-0.025 on the dev sets of the codes (a provision at rank 10 moves to 11); rank 2 traded more of both.
DECISION_SLOT = 3
# The lists whose agreement alone makes a weak first passage: word matches (BM25 over the passages, the acts' own
# passages, the acts' everyday wordings) and the wordings' nearest (derived text). A first passage no dense list of
# the passages' own text, no routing, governing act or exact reference found stands on the question's words alone
# ("nátlak" lifting the criminal code's sexual coercion for a question about a sale under the regime's pressure):
# there the decision BM25 ranks first leads instead. Dev decisions MRR 0.451 -> 0.469 (devdec-27 3 -> 1); it took
# the lead on 8 of the 497 dev questions searched (5 about acts the collection lacks), no other rank moved; counting
# the acts' dense list among the weak ones also took a code's § from rank 1 (devc5-25), counting dense 30 of them.
WEAK_LEAD_LISTS = frozenset({"bm25", "acts_bm25", "wordings", "wordings_bm25"})


def found_by_words_alone(lists: list[str]) -> bool:
    """Whether a passage found by ``lists`` rests on word matches alone (:data:`WEAK_LEAD_LISTS`)."""
    return bool(lists) and set(lists) <= WEAK_LEAD_LISTS


def with_decision_slot(
    fused: list[tuple], bm25: list[int], doc_of, is_decision, slot: int = DECISION_SLOT
) -> list[tuple]:
    """``fused`` with BM25's first passage at rank ``slot`` when it is a court decision's (``is_decision(item)``) and
    no passage of that decision (``doc_of(item)``) stands in the first ``slot`` -- at rank 1 when the fused first
    was found by words alone (:func:`found_by_words_alone`); scored between its new neighbours and marked
    "decision_slot" (with the lists it came from)."""
    if not bm25 or len(fused) < slot or not is_decision(bm25[0]):
        return fused
    if found_by_words_alone(fused[0][2]):
        slot = 1
    first = bm25[0]
    if doc_of(first) in {doc_of(item) for item, _, _ in fused[:slot]}:
        return fused
    return placed_at(fused, first, slot, "decision_slot", ["bm25"])


def slot_ranking(bm25: list[int], plain, is_decision) -> list[int]:
    """The BM25 ranking whose first passage :func:`with_decision_slot` considers: ``bm25`` (the query with the
    bridge's legal wordings), or ``plain()`` (BM25 of the query's own words, asked only here) when both lists' first
    passages are court decisions'. The bridge's wordings reach for the acts and can lift another decision first: on
    the dev set of decisions MRR 0.402 -> 0.410 (devdec-23 22 -> 3), no code question moved within the first ten;
    taking the plain first whenever it is a decision's (a slot far more often) put 18 code questions a rank lower."""
    if not bm25 or not is_decision(bm25[0]):
        return bm25
    words = plain()
    return words if words and is_decision(words[0]) else bm25


# BM25 and dense agree that court decisions answer a query when every one of both lists' first
# DECISIONS_AGREED_DEPTH passages is a decision's and BM25 scores its first at least DECISIONS_AGREED_RATIO times its
# best passage of any other kind: then BM25's first passages lead, in its order (BM25 is the better component on
# questions a decision answers; serving.ranking.answer orders them by BM25 of the query's own words, without the
# bridge's legal wordings). On the dev set of decisions (retrieval_eval/questions/dev_decisions.jsonl, any-gold
# recall@10 / MRR) 0.556 / 0.245 -> 0.611 / 0.320 in the order of BM25 with the bridge, 0.611 / 0.336 without it,
# the other dev sets unchanged. Without the ratio (the kinds alone) a code's provision the acts' lists ranked 2nd
# lost its place (dev codes keywords); at 1.3 one at rank 10 fell out (dev codes 5); the fused order of the same
# passages gained MRR +0.057, BM25 and dense fused +0.029 (BM25's order +0.075).
DECISIONS_AGREED_DEPTH = 10
DECISIONS_AGREED_RATIO = 1.5


def decisions_agreed(
    bm25: list[int],
    bm25_scores: list[float],
    dense: list[int],
    is_decision,
    depth: int = DECISIONS_AGREED_DEPTH,
    ratio: float = DECISIONS_AGREED_RATIO,
) -> bool:
    """Both lists' first ``depth`` items are court decisions' passages (``is_decision(item)``) and BM25 scores its
    first at least ``ratio`` times its best item of another kind (any score, when its list holds none)."""
    if len(bm25) < depth or len(dense) < depth:
        return False
    if not all(is_decision(item) for item in bm25[:depth]) or not all(is_decision(item) for item in dense[:depth]):
        return False
    other = next((score for item, score in zip(bm25, bm25_scores) if not is_decision(item)), None)
    return other is None or bm25_scores[0] >= ratio * other


def with_decisions_leading(
    fused: list[tuple], bm25: list[int], own: list[int] = (), depth: int = DECISIONS_AGREED_DEPTH
) -> list[tuple]:
    """``fused`` with BM25's first ``depth`` items first, in BM25's order and marked "decision_lead" (with the lists
    each came from), after the exact reference's ``own`` items (they lead, whatever else); the rest follow in fused
    order. Scores keep their values, in the new order."""
    lists_of = {item: lists for item, _, lists in fused}
    own = set(own)
    lead = [item for item, _, _ in fused if item in own]
    moved = [item for item in dict.fromkeys(bm25[:depth]) if item not in own]
    chosen = set(lead) | set(moved)
    order = lead + moved + [item for item, _, _ in fused if item not in chosen]
    scores = [score for _, score, _ in fused]
    scores += [scores[-1] if scores else 0.0] * (len(order) - len(scores))
    marked = set(moved)
    return [
        (item, score, ["decision_lead", *lists_of.get(item, ["bm25"])] if item in marked else lists_of[item])
        for item, score in zip(order, scores)
    ]


def reference_lead(fused: list[tuple], own) -> tuple[list[tuple], list[tuple]]:
    """``fused`` split into what leads whatever a decision rule does (the exact reference's ``own`` items and the
    passages citing it that lead the fused list, listed as "reference") and the rest, each in fused order."""
    own = set(own)
    lead = [entry for entry in fused if entry[0] in own]
    rest = [entry for entry in fused if entry[0] not in own]
    while rest and "reference" in rest[0][2]:  # an exact reference's citing passages lead too
        lead.append(rest.pop(0))
    return lead, rest


# BM25 of the query's own words ranks a court decision's passage first and dense ranks it among its first
# AGREED_DENSE_DEPTH: the two components, each the better one on some questions a decision answers, agree on it, so
# it leads (after an exact reference's own passages). Dev decisions (any-gold MRR) 0.322 -> 0.375, a code's § and an
# absent act's question one rank lower each (dev codes 4, dev absent); dense's first alone (depth 1) gained half.
AGREED_DENSE_DEPTH = 3
# A question telling its story (STORY_WORDS words or more) is answered by the decision on like facts: there the two
# agree when dense ranks any passage of the same decision that high (the two often pick different passages of
# one judgment). Dev decisions MRR 0.410 -> 0.451 (devdec-07, -17, -20: 2 -> 1), no other dev question moved; 8
# and 12 words gave the same ranks; with no length asked a short question for the statute ("Co hrozí za výtržnosti
# na veřejnosti?", devc-18) lost its § to a decision (1 -> 2).
STORY_WORDS = 10


def is_story(text: str) -> bool:
    """Whether a query tells a situation at length (at least ``STORY_WORDS`` words)."""
    return len(text.split()) >= STORY_WORDS


def with_agreed_decision_first(
    fused: list[tuple],
    plain_first: int | None,
    dense: list[int],
    is_decision,
    own: list[int] = (),
    doc_of=None,
) -> list[tuple]:
    """``fused`` with ``plain_first`` (BM25's first of the query's own words) leading, after the exact reference's
    ``own`` items and the passages citing it that lead the fused list (listed as "reference"), when it is a court
    decision's passage among dense's first ``AGREED_DENSE_DEPTH`` — or, given ``doc_of`` (a story's question), a
    passage of a decision dense ranks a passage of that high; marked "agreed" (with the lists it came from), scored as
    the fused first."""
    if plain_first is None or plain_first in own:
        return fused
    near = dense[:AGREED_DENSE_DEPTH]
    agreed = plain_first in near or (doc_of is not None and doc_of(plain_first) in {doc_of(item) for item in near})
    if not agreed or not is_decision(plain_first):
        return fused
    lead, rest = reference_lead(fused, own)
    if plain_first in {item for item, _, _ in lead}:
        return fused
    rest = [entry for entry in rest if entry[0] != plain_first]
    lists = next((lists for item, _, lists in fused if item == plain_first), ["bm25", "dense"])
    score = max((entry[1] for entry in fused), default=0.0)
    return lead + [(plain_first, score, ["agreed", *lists])] + rest


# A court decision both components find: passages of one decision among BM25's first AGREED_DOCUMENT_DEPTH and
# among dense's first as many. Its passage dense ranks highest takes rank AGREED_DOCUMENT_SLOT (after an exact
# reference's passages) unless a passage of that decision stands there or higher: the acts' own lists a lay
# question adds had buried such a decision at rank 9-38 (dev decisions, retrieval_eval/questions/dev_decisions.jsonl).
# Dev decisions recall@10 / MRR 0.486 / 0.346 -> 0.542 / 0.399, three code questions one rank lower (dev codes 2
# and 4: 2 -> 3, dev codes 5: 3 -> 4); leading (rank 1) gave 0.452 but the codes' MRR -0.02..-0.08, depth 3 +0.039 and
# depth 10 +0.047 with more code questions lower.
AGREED_DOCUMENT_DEPTH = 5
AGREED_DOCUMENT_SLOT = 2


def with_agreed_decision_slot(
    fused: list[tuple], bm25: list[int], dense: list[int], doc_of, is_decision, own: list[int] = ()
) -> list[tuple]:
    """``fused`` with the court decision (``is_decision(item)``, ``doc_of(item)``) that both ``bm25`` and ``dense``
    rank among their first ``AGREED_DOCUMENT_DEPTH`` (the best by the sum of the two ranks) at rank
    ``AGREED_DOCUMENT_SLOT`` after the exact reference's ``own`` items and the passages citing it that lead,
    represented by its passage dense ranks highest; marked "agreed" (with the lists it came from), scored as the
    passage above it."""
    first_in_dense: dict[str, tuple[int, int]] = {}
    for rank, item in enumerate(dense[:AGREED_DOCUMENT_DEPTH]):
        if is_decision(item):
            first_in_dense.setdefault(doc_of(item), (rank, item))
    agreed = [
        (rank + first_in_dense[doc_of(item)][0], *first_in_dense[doc_of(item)])  # a tie: dense's better
        for rank, item in enumerate(bm25[:AGREED_DOCUMENT_DEPTH])
        if is_decision(item) and doc_of(item) in first_in_dense
    ]
    if not agreed:
        return fused
    chosen = min(agreed)[2]
    lead, rest = reference_lead(fused, own)
    at = AGREED_DOCUMENT_SLOT - 1  # items of ``rest`` above the slot
    if doc_of(chosen) in {doc_of(item) for item, _, _ in lead + rest[: at + 1]}:
        return fused
    lists = next((lists for item, _, lists in fused if item == chosen), ["bm25", "dense"])
    rest = [entry for entry in rest if entry[0] != chosen]
    score = rest[at - 1][1] if 0 < at <= len(rest) else max((entry[1] for entry in fused), default=0.0)
    return lead + rest[:at] + [(chosen, score, ["agreed", *lists])] + rest[at:]


def with_decisions_first(fused: list[tuple], is_decision, own: list[int] = ()) -> tuple[list[tuple], bool]:
    """``fused`` with the court decisions' passages (``is_decision(item)``) first, in fused order, after the exact
    reference's ``own`` items and the passages citing it that lead the fused list; the rest follow in fused order,
    nothing left out. For a query asking for case law by name ("judikatura"). Scores keep their values, in the
    new order; moved passages are listed as "case_law". Also whether the list holds a decision's passage."""
    lead, rest = reference_lead(fused, own)
    decisions = [entry for entry in rest if is_decision(entry[0])]
    others = [entry for entry in rest if not is_decision(entry[0])]
    order = lead + decisions + others
    moved = {entry[0] for entry, before in zip(order, fused) if entry[0] != before[0] and is_decision(entry[0])}
    scores = [score for _, score, _ in fused]
    return [
        (item, score, ["case_law", *lists] if item in moved else lists)
        for (item, _, lists), score in zip(order, scores)
    ], bool(decisions) or any(is_decision(entry[0]) for entry in lead)
