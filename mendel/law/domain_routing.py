"""Routing a plain Czech question to the areas of law and acts of the domain graph, without an LLM.

The query's analysed tokens (``mendel.czech.analyzer.analyze``: lower case, no diacritics, light stemming) are
matched against each node's name, aliases and vocabulary. A query token scores the best term token it matches,
weighted by that token's IDF over the graph, by the field (names and aliases above vocabulary) and by how much of
a multi-word term the query covers. The analyser's stemmer is light and not always consistent (``pracovní`` →
``pracovn`` but ``pracovního`` → ``pracovni``), so two tokens also match, more weakly, when one is a short
extension of the other or both share a long prefix. Abbreviations (``OSŘ``, ``ČNB``) match as written. Acts are
then reached through ``governs`` edges from the matched areas (and their sub-areas through ``part_of``); an
amending act gets less of its area's score than the act it amends.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from mendel.czech.analyzer import analyze, strip_diacritics

if TYPE_CHECKING:
    from mendel.law.domain_graph import DomainGraph

# Question words the analyser keeps, and words every act shares ("zákon", "Sb."): they carry no topic.
QUERY_STOPWORDS = frozenset(
    analyze(
        "jaký jaká jaké jakou jakým jakého kolik kdy dokdy kdo komu čím proč můžu mohu můžeme musím musí mám má "
        "lze smí platí potřebuji potřeba nutné nutno dá dát dělat "
        "zákon zákona zákonu zákonem zákony zákonů zákoník zákoníku zákoníkem předpis předpisu sb sbírka"
    )
)
# A question word whose stem a topic noun shares ("platí": applies, "plat": salary; both stem to "plat"): the stem
# stays a topic word when the query writes it in a form other than the question word's (folded, lower case).
QUESTION_WORD_FORMS = {"plat": frozenset({"plati"})}
FIELD_WEIGHTS = {"name": 1.5, "alias": 1.5, "citation": 2.0, "vocabulary": 1.0}
FULL_PHRASE_FACTOR = 1.25  # every token of a multi-word term is in the query
PARTIAL_PHRASE_FACTOR = 0.5  # only some are
LOWERCASE_ABBREVIATION_FACTOR = 0.6  # "dph" for "DPH"
GOVERNS_FACTOR = 0.8  # an act gets this share of the score of an area it governs
AMENDING_GOVERNS_FACTOR = 0.4
PART_OF_DECAY = 0.7  # an area passes this share of its score up to a parent, for act propagation
ROUTE_CACHE_SIZE = 2048
# A word's IDF is log(1 + IDF_NODES / the nodes having it), over a fixed count rather than the graph's: the thresholds
# that read route scores (serving.query.governing, serving.ranking.graph_retrieval) were set on a graph of 319 nodes,
# and counting the nodes of a larger graph lifted every score towards them (348 nodes put a one-word route to the
# police over the bar at which the search says an act is missing).
IDF_NODES = 319


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]
    weight: float
    raw: str | None = None  # an abbreviation, matched case-sensitively against the query as written


def is_abbreviation(text: str) -> bool:
    """``OSŘ``, ``ČNB``, ``InsZ``, ``MSp``: no spaces, at least two capitals."""
    return " " not in text and sum(c.isupper() for c in text) >= 2


_VOWELS = frozenset("aeiouy")
# A stem's last consonant softens before some endings (neschopenka -> neschopence, kniha -> knize): k ~ c, h ~ z.
_SOFTENED = frozenset({frozenset("kc"), frozenset("hz")})


def _similarity(query_token: str, term_token: str) -> float:
    if query_token == term_token:
        return 1.0
    if not (query_token.isalpha() and term_token.isalpha()):
        return 0.0  # numbers, citations, § tokens: exact only
    shorter, longer = sorted((len(query_token), len(term_token)))
    if shorter < 3:
        return 0.0
    common = 0
    for a, b in zip(query_token, term_token):
        if a != b:
            break
        common += 1
    if (
        len(query_token) == len(term_token) >= 5
        and common == shorter - 1
        and frozenset((query_token[-1], term_token[-1])) in _SOFTENED
    ):
        return 0.85  # neschopenc ~ neschopenk, lednick ~ lednicc (not mak ~ mac: too short to tell)
    if common == shorter:
        rest = (query_token if len(query_token) > len(term_token) else term_token)[common:]
        if (len(rest) <= (2 if shorter == 3 else 3) and set(rest) <= _VOWELS) or (shorter >= 5 and len(rest) <= 2):
            return 0.85  # pracovn ~ pracovni, dan ~ dane, vypoved ~ vypovedn (not prij ~ prijd)
    if (
        common >= 3
        and common >= 0.75 * longer
        and all(len(rest) <= 2 and set(rest) <= _VOWELS for rest in (query_token[common:], term_token[common:]))
    ):
        return 0.7  # different case endings: vadu ~ vada, mzda ~ mzdy (not přijde ~ příjmů)
    return 0.0


def nouns_written(query: str) -> frozenset[str]:
    """The stems of ``QUESTION_WORD_FORMS`` that ``query`` writes as a noun ("minimální plat": "plat"; not "platí")."""
    found = set()
    for word in re.findall(r"\w+", query):
        folded = strip_diacritics(word.lower())
        for stem, question_forms in QUESTION_WORD_FORMS.items():
            if folded.startswith(stem) and folded not in question_forms and analyze(word) == [stem]:
                found.add(stem)
    return frozenset(found)


def _topic_tokens(
    tokens: list[str], stopword_pairs: set[tuple[str, str]], nouns: frozenset[str] = frozenset()
) -> list[str]:
    """``tokens`` without the question words, but for one standing beside its neighbour in an area's name or
    written as a noun (``nouns``: :func:`nouns_written`)."""
    return [
        token
        for i, token in enumerate(tokens)
        if token not in QUERY_STOPWORDS
        or token in nouns
        or (i + 1 < len(tokens) and (token, tokens[i + 1]) in stopword_pairs)
        or (i > 0 and (tokens[i - 1], token) in stopword_pairs)
    ]


class Router:
    """Routes questions over one graph; what routing needs of the graph (terms, IDF, the token and prefix indexes)
    is built once, on first use, under a lock, and published whole: concurrent first questions never see a part of
    it."""

    def __init__(self, graph: DomainGraph):
        self.graph = graph
        self._index: dict = {}
        self._building = threading.Lock()
        self._routes: dict = {}

    def _built(self) -> dict:
        index = self._index
        if index:
            return index
        with self._building:
            if not self._index:
                self._index = self._build()
            return self._index

    def _build(self) -> dict:
        terms: dict[str, list[_Term]] = {}
        # a question word that an area's own name holds with its neighbour ("nutná obrana": "nutné" asks) is the name's
        stopword_pairs: set[tuple[str, str]] = set()
        for node in self.graph.nodes.values():
            entries = [(node.name, "name")] + [(a, "alias") for a in node.aliases]
            entries += [(v, "vocabulary") for v in node.vocabulary]
            node_terms = []
            for text, kind in entries:
                tokens = tuple(analyze(text))
                if node.type == "domain" and kind != "vocabulary":
                    stopword_pairs |= {pair for pair in zip(tokens, tokens[1:]) if QUERY_STOPWORDS.intersection(pair)}
                raw = text if is_abbreviation(text) else None
                if tokens or raw:
                    node_terms.append(_Term(tokens, FIELD_WEIGHTS[kind], raw))
            if node.citation:
                # "89/2012" alone identifies the act; "Sb." would match every act
                number = [t for t in analyze(node.citation) if "/" in t]
                if number:
                    node_terms.append(_Term(tuple(number), FIELD_WEIGHTS["citation"]))
            terms[node.id] = node_terms
        df = Counter(t for node_terms in terms.values() for t in {tok for term in node_terms for tok in term.tokens})
        idf = {t: math.log(1 + IDF_NODES / n) for t, n in df.items()}
        # term token (or ("raw", abbreviation)) -> the terms having it, as (node id, position in its terms)
        by_token: dict = {}
        for node_id, node_terms in terms.items():
            for position, term in enumerate(node_terms):
                for tt in term.tokens:
                    by_token.setdefault(tt, set()).add((node_id, position))
                if term.raw is not None:
                    by_token.setdefault(("raw", term.raw), set()).add((node_id, position))
        # alphabetic term tokens of three letters or more by their first three letters
        by_prefix: dict[str, list[str]] = {}
        for tt in idf:
            if len(tt) >= 3 and tt.isalpha():
                by_prefix.setdefault(tt[:3], []).append(tt)
        return {
            "terms": terms,
            "idf": idf,
            "stopword_pairs": stopword_pairs,
            "terms_by_token": by_token,
            "by_prefix": by_prefix,
            "route_structure": self._build_route_structure(),
        }

    def _terms(self) -> dict[str, list[_Term]]:
        return self._built()["terms"]

    def _terms_by_token(self) -> dict:
        return self._built()["terms_by_token"]

    def _terms_by_prefix(self) -> dict[str, list[str]]:
        return self._built()["by_prefix"]

    def _direct_scores(self, query: str) -> dict[str, float]:
        terms = self._terms()
        idf = self._built()["idf"]
        tokens = _topic_tokens(analyze(query), self._built()["stopword_pairs"], nouns_written(query))
        raw_tokens = set(re.findall(r"\w+", query))
        max_idf = max(idf.values(), default=1.0)
        # per term token, its best query token (similarity, index), for the term tokens similar to one: equal, or
        # sharing the first three letters (_similarity is 0 otherwise), found through a prefix index
        by_prefix = self._terms_by_prefix()
        best_match: dict[str, tuple[float, int]] = {}
        for i, q in enumerate(tokens):
            candidates = by_prefix.get(q[:3], ()) if len(q) >= 3 and q.isalpha() else ()
            for tt in (*candidates, q) if q in idf else candidates:
                found = (_similarity(q, tt), i)
                if found[0] > 0 and found > best_match.get(tt, (0.0, -1)):
                    best_match[tt] = found
        no_match = (0.0, -1)
        # only terms with a token matched or their abbreviation present can score (the rest cover nothing)
        by_token = self._terms_by_token()
        touched: dict[str, list[int]] = {}
        for node_id, position in sorted(
            set().union(
                *(by_token.get(tt, ()) for tt in best_match), *(by_token.get(("raw", r), ()) for r in raw_tokens)
            )
        ):
            touched.setdefault(node_id, []).append(position)
        scores: dict[str, float] = {}
        for node_id, positions in touched.items():
            node_terms = terms[node_id]
            best = [0.0] * len(tokens)  # each query token counts once per node: its best match
            abbreviation_score = 0.0
            for term in (node_terms[position] for position in positions):
                if term.raw is not None and term.raw in raw_tokens:
                    abbreviation_score = max(abbreviation_score, term.weight * max_idf)
                    continue
                matches = [best_match.get(tt, no_match) for tt in term.tokens]  # (similarity, query token)
                covered = sum(1 for s, _ in matches if s > 0)
                if not covered or covered < len(term.tokens) / 2:
                    continue  # one word of a long name is not a match
                if len(term.tokens) == 1:
                    factor = LOWERCASE_ABBREVIATION_FACTOR if term.raw is not None else 1.0
                elif covered == len(term.tokens):
                    factor = FULL_PHRASE_FACTOR
                else:
                    factor = PARTIAL_PHRASE_FACTOR
                for (sim, i), tt in zip(matches, term.tokens):
                    if sim > 0:
                        best[i] = max(best[i], sim * idf.get(tt, 1.0) * term.weight * factor)
            score = sum(best) + abbreviation_score
            if score > 0:
                scores[node_id] = score
        return scores

    def route(self, query: str, k: int = 5, types: tuple[str, ...] = ("domain", "act")) -> list[tuple[str, float]]:
        """Rank nodes of ``types`` (default areas and acts) for a natural-language question:
        ``[(node_id, score), ...]`` best first, at most ``k``, scores > 0."""
        key = (query, tuple(types))  # the whole ranking, so route(q, 5) after route(q, 10) is a slice
        ranking = self._routes.get(key)  # one search routes the same text several times
        if ranking is None:  # read once: another thread may clear the cache meanwhile
            ranking = self._route(query, len(self.graph.nodes), types)
            if len(self._routes) >= ROUTE_CACHE_SIZE:
                self._routes.clear()
            self._routes[key] = ranking
        return ranking[:k]

    def _route_structure(self) -> tuple[dict, dict, list, Counter]:
        return self._built()["route_structure"]

    def _build_route_structure(self) -> tuple[dict, dict, list, Counter]:
        """What routing needs of the graph's edges, the same for every query: area -> sub-areas, area -> parent
        areas, the acts that govern areas (with their factor) and each node's centrality."""
        children: dict[str, list[str]] = {}
        parents: dict[str, list[str]] = {}
        for e in self.graph.edges_of("part_of"):
            children.setdefault(e.target, []).append(e.source)
            parents.setdefault(e.source, []).append(e.target)
        governing = []
        for act in self.graph.of_type("act"):
            governed = self.graph.targets(act.id, "governs")
            if governed:
                factor = AMENDING_GOVERNS_FACTOR if self.graph.targets(act.id, "amends") else GOVERNS_FACTOR
                governing.append((act.id, governed, factor))
        # ties (acts reached through the same area) go to the more central act: governs + amended-by edges
        centrality = Counter(e.source for e in self.graph.edges_of("governs"))
        for e in self.graph.edges_of("amends"):
            centrality[e.target] += 2
        return children, parents, governing, centrality

    def _route(self, query: str, k: int, types: tuple[str, ...]) -> list[tuple[str, float]]:
        direct = self._direct_scores(query)
        # An area's score for act propagation: its own, or a decayed share of its best sub-area's.
        children, parents, governing, centrality = self._route_structure()

        @lru_cache(maxsize=None)
        def area_score(domain_id: str) -> float:
            return max(
                [direct.get(domain_id, 0.0)] + [PART_OF_DECAY * area_score(c) for c in children.get(domain_id, ())]
            )

        # areas scoring above zero: those matched and their ancestors; an act governing none of them gets nothing
        scored, pending = set(direct), list(direct)
        while pending:
            for parent in parents.get(pending.pop(), ()):
                if parent not in scored:
                    scored.add(parent)
                    pending.append(parent)
        scores = dict(direct)
        for act_id, governed, factor in governing:
            if scored.isdisjoint(governed):
                continue
            reached = factor * max(area_score(d) for d in governed)
            if reached > 0:
                scores[act_id] = scores.get(act_id, 0.0) + reached
        ranked = sorted(
            ((nid, s) for nid, s in scores.items() if self.graph.nodes[nid].type in types),
            key=lambda item: (-round(item[1], 9), -centrality[item[0]], item[0]),
        )
        return [(nid, round(s, 4)) for nid, s in ranked[:k]]
