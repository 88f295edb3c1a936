"""One hit per provision: an act's § (or čl.) cut into several passages is answered once.

A long § is stored as several passages; when more than one of them ranks, the hit list showed the same § twice or
three times, each taking a place of the first ten. The passages of one provision of one act version are folded into
the first of them to rank: the hit keeps that passage's place, score and id, and its text becomes the folded
passages' texts in the act's order (an ellipsis where the act has text between them), its pages theirs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# the last part of a passage's section path when the passage belongs to a provision ("… > oddíl 1 Koupě > § 2079")
_PROVISION = re.compile(r"^(?:§+\s*\d+[a-z]*|čl\.\s*[IVXLC\d]+[a-z]*)$", re.IGNORECASE)
GAP = "\n…\n"  # between folded passages the act does not print one after the other


def provision_key(chunk: dict) -> tuple[str, str] | None:
    """(act version, provision) of an act's passage that belongs to a § or čl.; None for anything else (a
    decision's or notice's passage, an act's passage outside any provision)."""
    version = chunk.get("version_eli")
    if not version:
        return None
    last = (chunk.get("section") or "").rsplit(" > ", 1)[-1].strip()
    return (version, " ".join(last.split())) if _PROVISION.match(last) else None


def one_per_provision(
    fused: list[tuple], chunks: Sequence[dict], k: int | None = None
) -> tuple[list[tuple], dict[int, list[int]]]:
    """``fused`` (item, score, lists) with each provision once, where its first passage stands, and for each kept
    item the items folded into it (later passages of the same provision, best first). A folded passage's lists
    join its provision's hit. With ``k``, the first ``k`` kept items only, with what folds into them above the
    next one: no row below it is read (each read parses a whole row; reading every candidate cost the default
    search ~1.7 ms a query at 100,000 passages)."""
    first: dict[tuple[str, str], int] = {}
    kept: list[tuple] = []
    position: dict[int, int] = {}
    folded: dict[int, list[int]] = {}
    for item, score, lists in fused:
        key = provision_key(chunks[item])
        if key is not None and key in first:
            head = first[key]
            folded.setdefault(head, []).append(item)
            at = position[head]
            joined = kept[at][2] + [name for name in lists if name not in kept[at][2]]
            kept[at] = (head, kept[at][1], joined)
            continue
        if k is not None and len(kept) >= k:
            break
        if key is not None:
            first[key] = item
        position[item] = len(kept)
        kept.append((item, score, list(lists)))
    return kept, folded


def joined_passages(chunks: Sequence[dict], items: list[int]) -> dict:
    """The text, pages and passage ids of one provision's passages taken together, in the act's order."""
    rows = sorted((chunks[item] for item in items), key=lambda row: int(row["seq"]))
    parts = [rows[0]["text"]]
    for before, row in zip(rows, rows[1:]):
        contiguous = int(row["seq"]) == int(before["seq"]) + 1
        parts.append(("\n" if contiguous else GAP) + row["text"])
    return {
        "text": "".join(parts),
        "page": min(int(row["page_start"]) for row in rows),
        "page_end": max(int(row["page_end"]) for row in rows),
        "passages": [row["chunk_id"] for row in rows],
    }
