"""The lay-to-legal bridge: the Czech legal vocabulary (``mendel/data/legal_vocabulary.v1.yaml``) and the statutory
definitions of the indexed acts, as query expansions.

People ask with everyday words ("alimenty", "vyhazov z práce", "DPH"); the acts say "výživné", "výpověď z
pracovního poměru", "daň z přidané hodnoty". :meth:`LegalVocabulary.expand` finds the wordings of a query the
vocabulary knows and returns the legal wording for each; the searcher adds those words to the BM25 query at a lower
weight and appends them to the dense query.

Statutory definitions come from the acts themselves: :func:`harvest_definitions` reads "Pro účely tohoto zákona se
rozumí a) zaměstnavatelem …" lists, "Stavbou se rozumí …" sentences and "(dále jen „…“)" aliases from act chunks;
short aliases become two-way equivalents (a one-word alias, an everyday word elsewhere, only one way: from the name to
it), short definitions lead from the meaning to the term (:meth:`LegalVocabulary.with_definitions`).

Matching runs on the BM25 analyser's terms (``mendel.czech.analyzer``) reduced once more to a matching key, so one
listed form covers most of a word's cases ("alimenty", "alimentů", "alimentech").

    >>> [e.legal for e in default_vocabulary().expand("Kolik se platí alimenty na dítě?")][:1]
    ['výživné pro nezletilé dítě']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable

from mendel.czech.analyzer import TOKEN_RE, _term
from mendel.data import DATA_DIR, read_table
from mendel.law.acts_table import acts_by_citation, find_named_acts

VOCABULARY_FILE = DATA_DIR / "legal_vocabulary.v1.yaml"
# Endings removed once more for matching only (the analyser keeps stems of 4+ letters; "bytu" / "byt" must meet).
_MATCH_ENDINGS = sorted(
    "ami emi ymi imi ech ich ych ovi ov em om um ym ou ho mi a e i o u y".split(), key=len, reverse=True
)
# A definition becomes an equivalent only when both sides are this short: a long definiens is a description, not
# another name.
DEFINITION_MAX_TERMS = 6
DEFINITION_MIN_MEANING_TERMS = 3  # "osoba" alone is no name of "zaměstnavatel"
# Other words a multi-word lay wording may have between its own in a query: people put an object or a particle in
# ("řídit auto opilý", "neplatí výživné na dítě"); one is tolerated, more would join words of unrelated clauses.
MAX_WORDING_GAP = 1
# A lay wording the query says in part (``LegalVocabulary.legal_in_part``): every word of a two-word wording, in any
# order and place ("pojistka dům prodal" for "prodej pojištěného domu"), all words but one of a longer one. The
# legal words it adds to BM25 stop at this many: on the dev sets of the codes 12 kept the gains of 20 or 30 (as
# shipped: dev codes 5 recall@10 0.300 -> 0.400, keyword queries 0.350 -> 0.525) and lost less on the decisions.
PART_MAX_LEGAL_WORDS = 12


class VocabularyError(ValueError):
    """The vocabulary file breaks its own rules."""


@dataclass(frozen=True)
class Expansion:
    """A wording of the query the vocabulary knows: the span as typed and the legal wording it stands for."""

    legal: str
    text: str
    start: int
    end: int
    source: str  # abbreviation | act | lay | equivalent | definition


@dataclass(frozen=True)
class Definition:
    """A statutory definition or alias read from an act: ``term`` as the act writes it (often in the instrumental:
    "zaměstnavatelem"), what it means, how it was found and where."""

    term: str
    meaning: str
    kind: str  # "rozumí" | "dále jen"
    citation: str | None
    chunk_id: str


def match_key(term: str) -> str:
    """An analyser term reduced to what its case forms share: ``bytu`` / ``bytem`` / ``byt`` -> ``byt``."""
    if not term.isalpha():
        return term
    for ending in _MATCH_ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 3:
            return term[: -len(ending)]
    return term


def _keyed_tokens(text: str) -> list[tuple[str, int, int]]:
    """(match key, start, end) of each content token of ``text``, stop-words left out."""
    out = []
    for m in TOKEN_RE.finditer(text.lower()):
        term = _term(m.group(0))
        if term is not None:
            out.append((match_key(term), m.start(), m.end()))
    return out


def phrase_key(text: str) -> tuple[str, ...]:
    return tuple(key for key, _, _ in _keyed_tokens(text))


class LegalVocabulary:
    """Lay wordings, equivalents and abbreviations, matched against a query's terms."""

    def __init__(self, rules: Iterable[tuple[str, str, str]], abbreviations: dict[str, str], version: int = 1):
        """``rules``: (wording, legal wording, source); ``abbreviations``: abbreviation -> full wording."""
        self.version = version
        self._by_first: dict[str, list[tuple[tuple[str, ...], str, str]]] = {}
        self.size = 0
        for wording, legal, source in rules:
            key = phrase_key(wording)
            if not key or key == phrase_key(legal):
                continue
            self._by_first.setdefault(key[0], []).append((key, legal, source))
            self.size += 1
        for entries in self._by_first.values():
            entries.sort(key=lambda entry: -len(entry[0]))  # longest wording first
        self.abbreviations = dict(abbreviations)
        # (pattern, the literal text every match starts with, abbreviation, full wording): a query without the
        # literal is not scanned with the pattern (most queries hold none of the ~85 abbreviations)
        self._abbreviation_patterns = [
            (re.compile(_abbreviation_pattern(a)), _abbreviation_parts(a)[0], a, full)
            for a, full in sorted(abbreviations.items(), key=lambda kv: -len(kv[0]))
        ]

    def with_definitions(self, definitions: Iterable[Definition]) -> "LegalVocabulary":
        """This vocabulary plus the short definitions and aliases as equivalents: an alias of two or more words both
        ways, a one-word alias ("úřad" for the Státní úřad pro jadernou bezpečnost) only from the name to it."""
        extra = []
        for definition in definitions:
            term, meaning = phrase_key(definition.term), phrase_key(definition.meaning)
            if not term or len(term) > DEFINITION_MAX_TERMS or len(meaning) > DEFINITION_MAX_TERMS:
                continue
            if definition.kind == "dále jen" and len(meaning) >= 2:
                # an alias: the long name and the short one name the same thing in that act; a one-word alias
                # ("úřad", "žádost", "firma") is an everyday word elsewhere and leads to nothing
                extra.append((definition.meaning, definition.term, "definition"))
                if len(term) >= 2:
                    extra.append((definition.term, definition.meaning, "definition"))
            elif definition.kind == "rozumí" and len(meaning) >= DEFINITION_MIN_MEANING_TERMS:
                # a query that says what the act defines gets the defined term, never the reverse ("osoba")
                extra.append((definition.meaning, definition.term, "definition"))
        copy = LegalVocabulary([], self.abbreviations, self.version)
        copy._by_first = {first: list(entries) for first, entries in self._by_first.items()}
        copy.size = self.size
        for wording, legal, source in extra:
            key = phrase_key(wording)
            if key and key != phrase_key(legal):
                copy._by_first.setdefault(key[0], []).append((key, legal, source))
                copy.size += 1
        for entries in copy._by_first.values():
            entries.sort(key=lambda entry: -len(entry[0]))
        return copy

    @functools.cached_property
    def _rules_by_key(self) -> dict[str, list[tuple[tuple[str, ...], str]]]:
        """Each matching key -> the (wording, legal wording) rules of two or more words holding it (the maintained
        file's rules: an act's harvested definition is matched whole only)."""
        rules = {
            (wording, legal): None  # a wording listed under two areas is one rule
            for entries in self._by_first.values()
            for wording, legal, source in entries
            if len(wording) >= 2 and source != "definition"
        }
        by_key: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for wording, legal in rules:
            for key in set(wording):
                by_key.setdefault(key, []).append((wording, legal))
        return by_key

    def part_keys(self) -> frozenset[str]:
        """Every key a lay wording can be said in part by (:meth:`legal_in_part`)."""
        return frozenset(self._rules_by_key)

    def legal_in_part(
        self,
        query: str,
        known: Iterable[str] = (),
        max_words: int = PART_MAX_LEGAL_WORDS,
        common: Collection[str] = frozenset(),
    ) -> list[str]:
        """The legal wordings of the lay wordings ``query`` says in part (``PART_MAX_LEGAL_WORDS``): those matching
        more of their words first, then longer ones; none of ``known`` (the exact matches) and none whose words the
        query already holds, until ``max_words`` legal words. A key in ``common`` (a word of most texts: "chci",
        "peníze") does not count towards saying a wording."""
        keys = {key for key, _, _ in _keyed_tokens(query)}
        matched: dict[tuple[tuple[str, ...], str], int] = {}
        for key in keys:
            counts = 0 if key in common else 1
            for rule in self._rules_by_key.get(key, ()):
                matched[rule] = matched.get(rule, 0) + counts
        candidates = sorted(
            ((wording, legal) for (wording, legal), hits in matched.items() if hits >= _part_needed(wording)),
            key=lambda rule: (-matched[rule], -len(rule[0]), rule[1]),
        )
        out, seen, words = [], set(known), 0
        for _wording, legal in candidates:
            legal_key = phrase_key(legal)
            if legal in seen or (legal_key and set(legal_key) <= keys):
                continue
            size = len(legal.split())
            if words + size > max_words:
                break
            seen.add(legal)
            out.append(legal)
            words += size
        return out

    def expand(self, query: str) -> list[Expansion]:
        """The legal wordings for what ``query`` says in lay words, abbreviations or act abbreviations, in query
        order, each legal wording once; a wording already in the query is not repeated."""
        found: list[Expansion] = []
        for pattern, first, _abbreviation, full in self._abbreviation_patterns:
            if first not in query:
                continue
            for m in pattern.finditer(query):
                found.append(Expansion(full, m.group(0), m.start(), m.end(), "abbreviation"))
        for mention in find_named_acts(query):
            act = acts_by_citation().get(mention.citation)
            if mention.via == "abbreviation" and act is not None:
                found.append(Expansion(act.short_name, mention.text, mention.start, mention.end, "act"))
        tokens = _keyed_tokens(query)
        keys = [key for key, _, _ in tokens]
        for position, key in enumerate(keys):
            for wording, legal, source in self._by_first.get(key, ()):
                last = _wording_end(keys, position, wording)
                if last is not None:
                    start, end = tokens[position][1], tokens[last][2]
                    found.append(Expansion(legal, query[start:end], start, end, source))
        present = set(keys)
        out, seen = [], set()
        for expansion in sorted(found, key=lambda e: (e.start, -(e.end - e.start))):
            legal_key = phrase_key(expansion.legal)
            if expansion.legal in seen or (legal_key and set(legal_key) <= present):
                continue
            seen.add(expansion.legal)
            out.append(expansion)
        return out


# What the dense encoder is given of the bridge: abbreviations and acts named by abbreviation say exactly one thing,
# and so does a lay wording of two or more words ("hlavou státu" -> "prezident republiky"); a single everyday word
# ("firma", "obálky", "kanalizace") stands for a legal term only sometimes, and appended to a sentence it moves the
# query's vector more than it helps (BM25, where an expansion term counts half, keeps all of them).
DENSE_SOURCES = frozenset({"abbreviation", "act"})


def dense_wordings(expansions: Iterable[Expansion]) -> list[str]:
    """The legal wordings of ``expansions`` (:meth:`LegalVocabulary.expand`) that the dense query carries."""
    return [e.legal for e in expansions if e.source in DENSE_SOURCES or len(phrase_key(e.text)) >= 2]


def _part_needed(wording: tuple[str, ...]) -> int:
    """How many of a lay wording's words a query must hold to say it in part."""
    return len(wording) if len(wording) == 2 else len(wording) - 1


def _wording_end(keys: list[str], position: int, wording: tuple[str, ...]) -> int | None:
    """The index of the last query key of ``wording`` matched from ``position`` on, its words in order with at most
    ``MAX_WORDING_GAP`` other words between them ("řídit auto opilý" says "řídit opilý", "neplatí výživné na dítě"
    says "neplatí na dítě"); None when it is not there."""
    at, skipped = position, 0
    for part in wording[1:]:
        at += 1
        while at < len(keys) and keys[at] != part and skipped < MAX_WORDING_GAP:
            at, skipped = at + 1, skipped + 1
        if at >= len(keys) or keys[at] != part:
            return None
    return at


def _abbreviation_parts(abbreviation: str) -> list[str]:
    """The parts of an abbreviation that may stand apart: "s.r.o." -> "s.", "r.", "o."."""
    return [part for part in re.split(r"(?<=\.)\s*", abbreviation) if part]


def _abbreviation_pattern(abbreviation: str) -> str:
    # whole tokens, inner spaces optional ("s.r.o." = "s. r. o."), case-sensitive; not inside an identifier
    # ("NS" of "ECLI:CZ:NS:2026:…" is part of the ECLI, not the Supreme Court named in words)
    parts = [re.escape(part) for part in _abbreviation_parts(abbreviation)]
    return r"(?<![\w.:])" + r"\s*".join(parts) + (r"(?!\w)" if abbreviation[-1].isalnum() else "")


def parse_vocabulary(data: dict) -> LegalVocabulary:
    """A :class:`LegalVocabulary` from the file's mapping; :class:`VocabularyError` when it is malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("areas"), dict):
        raise VocabularyError("expected a mapping with 'areas'")
    rules: list[tuple[str, str, str]] = []
    for area, entries in data["areas"].items():
        if not isinstance(entries, dict):
            raise VocabularyError(f"area {area!r}: expected 'legal term: [lay wordings]'")
        for legal, lay in entries.items():
            if not isinstance(lay, list) or not all(isinstance(w, str) and w.strip() for w in lay):
                raise VocabularyError(f"area {area!r}, {legal!r}: lay wordings must be a list of strings")
            rules += [(wording, str(legal), "lay") for wording in lay]
    for group in data.get("equivalents") or ():
        if not isinstance(group, list) or len(group) < 2:
            raise VocabularyError(f"equivalents: {group!r} needs two or more terms")
        rules += [(a, b, "equivalent") for a in group for b in group if a != b]
    abbreviations = {str(k): str(v) for k, v in (data.get("abbreviations") or {}).items()}
    return LegalVocabulary(rules, abbreviations, version=int(data.get("version", 1)))


@functools.lru_cache(maxsize=4)
def load_vocabulary(path: Path = VOCABULARY_FILE) -> LegalVocabulary:
    return parse_vocabulary(read_table(path))


def default_vocabulary() -> LegalVocabulary:
    return load_vocabulary()


# --- statutory definitions ---------------------------------------------------------------------------------

# "… se rozumí" / "… se pro účely … rozumí"; the defined words stand before it (single definition) or after it
# as a lettered list ("a) zaměstnavatelem osoba …, b) …").
_DEFINES_RE = re.compile(r"\bse\s+(?:pro\s+účely\s+[^.;:]{0,80}?\s+)?rozum(?:í|ějí)\b", re.IGNORECASE)
_LIST_ITEM_RE = re.compile(r"(?:^|[\s,;:])([a-z]{1,2})\)\s+", re.MULTILINE)
_ALIAS_RE = re.compile(r"\(dále\s+jen\s+[„\"“']([^“”\"'‘]{2,80})[“”\"'‘]\s*\)")
# Instrumental endings: the defined words of "zaměstnavatelem se rozumí", "veřejnou zakázkou se rozumí".
_INSTRUMENTAL_RE = re.compile(r"^\w*(?:em|ím|ým|ou|ami|emi|ými|ími|mi)$", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?", re.UNICODE)
_MEANING_END_RE = re.compile(r"[;.]|,\s*(?:[a-z]{1,2}\)|pokud|není-li|jestliže|který|která|které)\s", re.IGNORECASE)
MAX_MEANING_CHARS = 200
# The citation of an act of the Collection of Laws: a decision's file number ("12 C 184/2025-17") is no act, and the
# aliases its text introduces ("(dále jen „smlouva“)" for the loan contract at issue) are the case's, not the law's.
ACT_CITATION_RE = re.compile(r"^\d{1,4}/\d{4} Sb\.$")


def _instrumental_prefix(words: list[str]) -> int:
    """How many leading words are in the instrumental (the defined term of a lettered item)."""
    count = 0
    for word in words[:5]:
        if _INSTRUMENTAL_RE.match(word):
            count += 1
        else:
            break
    return count


def _meaning(text: str) -> str:
    end = _MEANING_END_RE.search(text)
    return " ".join(text[: end.start() if end else MAX_MEANING_CHARS].split())[:MAX_MEANING_CHARS].strip(" ,")


def definitions_in(text: str, citation: str | None = None, chunk_id: str = "") -> list[Definition]:
    """The statutory definitions and aliases of one passage of an act."""
    found: list[Definition] = []
    for m in _DEFINES_RE.finditer(text):
        after = text[m.end() :]
        items = list(_LIST_ITEM_RE.finditer(after[:4000]))
        if items and items[0].start() < 8:
            # a lettered list: each item opens with the defined words in the instrumental
            for index, item in enumerate(items):
                body = after[item.end() : items[index + 1].start() if index + 1 < len(items) else len(after)]
                words = _WORD_RE.findall(body[:120])
                count = _instrumental_prefix(words)
                if count == 0 or count >= len(words):
                    continue
                term_end = body.find(words[count - 1]) + len(words[count - 1])
                meaning = _meaning(body[term_end:])
                if meaning:
                    found.append(Definition(" ".join(words[:count]), meaning, "rozumí", citation, chunk_id))
            continue
        # "Stavbou se rozumí …": the defined words right before
        before = _WORD_RE.findall(re.split(r"[.;:)]", text[max(0, m.start() - 80) : m.start()])[-1])
        term_words: list[str] = []
        for word in reversed(before):
            if _INSTRUMENTAL_RE.match(word) and len(term_words) < 4:
                term_words.insert(0, word)
            else:
                break
        meaning = _meaning(after)
        if term_words and meaning:
            found.append(Definition(" ".join(term_words), meaning, "rozumí", citation, chunk_id))
    for m in _ALIAS_RE.finditer(text):
        alias = " ".join(m.group(1).split())
        before = text[max(0, m.start() - 160) : m.start()]
        clause = re.split(r"[.;:()]|\bč\.\s*\d+/\d+\s*Sb\.,?", before)[-1]
        name = _aliased_name(_WORD_RE.findall(clause)[-8:], alias)
        if name and phrase_key(name) != phrase_key(alias):
            found.append(Definition(alias, name, "dále jen", citation, chunk_id))
    return found


def _aliased_name(words: list[str], alias: str) -> str | None:
    """The name an alias stands for among the words before "(dále jen …)": from the last word sharing the
    alias's first word ("… vypočítá Ministerstvo pro místní rozvoj" for "ministerstvo"), or the words whose
    initials spell an abbreviation ("občanského soudního řádu" for "o. s. ř."); None when neither is there."""
    head = phrase_key(alias)[:1]
    for start in range(len(words) - 1, -1, -1):
        if head and phrase_key(words[start])[:1] == head:
            return " ".join(words[start:])
    initials = [c for c in alias.lower() if c.isalpha()]
    if 2 <= len(initials) <= 6 and len(alias.replace(" ", "")) <= 2 * len(initials) and len(words) >= len(initials):
        tail = words[-len(initials) :]
        if [w[0].lower() for w in tail] == initials:
            return " ".join(tail)
    return None


def harvest_definitions(chunks: Iterable[dict]) -> list[Definition]:
    """Statutory definitions of the acts among ``chunks`` (bundle chunk rows: ``text``, ``citation``,
    ``chunk_id``): only chunks of an act of the Collection (a decision's text, cited by its file number, quoting a
    definition or naming the contract at issue is not the law's own), each (term, meaning) once."""
    out: list[Definition] = []
    seen: set[tuple[str, str]] = set()
    for chunk in chunks:
        text = chunk.get("text") or ""
        if not ACT_CITATION_RE.match(chunk.get("citation") or "") or ("rozum" not in text and "dále jen" not in text):
            continue
        for definition in definitions_in(text, chunk.get("citation"), chunk.get("chunk_id", "")):
            key = (definition.term.lower(), definition.meaning.lower())
            if key not in seen:
                seen.add(key)
                out.append(definition)
    return out
