"""The domain graph (``domain.yaml``): areas of law, institutions and key acts, with a validator and a
router that ranks areas and acts for a plain Czech question without an LLM.

Routing matches the query's analysed tokens (``mendel.czech.analyzer.analyze``: lower case, no diacritics,
light stemming) against each node's name, aliases and vocabulary. A query token scores the best term token it
matches, weighted by that token's IDF over the graph, by the field (names and aliases above vocabulary) and by
how much of a multi-word term the query covers. The analyser's stemmer is light and not always consistent
(``pracovní`` → ``pracovn`` but ``pracovního`` → ``pracovni``), so two tokens also match, more weakly, when one
is a short extension of the other or both share a long prefix. Abbreviations (``OSŘ``, ``ČNB``) match as
written. Acts are then reached through ``governs`` edges from the matched areas (and their sub-areas through
``part_of``); an amending act gets less of its area's score than the act it amends.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from mendel.czech.analyzer import analyze
from mendel.data import DATA_DIR
from mendel.law.identifiers import act_eli

NODE_TYPES = ("domain", "institution", "act")
ID_PREFIX = {"domain": "domain:", "institution": "inst:", "act": "act:"}
# edge type -> (source type, target type)
EDGE_TYPES = {
    "governs": ("act", "domain"),
    "supervises": ("institution", "domain"),
    "part_of": ("domain", "domain"),
    "amends": ("act", "act"),
}
NODE_KEYS = {"id", "type", "name", "aliases", "vocabulary", "citation", "eli", "title"}
ACT_ONLY_KEYS = {"citation", "eli", "title"}

SB_CITATION_RE = re.compile(r"(?P<number>[1-9]\d{0,3})/(?P<year>1[89]\d\d|20\d\d) Sb\.")
EU_CITATION_RE = re.compile(
    r"(?P<kind>nařízení|směrnice) \((?:EU|ES|EHS)\) (?P<year>(?:19|20)\d\d)/(?P<number>[1-9]\d{0,4})"
)
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

# Question words the analyser keeps, and words every act shares ("zákon", "Sb."): they carry no topic.
QUERY_STOPWORDS = frozenset(
    analyze(
        "jaký jaká jaké jakou jakým jakého kolik kdy dokdy kdo komu čím proč můžu mohu můžeme musím musí mám má "
        "lze smí platí potřebuji potřeba nutné nutno dá dát dělat "
        "zákon zákona zákonu zákonem zákony zákonů zákoník zákoníku zákoníkem předpis předpisu sb sbírka"
    )
)
FIELD_WEIGHTS = {"name": 1.5, "alias": 1.5, "citation": 2.0, "vocabulary": 1.0}
FULL_PHRASE_FACTOR = 1.25  # every token of a multi-word term is in the query
PARTIAL_PHRASE_FACTOR = 0.5  # only some are
LOWERCASE_ABBREVIATION_FACTOR = 0.6  # "dph" for "DPH"
GOVERNS_FACTOR = 0.8  # an act gets this share of the score of an area it governs
AMENDING_GOVERNS_FACTOR = 0.4
PART_OF_DECAY = 0.7  # an area passes this share of its score up to a parent, for act propagation
ROUTE_CACHE_SIZE = 2048


class DomainGraphError(ValueError):
    """The domain graph file is invalid; ``errors`` lists every problem found."""

    def __init__(self, errors: list[str], path: Path | str | None = None):
        self.errors = list(errors)
        where = f"{path}: " if path else ""
        super().__init__(f"{where}{len(self.errors)} problem(s) in the domain graph:\n  " + "\n  ".join(self.errors))


@dataclass(frozen=True)
class Node:
    id: str
    type: str
    name: str
    aliases: tuple[str, ...] = ()
    vocabulary: tuple[str, ...] = ()
    citation: str | None = None
    eli: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class Edge:
    type: str
    source: str
    target: str


@dataclass(frozen=True)
class _Term:
    tokens: tuple[str, ...]
    weight: float
    raw: str | None = None  # an abbreviation, matched case-sensitively against the query as written


def is_abbreviation(text: str) -> bool:
    """``OSŘ``, ``ČNB``, ``InsZ``, ``MSp``: no spaces, at least two capitals."""
    return " " not in text and sum(c.isupper() for c in text) >= 2


def _citation_parts(citation: str) -> tuple[str, str, str, str] | None:
    """(collection, kind, year, number) of a well-formed citation: ("sb", "", …) or ("eu", "reg"|"dir", …)."""
    m = SB_CITATION_RE.fullmatch(citation)
    if m:
        return "sb", "", m["year"], m["number"]
    m = EU_CITATION_RE.fullmatch(citation)
    if m:
        return "eu", "reg" if m["kind"] == "nařízení" else "dir", m["year"], m["number"]
    return None


def expected_eli(citation: str) -> str | None:
    """The ELI a well-formed citation must carry, or None when the citation is not well formed."""
    parts = _citation_parts(citation)
    if parts is None:
        return None
    collection, kind, year, number = parts
    if collection == "sb":
        return act_eli(year, number)
    return f"http://data.europa.eu/eli/{kind}/{year}/{number}/oj"


def expected_act_id(citation: str) -> str | None:
    parts = _citation_parts(citation)
    if parts is None:
        return None
    collection, kind, year, number = parts
    return f"act:{number}/{year}" if collection == "sb" else f"act:eu/{kind}/{year}/{number}"


_VOWELS = frozenset("aeiouy")


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


@dataclass
class DomainGraph:
    nodes: dict[str, Node]
    edges: list[Edge]
    path: str | None = None
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    # --- structure ------------------------------------------------------------------------------

    def of_type(self, node_type: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.type == node_type]

    def edges_of(self, edge_type: str) -> list[Edge]:
        return [e for e in self.edges if e.type == edge_type]

    def targets(self, source: str, edge_type: str) -> list[str]:
        return list(self._adjacency()[0].get((edge_type, source), ()))

    def sources(self, target: str, edge_type: str) -> list[str]:
        return list(self._adjacency()[1].get((edge_type, target), ()))

    def _adjacency(self) -> tuple[dict, dict]:
        """(type, source) -> targets and (type, target) -> sources, in file order (routing asks per query)."""
        if "adjacency" not in self._index:
            out: dict[tuple[str, str], list[str]] = {}
            into: dict[tuple[str, str], list[str]] = {}
            for e in self.edges:
                out.setdefault((e.type, e.source), []).append(e.target)
                into.setdefault((e.type, e.target), []).append(e.source)
            self._index["adjacency"] = (out, into)
        return self._index["adjacency"]

    def act_for_citation(self, citation: str) -> Node | None:
        """The act node whose citation ``citation`` is or starts with ("89/2012 Sb. § 2079" → 89/2012 Sb.)."""
        by_citation = self._lookup()["by_citation"]
        if citation in by_citation:
            return by_citation[citation]
        m = SB_CITATION_RE.match(citation) or EU_CITATION_RE.match(citation)
        return by_citation.get(m.group(0)) if m else None

    def act_for_eli(self, eli: str) -> Node | None:
        return self._lookup()["by_eli"].get(eli)

    def institution_for_name(self, name: str) -> Node | None:
        """The institution node named or aliased ``name`` (case-insensitive), or whose longest name or alias
        begins it as whole words ("Krajský soud v Brně" → krajské a okresní soudy, "Ministerstvo financí České
        republiky" → Ministerstvo financí)."""
        by_name = self._lookup()["by_institution_name"]
        key = " ".join(name.casefold().split())
        if key in by_name:
            return by_name[key]
        prefixes = [k for k in by_name if key.startswith(k + " ")]
        return by_name[max(prefixes, key=len)] if prefixes else None

    def _lookup(self) -> dict:
        if "lookup" not in self._index:
            by_institution_name = {}
            for n in self.of_type("institution"):
                for name in (n.name, *n.aliases):
                    by_institution_name.setdefault(name.casefold(), n)
            self._index["lookup"] = {
                "by_citation": {n.citation: n for n in self.of_type("act")},
                "by_eli": {n.eli: n for n in self.of_type("act")},
                "by_institution_name": by_institution_name,
            }
        return self._index["lookup"]

    # --- routing ---------------------------------------------------------------------------------

    def _terms(self) -> dict[str, list[_Term]]:
        if "terms" in self._index:
            return self._index["terms"]
        terms: dict[str, list[_Term]] = {}
        for node in self.nodes.values():
            entries = [(node.name, "name")] + [(a, "alias") for a in node.aliases]
            entries += [(v, "vocabulary") for v in node.vocabulary]
            node_terms = []
            for text, kind in entries:
                tokens = tuple(analyze(text))
                raw = text if is_abbreviation(text) else None
                if tokens or raw:
                    node_terms.append(_Term(tokens, FIELD_WEIGHTS[kind], raw))
            if node.citation:
                # "89/2012" alone identifies the act; "Sb." would match every act
                number = [t for t in analyze(node.citation) if "/" in t]
                if number:
                    node_terms.append(_Term(tuple(number), FIELD_WEIGHTS["citation"]))
            terms[node.id] = node_terms
        self._index["terms"] = terms
        df = Counter(t for node_terms in terms.values() for t in {tok for term in node_terms for tok in term.tokens})
        total = len(terms)
        self._index["idf"] = {t: math.log(1 + total / n) for t, n in df.items()}
        return terms

    def _terms_by_token(self) -> dict:
        """Term token (or ("raw", abbreviation)) -> the terms having it, as (node id, position in its terms)."""
        if "terms_by_token" not in self._index:
            by_token: dict = {}
            for node_id, node_terms in self._terms().items():
                for position, term in enumerate(node_terms):
                    for tt in term.tokens:
                        by_token.setdefault(tt, set()).add((node_id, position))
                    if term.raw is not None:
                        by_token.setdefault(("raw", term.raw), set()).add((node_id, position))
            self._index["terms_by_token"] = by_token
        return self._index["terms_by_token"]

    def _terms_by_prefix(self) -> dict[str, list[str]]:
        """Alphabetic term tokens of three letters or more by their first three letters."""
        if "by_prefix" not in self._index:
            self._terms()
            groups: dict[str, list[str]] = {}
            for tt in self._index["idf"]:
                if len(tt) >= 3 and tt.isalpha():
                    groups.setdefault(tt[:3], []).append(tt)
            self._index["by_prefix"] = groups
        return self._index["by_prefix"]

    def _direct_scores(self, query: str) -> dict[str, float]:
        terms = self._terms()
        idf = self._index["idf"]
        tokens = [t for t in analyze(query) if t not in QUERY_STOPWORDS]
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
        cache = self._index.setdefault("routes", {})  # one search routes the same text several times
        key = (query, tuple(types))  # the whole ranking, so route(q, 5) after route(q, 10) is a slice
        if key not in cache:
            if len(cache) >= ROUTE_CACHE_SIZE:
                cache.clear()
            cache[key] = self._route(query, len(self.nodes), types)
        return cache[key][:k]

    def _route_structure(self) -> tuple[dict, dict, list, Counter]:
        """What routing needs of the graph's edges, the same for every query: area -> sub-areas, area -> parent
        areas, the acts that govern areas (with their factor) and each node's centrality."""
        if "route_structure" not in self._index:
            children: dict[str, list[str]] = {}
            parents: dict[str, list[str]] = {}
            for e in self.edges_of("part_of"):
                children.setdefault(e.target, []).append(e.source)
                parents.setdefault(e.source, []).append(e.target)
            governing = []
            for act in self.of_type("act"):
                governed = self.targets(act.id, "governs")
                if governed:
                    factor = AMENDING_GOVERNS_FACTOR if self.targets(act.id, "amends") else GOVERNS_FACTOR
                    governing.append((act.id, governed, factor))
            # ties (acts reached through the same area) go to the more central act: governs + amended-by edges
            centrality = Counter(e.source for e in self.edges_of("governs"))
            for e in self.edges_of("amends"):
                centrality[e.target] += 2
            self._index["route_structure"] = (children, parents, governing, centrality)
        return self._index["route_structure"]

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
            ((nid, s) for nid, s in scores.items() if self.nodes[nid].type in types),
            key=lambda item: (-round(item[1], 9), -centrality[item[0]], item[0]),
        )
        return [(nid, round(s, 4)) for nid, s in ranked[:k]]


# --- loading and validation ----------------------------------------------------------------------


def default_path() -> Path:
    return Path(str(DATA_DIR / "domain_graph.yaml"))


def _string_list(value, where: str, errors: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        errors.append(f"{where}: must be a list of strings")
        return ()
    out = []
    for item in value:
        if not isinstance(item, str) or not item.strip():
            errors.append(f"{where}: {item!r} is not a non-empty string")
        else:
            out.append(item.strip())
    duplicates = sorted(v for v, n in Counter(out).items() if n > 1)
    if duplicates:
        errors.append(f"{where}: duplicate entries {duplicates}")
    return tuple(out)


def _parse_node(raw, position: int, errors: list[str]) -> Node | None:
    if not isinstance(raw, dict):
        errors.append(f"nodes[{position}]: must be a mapping")
        return None
    node_id = raw.get("id")
    where = f"node {node_id!r}" if isinstance(node_id, str) else f"nodes[{position}]"
    if not isinstance(node_id, str) or not node_id:
        errors.append(f"{where}: missing id")
        return None
    unknown = sorted(set(raw) - NODE_KEYS)
    if unknown:
        errors.append(f"{where}: unknown keys {unknown}")
    node_type = raw.get("type")
    if node_type not in NODE_TYPES:
        errors.append(f"{where}: type must be one of {list(NODE_TYPES)}, not {node_type!r}")
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append(f"{where}: missing name")
        name = ""
    aliases = _string_list(raw.get("aliases"), f"{where} aliases", errors)
    vocabulary = _string_list(raw.get("vocabulary"), f"{where} vocabulary", errors)
    for text in (name, *aliases, *vocabulary):
        if text and not analyze(text) and not is_abbreviation(text):
            errors.append(f"{where}: {text!r} has no searchable token (stop-words or single letters only)")
    prefix = ID_PREFIX[node_type]
    citation = raw.get("citation")
    eli = raw.get("eli")
    title = raw.get("title")
    if node_type == "act":
        if not isinstance(citation, str) or expected_eli(citation) is None:
            errors.append(f"{where}: citation {citation!r} is not well formed ('N/YYYY Sb.' or 'nařízení (EU) YYYY/N')")
        else:
            if eli != expected_eli(citation):
                errors.append(
                    f"{where}: eli {eli!r} does not match citation {citation!r} (expected {expected_eli(citation)!r})"
                )
            if node_id != expected_act_id(citation):
                errors.append(f"{where}: id must be {expected_act_id(citation)!r} for citation {citation!r}")
        if title is not None and (not isinstance(title, str) or not title.strip()):
            errors.append(f"{where}: title must be a non-empty string")
    else:
        present = sorted(k for k in ACT_ONLY_KEYS if k in raw)
        if present:
            errors.append(f"{where}: {present} only belong to acts")
        if not node_id.startswith(prefix) or not SLUG_RE.fullmatch(node_id[len(prefix) :]):
            errors.append(f"{where}: id must look like '{prefix}<lower-case-slug>'")
    return Node(
        id=node_id,
        type=node_type,
        name=(name or "").strip(),
        aliases=aliases,
        vocabulary=vocabulary,
        citation=citation if node_type == "act" else None,
        eli=eli if node_type == "act" else None,
        title=title.strip() if node_type == "act" and isinstance(title, str) else None,
    )


def _parse_edge(raw, position: int, nodes: dict[str, Node], errors: list[str]) -> Edge | None:
    if isinstance(raw, dict):
        raw = [raw.get("type"), raw.get("source"), raw.get("target")]
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, str) for x in raw):
        errors.append(f"edges[{position}]: must be [type, source, target], not {raw!r}")
        return None
    edge_type, source, target = raw
    where = f"edge {edge_type} {source} -> {target}"
    if edge_type not in EDGE_TYPES:
        errors.append(f"{where}: type must be one of {sorted(EDGE_TYPES)}")
        return None
    ok = True
    for end, node_id, wanted in (
        ("source", source, EDGE_TYPES[edge_type][0]),
        ("target", target, EDGE_TYPES[edge_type][1]),
    ):
        if node_id not in nodes:
            errors.append(f"{where}: {end} {node_id!r} is not a node")
            ok = False
        elif nodes[node_id].type != wanted:
            errors.append(f"{where}: {end} must be a {wanted}, {node_id!r} is a {nodes[node_id].type}")
            ok = False
    if source == target:
        errors.append(f"{where}: an edge from a node to itself")
        ok = False
    return Edge(edge_type, source, target) if ok else None


def _cycles(edges: list[Edge], edge_type: str) -> list[str]:
    graph: dict[str, list[str]] = {}
    for e in edges:
        if e.type == edge_type:
            graph.setdefault(e.source, []).append(e.target)
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    found: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                found.append(
                    " -> ".join(stack[stack.index(nxt) :] + [node, nxt]) if nxt in stack else f"{node} -> {nxt}"
                )
            elif nxt not in state:
                visit(nxt, stack + [node])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [])
    return found


def validate(data, path: Path | str | None = None) -> DomainGraph:
    """Build a DomainGraph from parsed YAML, or raise DomainGraphError with every problem found."""
    errors: list[str] = []
    if not isinstance(data, dict):
        raise DomainGraphError(["the file must be a mapping with 'version', 'nodes' and 'edges'"], path)
    unknown = sorted(set(data) - {"version", "nodes", "edges"})
    if unknown:
        errors.append(f"unknown top-level keys {unknown}")
    if data.get("version") != 1:
        errors.append(f"version must be 1, not {data.get('version')!r}")
    raw_nodes = data.get("nodes")
    raw_edges = data.get("edges") or []
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise DomainGraphError(errors + ["'nodes' must be a non-empty list"], path)
    if not isinstance(raw_edges, list):
        raise DomainGraphError(errors + ["'edges' must be a list"], path)

    nodes: dict[str, Node] = {}
    for position, raw in enumerate(raw_nodes):
        node = _parse_node(raw, position, errors)
        if node is None:
            continue
        if node.id in nodes:
            errors.append(f"node {node.id!r}: duplicate id")
            continue
        nodes[node.id] = node
    for attribute in ("citation", "eli"):
        seen = Counter(getattr(n, attribute) for n in nodes.values() if n.type == "act" and getattr(n, attribute))
        errors += [f"{attribute} {value!r} is used by {count} acts" for value, count in seen.items() if count > 1]

    edges: list[Edge] = []
    seen_edges: set[Edge] = set()
    for position, raw in enumerate(raw_edges):
        edge = _parse_edge(raw, position, nodes, errors)
        if edge is None:
            continue
        if edge in seen_edges:
            errors.append(f"edge {edge.type} {edge.source} -> {edge.target}: listed twice")
            continue
        seen_edges.add(edge)
        edges.append(edge)
    for edge_type in ("part_of", "amends"):
        errors += [f"{edge_type} cycle: {cycle}" for cycle in _cycles(edges, edge_type)]
    governed = {e.source for e in edges if e.type == "governs"}
    errors += [f"act {n.id!r} governs no domain" for n in nodes.values() if n.type == "act" and n.id not in governed]
    if errors:
        raise DomainGraphError(errors, path)
    return DomainGraph(nodes=nodes, edges=edges, path=str(path) if path else None)


def load_domain_graph(path: Path | str | None = None) -> DomainGraph:
    """Load and validate ``domain.yaml`` (the packaged file by default)."""
    path = Path(path) if path else default_path()
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise DomainGraphError([f"not valid YAML: {exc}"], path) from exc
    return validate(data, path)


@lru_cache(maxsize=1)
def _default_graph() -> DomainGraph:
    return load_domain_graph()


def default_graph() -> DomainGraph:
    """The packaged graph, loaded and validated once per process."""
    return _default_graph()


def route(
    query: str, k: int = 5, graph: DomainGraph | None = None, types: tuple[str, ...] = ("domain", "act")
) -> list[tuple[str, float]]:
    """Areas and acts for a plain question, best first: ``[(node_id, score), ...]`` (packaged graph by default)."""
    return (graph or _default_graph()).route(query, k=k, types=types)


def main(argv: list[str] | None = None) -> int:
    """``python -m mendel.law.domain_graph [question ...]``: validate the packaged graph, route a question."""
    argv = sys.argv[1:] if argv is None else argv
    graph = load_domain_graph()
    counts = Counter(n.type for n in graph.nodes.values())
    print(f"{graph.path}: {len(graph.nodes)} nodes ({dict(counts)}), {len(graph.edges)} edges — valid")
    if argv:
        for node_id, score in graph.route(" ".join(argv), k=8, types=NODE_TYPES):
            node = graph.nodes[node_id]
            print(f"{score:8.3f}  {node_id:32s} {node.name}" + (f" ({node.citation})" if node.citation else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
