"""Query understanding: references named in the query, and the acts it is most likely about."""

from __future__ import annotations

from mendel.ner.rules import eli_for, extract_entities, split_law_ref_norm


def references(query: str) -> list[dict]:
    found = []
    for entity in extract_entities(query):
        if entity.label != "LAW_REF" or not entity.norm:
            continue
        act, provision = split_law_ref_norm(entity.norm)
        found.append({"act": act, "provision": provision, "eli": eli_for(act) if act else None,
                      "text": entity.text, "start": entity.start, "end": entity.end})
    return found


def analyze_query(query: str, searcher=None, k: int = 5) -> dict:
    """References, ranked acts (named ones first, then the domain graph's, then those whose text matches best)
    and ranked domains from the hand-kept domain graph."""
    from mendel.graph.domain import load_domain_graph

    graph = load_domain_graph()
    refs = references(query)
    scores: dict[str, float] = {}
    titles: dict[str, str] = {}
    for rank, ref in enumerate(refs):
        if ref["act"]:
            scores[ref["act"]] = scores.get(ref["act"], 0.0) + 2.0 + 1.0 / (rank + 1)
    routed = graph.route(query, k=2 * k)
    top_route = max((score for _, score in routed), default=0.0) or 1.0
    domains = []
    for node_id, score in routed:
        node = graph.nodes[node_id]
        if node.type == "act" and node.citation:
            # Routed acts rank after named ones; their route score, scaled to at most 1, orders them.
            scores[node.citation] = scores.get(node.citation, 0.0) + score / top_route
            titles.setdefault(node.citation, node.title or node.name)
        elif node.type == "domain":
            domains.append({"id": node_id, "name": node.name, "score": round(score, 4)})
    if searcher is not None:
        for doc in searcher.documents.values():
            if doc.get("citation"):
                titles[doc["citation"]] = doc.get("title") or ""
        for rank, item in enumerate(searcher.bm25_ranking(query, n=20), start=1):
            citation = searcher.chunks[item].get("citation")
            if citation:
                scores[citation] = scores.get(citation, 0.0) + 1.0 / (60 + rank)
    for citation in scores:
        if citation not in titles and (node := graph.act_for_citation(citation)) is not None:
            titles[citation] = node.title or node.name
    acts = [{"citation": c, "title": titles.get(c, ""), "score": round(s, 6), "eli": eli_for(c)}
            for c, s in sorted(scores.items(), key=lambda kv: -kv[1])[:k]]
    return {"query": query, "references": refs, "acts": acts, "domains": domains[:k]}
