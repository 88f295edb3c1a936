"""The acts that govern a plain question, named whether or not the collection holds them.

"Jaká je zkušební doba?" names no act, but the labour code governs it. The domain graph
(``mendel/data/domain_graph.yaml``) routes the question to its area ("zkušební doba") and the area to the acts
that govern it and, where the graph says so, to the part of the act that deals with it (``provisions``). The
search then says when that act is not in the collection (``serving.ranking.coverage``) and lets its passages
lead when it is (``serving.ranking.bundle_lists``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mendel.law.domain_graph import DomainGraph, default_graph, provision_span

# the area's route score: below it the question is not clearly about one area. One word no other node has
# scores its IDF (about 5.7 over the graph), inflected past the stemmer (neschopence ~ neschopenka) 0.85 of it:
# that still says which area the question is about.
GOVERNING_MIN_SCORE = 4.75
# Saying the governing act is *missing* needs more: one word of the question alone (a score of 5.7-5.9) routed
# "válka" to conscription and "policie" to the police act for questions the criminal code answers. On the dev sets,
# of the absent acts claimed 115 of 117 score above it; of the present-answer questions told their act is absent,
# 16 of 31 fall below it. Set on a graph of 319 nodes, the count routing's IDF keeps (mendel.law.domain_routing).
GOVERNING_CLAIM_MIN_SCORE = 6.0
AREA_TIE = 0.999  # areas scoring this close to the best are as likely (the question is ambiguous between them)
MAX_GOVERNING = 2


@dataclass(frozen=True)
class GoverningAct:
    citation: str
    name: str
    area: str  # the domain graph's area id
    area_name: str
    sections: tuple[tuple[int, int], ...] = ()  # the § spans of the act that deal with the area
    score: float = 0.0  # the area's route score

    @property
    def sure_enough_to_say_missing(self) -> bool:
        return self.score >= GOVERNING_CLAIM_MIN_SCORE

    def covers(self, section_number: int | None) -> bool:
        """The § numbered ``section_number`` lies in the part of the act that deals with the area."""
        return section_number is not None and any(first <= section_number <= last for first, last in self.sections)

    def as_dict(self) -> dict:
        return {
            "citation": self.citation,
            "name": self.name,
            "area": self.area,
            "area_name": self.area_name,
            "sections": [list(span) for span in self.sections],
        }


# Legal forms written as dotted abbreviations, which the analyser reads as single letters: "jak založit s.r.o." is
# routed as the words it stands for.
LEGAL_FORMS = {
    "s.r.o.": "společnost s ručením omezeným",
    "spol. s r.o.": "společnost s ručením omezeným",
    "a.s.": "akciová společnost",
    "v.o.s.": "veřejná obchodní společnost",
    "k.s.": "komanditní společnost",
    "z.s.": "zapsaný spolek",
    "o.p.s.": "obecně prospěšná společnost",
    "z.ú.": "zapsaný ústav",
}
_LEGAL_FORM_RE = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(form).replace(r"\.", r"\.\s?") for form in LEGAL_FORMS) + r")(?!\w)",
    re.IGNORECASE,
)


_FORMS_BY_KEY = {form.replace(" ", ""): words for form, words in LEGAL_FORMS.items()}


def with_legal_forms_spelled(text: str) -> str:
    """``text`` with each dotted legal form ("s.r.o.", "a. s.") written out."""
    return _LEGAL_FORM_RE.sub(lambda m: _FORMS_BY_KEY[re.sub(r"\s", "", m.group(0)).lower()], text)


def governing_acts(text: str, graph: DomainGraph | None = None) -> list[GoverningAct]:
    """The acts that govern what ``text`` asks about, most likely first (at most ``MAX_GOVERNING``): the act
    that governs its best area (an amending act never; a tie goes to the act the graph ranks higher), then the
    same for an area that ties with it. Empty when no area is routed confidently."""
    graph = graph or default_graph()
    routed = graph.route(with_legal_forms_spelled(text), k=len(graph.nodes))
    scores = dict(routed)
    areas = [(node_id, score) for node_id, score in routed if graph.nodes[node_id].type == "domain"]
    if not areas or areas[0][1] < GOVERNING_MIN_SCORE:
        return []
    tied = [area for area, score in areas if score >= AREA_TIE * areas[0][1]]
    # a wide area tying with one of its own parts matched the same words: the part says what the question is about
    # ("sociální pojištění" is both social security and the act on its premiums)
    tied = [area for area in tied if not set(tied) & _parts(graph, area)] or tied
    found: list[GoverningAct] = []
    area_scores = dict(areas)
    for area in tied:
        if len(found) >= MAX_GOVERNING:
            break
        act = _principal_act(graph, area, scores)
        if act is None or any(g.citation == act.citation for g in found):
            continue
        sections = tuple(
            (span[1], span[2])
            for provision in graph.nodes[area].provisions
            if (span := provision_span(provision)) is not None and span[0] == act.citation
        )
        found.append(GoverningAct(act.citation, act.name, area, graph.nodes[area].name, sections, area_scores[area]))
    return found


def _principal_act(graph: DomainGraph, area: str, scores: dict[str, float]):
    """The act governing ``area`` (or, when none does, its nearest wider area) that routing scores highest;
    acts amending another are left out."""
    pending, seen = [area], set()
    while pending:
        current = pending.pop(0)
        seen.add(current)
        acts = [
            graph.nodes[a]
            for a in graph.sources(current, "governs")
            if not graph.targets(a, "amends") and graph.nodes[a].citation
        ]
        if acts:
            return max(acts, key=lambda node: (scores.get(node.id, 0.0), _weight(graph, node.id), node.id))
        pending += [p for p in graph.targets(current, "part_of") if p not in seen]
    return None


def _weight(graph: DomainGraph, act_id: str) -> int:
    """How central an act is: the areas it governs and the acts amending it (a code before a decree)."""
    return len(graph.targets(act_id, "governs")) + 2 * len(graph.sources(act_id, "amends"))


def _parts(graph: DomainGraph, area: str) -> set[str]:
    """Every area that is part of ``area``, however deep."""
    parts: set[str] = set()
    pending = graph.sources(area, "part_of")
    while pending:
        current = pending.pop()
        if current not in parts:
            parts.add(current)
            pending += graph.sources(current, "part_of")
    return parts
