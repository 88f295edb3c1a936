"""Query decomposition: a query that touches several entities or areas of law becomes sub-queries.

The query is cut into clauses at sentence ends, semicolons, commas and coordinating conjunctions ("a", "i",
"nebo", "a také", ...), never inside a recognised entity. Each clause is anchored by what it is about: its own
entities (references, file numbers, institutions) or, failing those, the areas and acts the domain graph routes it
to with confidence. A clause without an anchor belongs to the clause before it ("..., podle kterého se určuje").
When two or more clauses remain and their anchors differ, each becomes a sub-query; several provisions of one act
named together ("§ 2079 a § 2099 občanského zákoníku") become one sub-query per provision. The caller searches
every sub-query as well as the whole query and fuses the lists, so a wrong split costs little.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mendel.czech.folding import fold
from serving.query.analyze import GRAPH_LABELS, Understanding, understand
from serving.query.question_words import QUESTION_WORDS
from serving.query.typed import WORD_RE

MAX_SUBQUERIES = 4
MIN_ROUTE_SCORE = 3.0  # a clause's routing counts as an anchor from this score ...
ROUTE_NEAR_BEST = 0.8  # ... for every node within this share of the clause's best
ROUTE_ROUNDING = 1e-3
# A comma before "o ...", "kterým ...", "ve znění ..." continues an act's title, not the query.
_SPLIT_RE = re.compile(
    r"\s*[;?!]\s+|\s*:\s+|\s*,\s+(?!o\s|kter|ve\s+znění|ze\s+dne|č\.)"
    r"|\s+(?:a\s+také|a\s+zároveň|a\s+dále|a\s+navíc|jakož\s+i|a|i|nebo|ani|oproti|versus|vs\.)\s+",
    re.IGNORECASE,
)
_CONTENT_RE = re.compile(r"\w{3,}")
# A clause in plain words that asks something of its own has a question word among its first two words.


@dataclass
class Clause:
    start: int
    end: int
    anchors: set[str] = field(default_factory=set)


def _clauses(query: str, found: Understanding) -> list[Clause]:
    spans = [(e.start, e.end) for e in found.entities]
    cuts = [m for m in _SPLIT_RE.finditer(query) if not any(s < m.end() and m.start() < e for s, e in spans)]
    clauses, position = [], 0
    for m in cuts:
        clauses.append(Clause(position, m.start()))
        position = m.end()
    clauses.append(Clause(position, len(query)))
    return [c for c in clauses if query[c.start : c.end].strip()]


def _anchor(query: str, clause: Clause, found: Understanding) -> set[str]:
    from mendel.law.domain_graph import default_graph
    from mendel.ner.rules import split_law_ref_norm

    anchors = set()
    resolved = False  # an entity that says what it is about on its own (not a bare "§ 111")
    for e in found.entities:
        if e.label in GRAPH_LABELS and clause.start <= e.start and e.end <= clause.end:
            anchors.add(e.id)
            act = split_law_ref_norm(e.norm)[0] if e.label == "LAW_REF" else None
            resolved = resolved or e.label != "LAW_REF" or act is not None
            if act and (node := default_graph().act_for_citation(act)) is not None:
                # the act and the areas it governs: "§ 4 zákona o zbraních, kategorie zbraní" is one topic
                anchors.add(node.id)
                anchors.update(default_graph().targets(node.id, "governs"))
    if resolved:
        return anchors
    routed = default_graph().route(query[clause.start : clause.end], k=5)
    best = routed[0][1] if routed else 0.0
    if best >= MIN_ROUTE_SCORE:
        # routing rounds its scores (4 places): an act reached at exactly ROUTE_NEAR_BEST of its area's score is
        # near the best however the rounding fell
        anchors |= {node_id for node_id, score in routed if score >= ROUTE_NEAR_BEST * best - ROUTE_ROUNDING}
    return anchors


def asks(text: str) -> bool:
    """``text`` (a clause, a sub-query) asks something of its own: a question word among its first two words."""
    return bool(set(WORD_RE.findall(fold(text).lower())[:2]) & QUESTION_WORDS)


def _reference_text(ref: dict) -> str:
    act = ref["act"]
    return f"{ref['provision']} zákona č. {act}" if act.endswith("Sb.") else f"{ref['provision']} {act}"


def decompose(query: str, understanding: Understanding | None = None) -> list[str]:
    """Sub-queries of ``query`` (at most ``MAX_SUBQUERIES``), or ``[]`` when it is about one thing."""
    found = understanding or understand(query)
    clauses = _clauses(query, found)
    merged: list[Clause] = []
    for clause in clauses:
        # one clause cannot split into topics: its anchors (a domain routing) would decide nothing
        clause.anchors = _anchor(query, clause, found) if len(clauses) > 1 else set()
        if clause.anchors or not merged:
            merged.append(clause)
        else:
            merged[-1].end = clause.end
    if merged and not merged[0].anchors and len(merged) > 1:  # a leading clause without anchor joins the next
        merged[1].start = merged[0].start
        merged.pop(0)
    subqueries: list[str] = []
    anchored = [c for c in merged if c.anchors]
    distinct = len(anchored) >= 2 and all(
        not (a.anchors & b.anchors) for i, a in enumerate(anchored) for b in anchored[i + 1 :]
    )
    for clause in merged if distinct else []:
        subqueries.append(query[clause.start : clause.end].strip(" ,;:?!"))
    # One clause naming several provisions of one act: one sub-query per provision.
    by_span: dict[tuple[int, int], list[dict]] = {}
    for ref in found.references:
        if ref["act"] and ref["provision"]:
            by_span.setdefault((ref["start"], ref["end"]), []).append(ref)
    for refs in by_span.values():
        if len(refs) > 1:
            if distinct:  # the clause holding them is replaced by its provisions
                subqueries = [s for s in subqueries if refs[0]["text"] not in s]
            subqueries += [_reference_text(r) for r in refs]
    subqueries = [s for s in dict.fromkeys(subqueries) if _CONTENT_RE.search(s) or "§" in s]
    return subqueries[:MAX_SUBQUERIES] if len(subqueries) >= 2 else []
