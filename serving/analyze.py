"""Query understanding: references named in the query, and the acts it is most likely about."""

from __future__ import annotations

import re

from mendel.ner.rules import eli_for, extract_entities

# A LAW_REF norm is "<act> <provision path>" (either part may be missing); the path starts at § or čl.
PROVISION_START_RE = re.compile(r"(?:^|\s)(?=§|čl\.|Čl\.)")


def references(query: str) -> list[dict]:
    found = []
    for entity in extract_entities(query):
        if entity.label != "LAW_REF" or not entity.norm:
            continue
        split = PROVISION_START_RE.search(entity.norm)
        act = (entity.norm[:split.start()] if split else entity.norm).strip() or None
        provision = entity.norm[split.end():].strip() if split else None
        found.append({"act": act, "provision": provision, "eli": eli_for(act) if act else None,
                      "text": entity.text, "start": entity.start, "end": entity.end})
    return found


def analyze_query(query: str, searcher=None, k: int = 5) -> dict:
    """References, ranked acts (named ones first, then those whose text matches best) and domains."""
    refs = references(query)
    scores: dict[str, float] = {}
    titles: dict[str, str] = {}
    for rank, ref in enumerate(refs):
        if ref["act"]:
            scores[ref["act"]] = scores.get(ref["act"], 0.0) + 1.0 + 1.0 / (rank + 1)
    if searcher is not None:
        for doc in searcher.documents.values():
            if doc.get("citation"):
                titles[doc["citation"]] = doc.get("title") or ""
        for rank, item in enumerate(searcher.bm25_ranking(query, n=20), start=1):
            citation = searcher.chunks[item].get("citation")
            if citation:
                scores[citation] = scores.get(citation, 0.0) + 1.0 / (60 + rank)
    acts = [{"citation": c, "title": titles.get(c, ""), "score": round(s, 6), "eli": eli_for(c)}
            for c, s in sorted(scores.items(), key=lambda kv: -kv[1])[:k]]
    return {"query": query, "references": refs, "acts": acts, "domains": []}
