"""A query naming a municipality ("svoz odpadu Blešno") or a year ("schválený rozpočet na rok 2026") asks for the
boards' documents of that place or year: among the positions the boards' documents hold, those lead -- the named
municipality's first, then those whose title carries the named year. Acts and decisions keep their positions in a
question (a question naming a town or a year may still be answered by an act); a keyword search naming a town puts
that town's board documents before them too."""

from __future__ import annotations

import functools
import re

from mendel.czech.analyzer import analyze
from serving.ranking.decision_rules import reference_lead

# A year written as a year ("2026", "v roce 2019"; "2025-2026" gives both), not a part of a number/year or a date
# ("3/2021", "7.3.2025"), nor an amount or a count ("2000 Kč", "2000 hodin").
YEAR_RE = re.compile(
    r"(?<![\d/.,])(?:19[5-9]\d|20[0-4]\d)(?![\d/]|[.,]\d|\s*(?:Kč|Kc|kč|kc|korun|EUR|€|%|hod|km|m\b|m2|let\b|kg|ks\b|lid|osob|obyvatel))"
)


def years_named(text: str) -> list[str]:
    """The years ``text`` names as years, in order of first mention."""
    return list(dict.fromkeys(YEAR_RE.findall(text)))


def with_boards_ordered(
    fused: list[tuple], board_of, places: set[str], years: list[str], words: set[str] = frozenset()
) -> tuple[list[tuple], set[str]]:
    """``fused`` with the positions held by the boards' documents refilled: first those of the named ``places``,
    then those whose title carries one of ``years`` and one of the query's other ``words`` (analysed terms), then
    the rest, each group in fused order (a place's documents of the year first among the place's); every other
    passage keeps its position, nothing is left out. ``board_of(item)``: (the municipality whose board holds the
    item's document or "", its title) for a board's document, None for any other. Scores keep their positions; a
    passage moved up is listed as "place" or "year". Also which of "place" and "year" moved a passage."""
    boards = {item: board for item, _, _ in fused if (board := board_of(item)) is not None}  # read once each
    slots = [position for position, (item, _, _) in enumerate(fused) if item in boards]

    def named(place: str, title: str) -> tuple[bool, bool]:
        # the year alone is no topic: "Rozpočet 2020" does not answer "uzavírka 2020"
        dated = any(year in title for year in years) and shares_a_word(words, title_terms(title))
        return place in places, dated

    wanted = {item: named(*board) for item, board in boards.items()}
    held = [fused[position] for position in slots]
    before = {entry[0]: rank for rank, entry in enumerate(held)}
    order = sorted(held, key=lambda entry: [not hit for hit in wanted[entry[0]]])
    placed = list(fused)
    moved: set[str] = set()
    for rank, (position, (item, _, lists)) in enumerate(zip(slots, order)):
        reasons = [name for name, hit in zip(("place", "year"), wanted[item]) if hit]
        if reasons and rank < before[item]:  # moved up for what the query names
            moved.update(reasons)
            lists = [*(reason for reason in reasons if reason not in lists), *lists]
        placed[position] = (item, fused[position][1], lists)
    return placed, moved


def with_place_notices_leading(fused: list[tuple], board_of, places: set[str], own=()) -> tuple[list[tuple], bool]:
    """``fused`` with the passages of the named ``places``' boards first, in fused order, after the exact reference's
    ``own`` items and the passages citing it that lead (``decision_rules.reference_lead``): a keyword search naming a
    municipality ("veřejná zakázka Blešno", "co je na úřední desce v Blešně") asks for that board's documents, which
    an act's passage on the same words would otherwise lead. The rest follow in fused order, nothing left out;
    scores keep their positions; a passage moved up is listed as "place". Also whether any moved."""
    lead, rest = reference_lead(fused, own)
    named = [entry for entry in rest if (board := board_of(entry[0])) is not None and board[0] in places]
    if not named:
        return fused, False
    chosen = {entry[0] for entry in named}
    order = lead + named + [entry for entry in rest if entry[0] not in chosen]
    before = {entry[0]: rank for rank, entry in enumerate(fused)}
    placed, led = [], False
    for rank, ((item, _, lists), (_, score, _)) in enumerate(zip(order, fused)):
        moved = item in chosen and rank < before[item]
        led = led or moved
        placed.append((item, score, ["place", *lists] if moved and "place" not in lists else lists))
    return placed, led


SAME_STEM_PREFIX = 5  # the analyser's light stemmer leaves some forms apart: "rozpočet" rozpocet, "rozpočtu" rozpoct
SHORTEST_STEM = 3  # a shorter term ("k", "za") is no stem another word begins with


def shares_a_word(words: set[str], terms: frozenset[str]) -> bool:
    """Whether a term of ``terms`` is one of ``words`` as the stemmer may have left it: the same, or, both of at least
    ``SHORTEST_STEM`` letters, one the other's prefix ("svoz", "svozov") or the same first letters ("rozpocet",
    "rozpoct")."""
    return any(
        term == word
        or (
            min(len(term), len(word)) >= SHORTEST_STEM
            and (term.startswith(word) or word.startswith(term) or term[:SAME_STEM_PREFIX] == word[:SAME_STEM_PREFIX])
        )
        for term in terms
        for word in words
    )


@functools.lru_cache(maxsize=8192)
def title_terms(title: str) -> frozenset[str]:
    """A title's analysed terms, as BM25 reads them."""
    return frozenset(analyze(title))
