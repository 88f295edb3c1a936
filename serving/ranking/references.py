"""Exact references lead: the passages a query's act + provision, file number or ECLI names exactly (the
provision's own section, the decision itself), then the passages citing exactly that reference, ahead of the
fused lists. Acts named without a provision, institutions, dates and amounts are not exact references."""

from __future__ import annotations

import re

import numpy as np

from serving.ranking.fusion import lead_with

PROVISION_HEAD_RE = re.compile(r"(?:§\s*\d+[a-z]?|čl\.\s*[IVXLC\d]+[a-z]?)", re.IGNORECASE)
EXACT_LABELS = ("LAW_REF", "DECISION_REF")


def provision_key(entity_norm: str) -> tuple[str | None, str | None, tuple[str, str] | None]:
    """A LAW_REF's act, its provision, and (act, provision head in lower case) when it names one ("§ 4")."""
    from mendel.ner.rules import split_law_ref_norm

    act, provision = split_law_ref_norm(entity_norm)
    head = PROVISION_HEAD_RE.match(provision) if provision else None
    return act, provision, ((act, " ".join(head.group(0).split()).lower()) if act and head else None)


def bundle_tiers(
    index, graph, understanding, allowed: np.ndarray | None, passages: bool
) -> tuple[list[int], list[int]]:
    """(own, citing) chunk positions in a layer of a bundle: the provision's own section (or the chunk where its
    heading line stands: a section path can name the part a provision opens, "ČÁST DRUHÁ" for the chunk starting
    "§ 4") or the decision itself, then the chunks citing exactly that reference (``passages``: only L3 chunks
    link entities)."""
    own: list[int] = []
    wanted: list[str] = []
    for entity in understanding.entities:
        if entity.label == "LAW_REF":
            _, provision, key = provision_key(entity.norm)
            if not provision:
                continue
            if key is not None:
                own += index.section_chunks.get(key) or index.heading_chunks.get(key, [])
        elif entity.label == "DECISION_REF":
            own += index.identifier_chunks.get(entity.norm, [])
        else:
            continue
        wanted.append(entity.id)
    if wanted:  # a form two codes go by: passages citing the older code's provision cite it too
        wanted += getattr(understanding, "older_codes", [])
    keep = (lambda i: True) if allowed is None else (lambda i: bool(allowed[i]))  # noqa: E731
    own = [i for i in dict.fromkeys(own) if keep(i)]
    if not passages:
        return own, []
    found_in = [graph.chunks_of(entity) for entity in wanted]
    found_in = [found for found in found_in if found.size]
    if not found_in:
        return own, []
    citing = np.unique(np.concatenate(found_in))
    if allowed is not None:
        citing = citing[allowed[citing]]
    if own:
        citing = citing[~np.isin(citing, np.asarray(own, dtype=np.int64))]
    return own, citing.tolist()


def lead_exact(fused: list[tuple], own: list, citing: list, n: int) -> list[tuple]:
    """``fused`` with the exact references first: the own passages, then the citing ones, each tier in fused
    order (citing passages the lists did not rank follow in the order given), at most ``n`` of them."""
    if not (own or citing):
        return fused
    position = {item: rank for rank, (item, _, _) in enumerate(fused)}
    lead = sorted(own, key=lambda i: position.get(i, len(position)))
    if len(lead) < n:
        # citing passages in fused order, then the rest in the order given: what a stable sort by fused position
        # gives, without sorting 100,000 citing chunks of a common reference
        citing_set = set(citing)
        lead += [item for item, _, _ in fused if item in citing_set]
        wanted_rest = n - len(lead)
        for item in citing:
            if wanted_rest <= 0:
                break
            if item not in position:
                lead.append(item)
                wanted_rest -= 1
    return lead_with(fused, list(dict.fromkeys(lead))[:n])
