"""The national open-data catalogue (NKOD, data.gov.cz) as far as the board register needs it: SPARQL over the
DCAT records of the notice-board datasets (``/sparql``, shared with e-Sbírka's endpoint: a query naming the DCAT
vocabulary is NKOD's).

One dataset per board the mirror serves from a real file (or per generated board in scale mode), in the real shape
of NKOD records from the OFN metadata template; the dataset and distribution IRIs are mirror-made. A small SPARQL
1.1 subset is evaluated for real over them; anything else is a 400 naming what is not supported.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import parse_qs

from .municipal import served_boards
from .responses import Response, json_response, text_response

SPARQL_PATH = "/sparql"
DCAT = "http://www.w3.org/ns/dcat#"
DCTERMS = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
PU = "https://data.gov.cz/slovník/podmínky-užití/"
RPP_BODY = "https://rpp-opendata.egon.gov.cz/odrpp/zdroj/orgán-veřejné-moci/"
DATASETS = "https://data.gov.cz/zdroj/datové-sady/"  # mirror-made dataset IRIs live under NKOD's dataset space
TEMPLATE = Path("municipal") / "ofn-2021-07-20" / "metadata_úřední-desky.jsonld"
FILE_TYPES = "http://publications.europa.eu/resource/authority/file-type/"
MEDIA_TYPES = {
    "JSON_LD": "application/ld+json",
    "JSON": "application/json",
    "XML": "application/xml",
    "CSV": "text/csv",
}

# The OFN catalogue keys of a dataset / distribution record and the predicates NKOD stores them as.
DATASET_KEYS = {
    "název": DCTERMS + "title",
    "popis": DCTERMS + "description",
    "klíčové_slovo": DCAT + "keyword",
    "prvek_rúian": DCTERMS + "spatial",
    "geografické_území": DCTERMS + "spatial",
    "prostorové_pokrytí": DCTERMS + "spatial",
    "periodicita_aktualizace": DCTERMS + "accrualPeriodicity",
    "dokumentace": FOAF + "page",
    "téma": DCAT + "theme",
    "koncept_euroVoc": DCAT + "theme",
    "specifikace": DCTERMS + "conformsTo",
}
DISTRIBUTION_KEYS = {
    "soubor_ke_stažení": DCAT + "downloadURL",
    "přístupové_url": DCAT + "accessURL",
    "typ_média": DCAT + "mediaType",
    "formát": DCTERMS + "format",
    "schéma": DCTERMS + "conformsTo",
}
TERMS_KEYS = {
    "autorské_dílo": PU + "autorské-dílo",
    "databáze_jako_autorské_dílo": PU + "databáze-jako-autorské-dílo",
    "databáze_chráněná_zvláštními_právy": PU + "databáze-chráněná-zvláštními-právy",
    "osobní_údaje": PU + "osobní-údaje",
}


class QueryError(ValueError):
    """A query outside what the mirror evaluates (or not SPARQL at all)."""


@dataclass(frozen=True)
class Iri:
    value: str


@dataclass(frozen=True)
class Literal:
    value: str
    lang: str | None = None


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class CatalogueBoard:
    """One notice-board dataset of the catalogue."""

    dataset: str
    publisher_ico: str
    publisher_name: str | None
    page_url: str | None
    distributions: tuple[tuple[str, str], ...]  # (download URL, EU file type)


# ---------------------------------------------------------------- records


def dataset_triples(template: dict, board: CatalogueBoard) -> list[tuple]:
    """The triples of one dataset record: the template's values, this board's publisher and URLs."""
    subject = Iri(board.dataset)
    publisher = Iri(RPP_BODY + board.publisher_ico)
    triples = [(subject, Iri(RDF_TYPE), Iri(DCAT + "Dataset")), (subject, Iri(DCTERMS + "publisher"), publisher)]
    if board.publisher_name:
        triples.append((publisher, Iri(FOAF + "name"), Literal(board.publisher_name, "cs")))
    for key, predicate in DATASET_KEYS.items():
        value = template.get(key)
        if isinstance(value, dict):  # language map: {"cs": "…", "en": "…"} or {"cs": ["…"], …}
            for lang, texts in value.items():
                for text in texts if isinstance(texts, list) else [texts]:
                    triples.append((subject, Iri(predicate), Literal(text, lang)))
        else:
            for iri in value if isinstance(value, list) else [value] if value else []:
                triples.append((subject, Iri(predicate), Iri(iri)))
    source = (template.get("distribuce") or [{}])[0]
    for download_url, file_type in board.distributions:
        distribution = Iri(f"{board.dataset}/distribuce/{file_type.lower().replace('_', '-')}")
        triples += [
            (subject, Iri(DCAT + "distribution"), distribution),
            (distribution, Iri(RDF_TYPE), Iri(DCAT + "Distribution")),
        ]
        values = {
            "soubor_ke_stažení": download_url,
            "přístupové_url": download_url,
            "typ_média": f"http://www.iana.org/assignments/media-types/{MEDIA_TYPES[file_type]}",
            "formát": FILE_TYPES + file_type,
        }
        if file_type != "JSON_LD":
            values["schéma"] = None  # the OFN's JSON schema describes its JSON-LD only
        for key, predicate in DISTRIBUTION_KEYS.items():
            value = values[key] if key in values else source.get(key)
            if value:
                triples.append((distribution, Iri(predicate), Iri(value)))
        terms = source.get("podmínky_užití") or {}
        if terms:
            node = Iri(f"{distribution.value}/podmínky-užití")
            triples.append((distribution, Iri(PU + "specifikace"), node))
            triples.append((node, Iri(RDF_TYPE), Iri(PU + "Specifikace")))
            triples += [(node, Iri(TERMS_KEYS[k]), Iri(v)) for k, v in terms.items() if k in TERMS_KEYS]
    if board.page_url:
        triples.append((subject, Iri(DCAT + "landingPage"), Iri(board.page_url)))
    return triples


class TripleStore:
    def __init__(self, triples):
        self.triples = list(dict.fromkeys(triples))
        self.by_subject: dict = {}
        self.by_predicate: dict = {}
        for t in self.triples:
            self.by_subject.setdefault(t[0], []).append(t)
            self.by_predicate.setdefault(t[1], []).append(t)

    def candidates(self, s, p):
        if not isinstance(s, Var):
            return self.by_subject.get(s, [])
        if not isinstance(p, Var):
            return self.by_predicate.get(p, [])
        return self.triples


# ---------------------------------------------------------------- a small SPARQL subset

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<iri><[^<>"\s]*>)
  | (?P<var>[?$][^\s{}()<>"',;.=*]+)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')(?:@(?P<lang>[A-Za-z]+(?:-[A-Za-z0-9]+)*))?
  | (?P<num>\d+)
  | (?P<pname>[^\s{}()<>"',;=?$#*]*:[^\s{}()<>"',;=#*]*)
  | (?P<punct>[{}().,;=*]|&&)
  | (?P<word>[A-Za-z]+)
""",
    re.X,
)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def tokenize(text: str) -> list[tuple[str, str, str | None]]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise QueryError(f"cannot read the query at character {pos}: {text[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup if m.lastgroup != "lang" else "str"
        if kind == "ws":
            continue
        value = m.group(kind)
        if kind == "pname" and value.endswith(".") and not value.endswith(":."):
            tokens.append(("pname", value.rstrip("."), None))
            tokens.append(("punct", ".", None))
            continue
        tokens.append((kind, value, m.group("lang") if kind == "str" else None))
    return tokens


@dataclass
class Group:
    patterns: list  # (s, p, o) with Var / Iri / Literal terms
    optionals: list  # Group
    filters: list  # (var name, language)
    order: list  # ("triple", index) | ("optional", index): evaluation order as written


@dataclass
class Query:
    variables: list[str] | None  # None: SELECT *
    distinct: bool
    where: Group
    order_by: list[tuple[str, bool]]  # (variable, descending)
    limit: int | None
    offset: int


class _Parser:
    def __init__(self, text: str):
        self.tokens = tokenize(text)
        self.pos = 0
        self.prefixes: dict[str, str] = {}

    def peek(self, ahead: int = 0):
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else ("eof", "", None)

    def take(self):
        token = self.peek()
        self.pos += 1
        return token

    def word(self, *words: str) -> bool:
        kind, value, _ = self.peek()
        return kind == "word" and value.upper() in words

    def expect(self, kind: str, value: str | None = None):
        token = self.take()
        if token[0] != kind or (value is not None and token[1].upper() != value.upper()):
            raise QueryError(f"expected {value or kind}, found {token[1]!r}")
        return token

    def parse(self) -> Query:
        while self.word("PREFIX"):
            self.take()
            name = self.expect("pname")[1]
            if not name.endswith(":"):
                raise QueryError(f"bad prefix name {name!r}")
            self.prefixes[name[:-1]] = self.expect("iri")[1][1:-1]
        if self.word("BASE", "CONSTRUCT", "ASK", "DESCRIBE"):
            raise QueryError(f"the mirror answers SELECT queries only, not {self.peek()[1]}")
        self.expect("word", "SELECT")
        distinct = False
        if self.word("DISTINCT", "REDUCED"):
            distinct = self.take()[1].upper() == "DISTINCT"
        variables: list[str] | None = []
        if self.peek()[:2] == ("punct", "*"):
            self.take()
            variables = None
        else:
            while self.peek()[0] == "var":
                variables.append(self.take()[1][1:])
            if not variables:
                raise QueryError("SELECT needs variables or * (expressions are not supported by the mirror)")
        if self.word("FROM"):
            raise QueryError("FROM is not supported by the mirror")
        if self.word("WHERE"):
            self.take()
        where = self.group()
        order_by, limit, offset = [], None, 0
        while self.peek()[0] != "eof":
            if self.word("ORDER"):
                self.take()
                self.expect("word", "BY")
                while self.peek()[0] == "var" or self.word("ASC", "DESC"):
                    if self.peek()[0] == "var":
                        order_by.append((self.take()[1][1:], False))
                    else:
                        descending = self.take()[1].upper() == "DESC"
                        self.expect("punct", "(")
                        order_by.append((self.expect("var")[1][1:], descending))
                        self.expect("punct", ")")
            elif self.word("LIMIT"):
                self.take()
                limit = int(self.expect("num")[1])
            elif self.word("OFFSET"):
                self.take()
                offset = int(self.expect("num")[1])
            else:
                raise QueryError(f"unsupported solution modifier {self.peek()[1]!r}")
        return Query(variables, distinct, where, order_by, limit, offset)

    def group(self) -> Group:
        self.expect("punct", "{")
        group = Group([], [], [], [])
        while True:
            kind, value, _ = self.peek()
            if (kind, value) == ("punct", "}"):
                self.take()
                return group
            if (kind, value) == ("punct", "."):
                self.take()
            elif self.word("OPTIONAL"):
                self.take()
                group.optionals.append(self.group())
                group.order.append(("optional", len(group.optionals) - 1))
            elif self.word("FILTER"):
                self.take()
                group.filters.extend(self.filter())
            elif kind == "eof":
                raise QueryError("unterminated group: missing }")
            elif (kind, value) == ("punct", "{"):
                raise QueryError("nested groups (and UNION) are not supported by the mirror")
            elif self.word("UNION", "MINUS", "BIND", "VALUES", "GRAPH", "SERVICE"):
                raise QueryError(f"{value.upper()} is not supported by the mirror")
            else:
                for pattern in self.triples():
                    group.patterns.append(pattern)
                    group.order.append(("triple", len(group.patterns) - 1))

    def filter(self) -> list[tuple[str, str]]:
        """LANG(?v) = "xx" or langMatches(LANG(?v), "xx"), joined by &&."""
        self.expect("punct", "(")
        filters = []
        while True:
            if self.word("LANGMATCHES"):
                self.take()
                self.expect("punct", "(")
                name = self.lang_of()
                self.expect("punct", ",")
                lang = self.expect("str")[1][1:-1]
                self.expect("punct", ")")
            elif self.word("LANG"):
                name = self.lang_of()
                self.expect("punct", "=")
                lang = self.expect("str")[1][1:-1]
            else:
                raise QueryError(
                    f"unsupported FILTER starting at {self.peek()[1]!r} (the mirror evaluates LANG filters)"
                )
            filters.append((name, lang.lower()))
            if self.peek()[:2] == ("punct", "&&"):
                self.take()
                continue
            self.expect("punct", ")")
            return filters

    def lang_of(self) -> str:
        self.expect("word", "LANG")
        self.expect("punct", "(")
        name = self.expect("var")[1][1:]
        self.expect("punct", ")")
        return name

    def triples(self) -> list[tuple]:
        subject = self.term()
        patterns = []
        while True:
            predicate = self.term(predicate=True)
            while True:
                patterns.append((subject, predicate, self.term()))
                if self.peek()[:2] != ("punct", ","):
                    break
                self.take()
            if self.peek()[:2] != ("punct", ";"):
                return patterns
            self.take()
            if self.peek()[:2] in (("punct", "."), ("punct", "}")):
                return patterns

    def term(self, predicate: bool = False):
        kind, value, lang = self.take()
        if kind == "var":
            return Var(value[1:])
        if kind == "iri":
            return Iri(value[1:-1])
        if kind == "word" and value == "a" and predicate:
            return Iri(RDF_TYPE)
        if kind == "pname":
            prefix, _, local = value.partition(":")
            if prefix not in self.prefixes:
                raise QueryError(f"undeclared prefix {prefix}:")
            return Iri(self.prefixes[prefix] + local)
        if kind == "str" and not predicate:
            text = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), value[1:-1])
            return Literal(text, lang.lower() if lang else None)
        raise QueryError(f"unexpected {value!r} in a triple pattern")


def parse_query(text: str) -> Query:
    return _Parser(text).parse()


def _match(pattern, triple, solution: dict) -> dict | None:
    bound = dict(solution)
    for term, value in zip(pattern, triple):
        if isinstance(term, Var):
            if term.name in bound and bound[term.name] != value:
                return None
            bound[term.name] = value
        elif term != value:
            return None
    return bound


def _substitute(term, solution: dict):
    return solution.get(term.name, term) if isinstance(term, Var) else term


def _passes(filters, solution: dict) -> bool:
    for name, lang in filters:
        value = solution.get(name)
        if not isinstance(value, Literal) or (value.lang or "") != lang:
            return False
    return True


def evaluate_group(store: TripleStore, group: Group, solutions: list[dict]) -> list[dict]:
    for kind, index in group.order:
        if kind == "triple":
            pattern = group.patterns[index]
            joined = []
            for solution in solutions:
                s, p = _substitute(pattern[0], solution), _substitute(pattern[1], solution)
                for triple in store.candidates(s, p):
                    bound = _match(pattern, triple, solution)
                    if bound is not None:
                        joined.append(bound)
            solutions = joined
        else:  # OPTIONAL: a left join; its filters decide whether its bindings are kept
            optional, extended = group.optionals[index], []
            for solution in solutions:
                matches = [m for m in evaluate_group(store, optional, [solution]) if _passes(optional.filters, m)]
                extended.extend(matches or [solution])
            solutions = extended
    return [s for s in solutions if _passes(group.filters, s)]


def _binding(value) -> dict:
    if isinstance(value, Iri):
        return {"type": "uri", "value": value.value}
    binding = {"type": "literal", "value": value.value}
    if value.lang:
        binding["xml:lang"] = value.lang
    return binding


def _sort_key(value) -> tuple:
    return (0, "") if value is None else (1, value.value)


def run_query(store: TripleStore, text: str) -> dict:
    """A SPARQL JSON results document for ``text``."""
    query = parse_query(text)
    solutions = evaluate_group(store, query.where, [{}])
    names = query.variables
    if names is None:
        names = sorted({name for s in solutions for name in s})
    for name, descending in reversed(query.order_by):
        solutions.sort(key=lambda s: _sort_key(s.get(name)), reverse=descending)
    rows = [tuple(s.get(n) for n in names) for s in solutions]
    if query.distinct:
        rows = list(dict.fromkeys(rows))
    end = None if query.limit is None else query.offset + query.limit
    rows = rows[query.offset : end]
    return {
        "head": {"vars": names},
        "results": {
            "distinct": query.distinct,
            "ordered": bool(query.order_by),
            "bindings": [{n: _binding(v) for n, v in zip(names, row) if v is not None} for row in rows],
        },
    }


# ---------------------------------------------------------------- the site


class NkodSite:
    def __init__(self, corpus_root: Path, scale=None):
        self.corpus_root = Path(corpus_root)
        self.scale = scale  # a mirror.scale.ScaleBoards, or None

    def boards(self) -> list[CatalogueBoard]:
        if self.scale is None:
            return [
                CatalogueBoard(
                    dataset=DATASETS + b.dataset,
                    publisher_ico=b.publisher_ico,
                    publisher_name=b.publisher_name,
                    page_url=b.page_url,
                    distributions=b.distributions,
                )
                for b in served_boards(self.corpus_root)
            ]
        return [
            CatalogueBoard(
                dataset=f"{DATASETS}{b.ico}/uredni-deska",
                publisher_ico=b.ico,
                publisher_name=b.name,
                page_url=b.page_url,
                distributions=((b.feed_url, "JSON_LD"),),
            )
            for b in self.scale.ofn_boards
        ]

    @cached_property
    def store(self) -> TripleStore:
        template = json.loads((self.corpus_root / TEMPLATE).read_text(encoding="utf-8-sig"))
        return TripleStore(t for board in self.boards() for t in dataset_triples(template, board))

    def handle(self, method: str, path: str, raw_path: str, query: str, headers, body: bytes) -> Response | None:
        if path != SPARQL_PATH or method not in ("GET", "POST"):
            return None
        text = (parse_qs(query).get("query") or [""])[0]
        if method == "POST" and not text:
            ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
            raw = body.decode("utf-8", "replace")
            text = raw if ctype == "application/sparql-query" else (parse_qs(raw).get("query") or [""])[0]
        if DCAT not in text:
            return None  # not a catalogue query: e-Sbírka's endpoint shares the path
        try:
            result = run_query(self.store, text)
        except QueryError as exc:
            return text_response(f"SPARQL query not supported by the mirror: {exc}\n", status=400)
        accept = (headers.get("Accept") or "").lower()
        ctype = "application/sparql-results+json" if "sparql-results+json" in accept else "application/json"
        return json_response(result, content_type=ctype)
