"""The domain graph (``mendel/data/domain_graph.yaml``): areas of law, institutions and key acts with the edges
between them, loaded and validated (every problem found is reported at once); a question is routed over it by
:mod:`mendel.law.domain_routing`.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from mendel.czech.analyzer import analyze
from mendel.data import DATA_DIR, read_table
from mendel.law.domain_routing import Router, is_abbreviation
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
NODE_KEYS = {"id", "type", "name", "aliases", "vocabulary", "citation", "eli", "title", "provisions"}
ACT_ONLY_KEYS = {"citation", "eli", "title"}
# Where an area sits in the act that governs it: "262/2006 Sb. § 35", "89/2012 Sb. §§ 2079–2183".
PROVISION_RE = re.compile(
    r"(?P<act>[1-9]\d{0,3}/(?:1[89]|20)\d\d Sb\.) §(?:§ (?P<first>\d+[a-z]?)[–-](?P<last>\d+[a-z]?)| (?P<one>\d+[a-z]?))"
)

SB_CITATION_RE = re.compile(r"(?P<number>[1-9]\d{0,3})/(?P<year>1[89]\d\d|20\d\d) Sb\.")
EU_CITATION_RE = re.compile(
    r"(?P<kind>nařízení|směrnice) \((?:EU|ES|EHS)\) (?P<year>(?:19|20)\d\d)/(?P<number>[1-9]\d{0,4})"
)
# a regulation before 2015 numbers itself "č. N/YYYY" ("nařízení (ES) č. 261/2004", from December 2009 "(EU) č.":
# "nařízení (EU) č. 181/2011"): the same ELI, number and year
EU_NUMBERED_CITATION_RE = re.compile(
    r"(?P<kind>nařízení) \((?:EU|ES|EHS)\) č\. (?P<number>[1-9]\d{0,4})/(?P<year>(?:19|20)\d\d)"
)
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


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
    provisions: tuple[str, ...] = ()  # areas only: where the area sits in the acts governing it


def provision_span(provision: str) -> tuple[str, int, int] | None:
    """(act citation, first §, last §) of an area's ``provisions`` entry; letters after a number are dropped
    (``§ 101c`` spans § 101)."""
    m = PROVISION_RE.fullmatch(provision)
    if m is None:
        return None
    first, last = (m["first"], m["last"]) if m["first"] else (m["one"], m["one"])
    return m["act"], int(re.match(r"\d+", first).group(0)), int(re.match(r"\d+", last).group(0))


@dataclass(frozen=True)
class Edge:
    type: str
    source: str
    target: str


def _citation_parts(citation: str) -> tuple[str, str, str, str] | None:
    """(collection, kind, year, number) of a well-formed citation: ("sb", "", …) or ("eu", "reg"|"dir", …)."""
    m = SB_CITATION_RE.fullmatch(citation)
    if m:
        return "sb", "", m["year"], m["number"]
    m = EU_CITATION_RE.fullmatch(citation) or EU_NUMBERED_CITATION_RE.fullmatch(citation)
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
        m = SB_CITATION_RE.match(citation) or EU_CITATION_RE.match(citation) or EU_NUMBERED_CITATION_RE.match(citation)
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

    def route(self, query: str, k: int = 5, types: tuple[str, ...] = ("domain", "act")) -> list[tuple[str, float]]:
        """Rank nodes of ``types`` (default areas and acts) for a natural-language question:
        ``[(node_id, score), ...]`` best first, at most ``k``, scores > 0 (:mod:`mendel.law.domain_routing`)."""
        router = self._index.get("router")
        if router is None:  # one router even when first questions come at once (it builds its index once)
            router = self._index.setdefault("router", Router(self))
        return router.route(query, k, types)


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
    provisions = _string_list(raw.get("provisions"), f"{where} provisions", errors)
    if provisions and node_type != "domain":
        errors.append(f"{where}: provisions only belong to areas")
    for provision in provisions:
        span = provision_span(provision)
        if span is None or span[1] > span[2]:
            errors.append(f"{where}: provision {provision!r} is not 'N/YYYY Sb. § N' or 'N/YYYY Sb. §§ A–B'")
    for text in (name, *aliases, *vocabulary):
        if text and not analyze(text) and not is_abbreviation(text):
            errors.append(f"{where}: {text!r} has no searchable token (stop-words or single letters only)")
    prefix = ID_PREFIX[node_type]
    citation = raw.get("citation")
    eli = raw.get("eli")
    title = raw.get("title")
    if node_type == "act":
        if not isinstance(citation, str) or expected_eli(citation) is None:
            errors.append(
                f"{where}: citation {citation!r} is not well formed ('N/YYYY Sb.', 'nařízení (EU) YYYY/N' or 'nařízení (ES|EU) č. N/YYYY')"
            )
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
        provisions=provisions if node_type == "domain" else (),
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
    by_citation = {n.citation: n.id for n in nodes.values() if n.type == "act"}
    governs = {(e.source, e.target) for e in edges if e.type == "governs"}
    for node in nodes.values() if not errors else ():  # a broken act would make every provision of it fail too
        for provision in node.provisions:
            span = provision_span(provision)
            act_id = by_citation.get(span[0]) if span else None
            if span and (act_id is None or (act_id, node.id) not in governs):
                errors.append(f"node {node.id!r}: provision {provision!r} of an act that does not govern it")
    governed = {e.source for e in edges if e.type == "governs"}
    errors += [f"act {n.id!r} governs no domain" for n in nodes.values() if n.type == "act" and n.id not in governed]
    if errors:
        raise DomainGraphError(errors, path)
    return DomainGraph(nodes=nodes, edges=edges, path=str(path) if path else None)


def load_domain_graph(path: Path | str | None = None) -> DomainGraph:
    """Load and validate ``domain.yaml`` (the packaged file by default)."""
    path = Path(path) if path else default_path()
    try:
        data = read_table(path)
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
