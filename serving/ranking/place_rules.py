"""A query naming a municipality ("svoz odpadu Blešno") asks for that municipality's documents: among the
passages of the boards' documents, that municipality's lead. Acts and decisions keep their places: a question
naming a town may still be answered by an act."""

from __future__ import annotations


def with_named_places_first(fused: list[tuple], place_of, places: set[str]) -> tuple[list[tuple], bool]:
    """``fused`` with the positions held by the boards' documents (``place_of(item)``: the municipality whose
    board holds the item's document, "" for a board of no one municipality, None for any other document) refilled: first those of ``places``, then the
    others, each in fused order; every other passage keeps its position, nothing is left out. Scores keep their
    positions; moved passages are listed as "place". Also whether any passage moved."""
    slots = [position for position, (item, _, _) in enumerate(fused) if place_of(item) is not None]
    held = [fused[position] for position in slots]
    named = [entry for entry in held if place_of(entry[0]) in places]
    order = named + [entry for entry in held if place_of(entry[0]) not in places]
    placed = list(fused)
    moved = False
    for position, (item, _, lists) in zip(slots, order):
        if item != fused[position][0] and place_of(item) in places:
            moved = True
            lists = lists if "place" in lists else ["place", *lists]
        placed[position] = (item, fused[position][1], lists)
    return placed, moved
