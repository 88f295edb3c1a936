"""Gold items that name what answers a question rather than quote it, whether a search hit is one of them, and
whether a bundle holds a question's gold at all (:class:`GroundTruth`, for passage gold too).

- provision gold ``{"act": "89/2012 Sb.", "provision": "§ 2254"}``: a passage of that act whose provision path
  holds that § or článek (a component of its section path, its ``provision`` field, or a line of its text that is
  the provision's own heading); without ``provision``, any passage of the act;
- decision gold ``{"file_number": "11 Tz 117/2005"}``: the decision's document;
- notice gold ``{"place": "Blešno", "title_any": [...]}``: a document of that municipality whose title or address
  holds one of the words;
- ``{"unanswerable": true, "governing_act": "262/2006 Sb."}``: no hit answers; the coverage block should name
  the act as not held (:func:`names_act`).

The items of one question are alternatives: any one of them answers it. Hits are :class:`Hit` objects or dicts;
``documents`` is the bundle's ``documents.json`` by doc_id (place, title and citation of a hit's document).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from mendel.czech.analyzer import strip_diacritics
from mendel.law.identifiers import parse_act_path, parse_citation

PASSAGE, PROVISION, ACT, DECISION, NOTICE, UNANSWERABLE = (
    "passage",
    "provision",
    "act",
    "decision",
    "notice",
    "unanswerable",
)
ALTERNATIVE_KINDS = frozenset({PROVISION, ACT, DECISION, NOTICE})
NOT_IN_COLLECTION = "not_in_collection"  # a question's ``expect``: the collection holds no answer
_HELD_STATUSES = frozenset({"indexed"})  # coverage statuses that say the collection holds the act

_WS = re.compile(r"\s+")
_SECTION = r"(?P<section>\d+[a-z]?)"
_ARTICLE = r"(?P<article>\d+[a-z]?|[IVXLC]+)"
_PROVISION_HEAD = re.compile(
    rf"^\s*(?:§\s*{_SECTION}|(?:čl\.|článek|cl\.)\s*{_ARTICLE}|par_{_SECTION.replace('section', 'par')}"
    rf"|cl_{_ARTICLE.replace('article', 'cl')})(?![0-9a-z])",
    re.IGNORECASE,
)
_HEADING_LINE = re.compile(rf"^\s*(?:§\s*{_SECTION}|(?:Čl\.|Článek|ČLÁNEK)\s*{_ARTICLE})\.?\s*$", re.MULTILINE)
# an act's own citation at the start of a title: "Zákon č. 40/2009 Sb., trestní zákoník" (never the amended act
# a title names after "kterým se mění")
_TITLE_CITATION = re.compile(
    r"^\W*(?:(?:ústavní\s+)?zákon|vyhláška|nařízení\s+vlády|usnesení|sdělení)?\s*(?:č\.\s*)?"
    r"(?P<citation>\d{1,4}\s*/\s*\d{4}\s*Sb\.)",
    re.IGNORECASE,
)


def field_of(hit, name: str, default=None):
    if isinstance(hit, Mapping):
        return hit.get(name, default)
    return getattr(hit, name, default)


def normalize(text: str | None) -> str:
    """Whitespace collapsed to single spaces, stripped, lower case."""
    return _WS.sub(" ", text or "").strip().lower()


def answerable(question: dict) -> bool:
    """False for a question written to have no answer in the collection (``expect: not_in_collection``, or a gold
    item ``unanswerable: true``)."""
    if question.get("expect") == NOT_IN_COLLECTION:
        return False
    return not any(gold_kind(g) == UNANSWERABLE for g in question.get("gold") or [] if isinstance(g, dict))


def governing_act(question: dict) -> str | None:
    """The act an unanswerable question names as the one that governs it (not held by the collection)."""
    for g in question.get("gold") or []:
        if isinstance(g, dict) and gold_kind(g) == UNANSWERABLE:
            return normalize_citation(g.get("governing_act"))
    return None


def gold_kind(item: Mapping) -> str | None:
    if item.get("unanswerable") is True:
        return UNANSWERABLE
    if "doc_id" in item:
        return PASSAGE
    if "act" in item:
        return PROVISION if item.get("provision") else ACT
    if "file_number" in item:
        return DECISION
    if "place" in item:
        return NOTICE
    return None


def alternatives(gold) -> bool:
    """True when the gold items are alternatives (provision, act, decision, notice): one found answers all."""
    return bool(gold) and all(gold_kind(item) in ALTERNATIVE_KINDS for item in gold)


def item_errors(item: Mapping) -> list[str]:
    """What is wrong with one gold item of the kinds this module judges (a passage item is checked elsewhere)."""
    kind = gold_kind(item)
    if kind is None:
        return [f"gold item of no known kind: {dict(item)}"]
    if kind in (PROVISION, ACT):
        errors = [] if normalize_citation(item["act"]) else [f"act is not a citation: {item['act']!r}"]
        if kind == PROVISION and provision_key(item["provision"]) is None:
            errors.append(f"provision is not a § or čl.: {item['provision']!r}")
        return errors
    if kind == DECISION:
        return [] if _tokens(item["file_number"]) else [f"empty file number: {item['file_number']!r}"]
    if kind == NOTICE:
        stems = item.get("title_any", [])
        ok = isinstance(item["place"], str) and item["place"].strip() and isinstance(stems, list)
        return [] if ok and all(isinstance(s, str) and _words(s) for s in stems) else [f"bad notice gold: {item}"]
    if kind == UNANSWERABLE:
        act = item.get("governing_act")
        return [] if normalize_citation(act) else [f"governing_act is not a citation: {act!r}"]
    return []


# --- acts and provisions ------------------------------------------------------------------------------------


def normalize_citation(text) -> str | None:
    """``"89/2012 Sb."`` for any spacing of it; None when ``text`` does not start with a citation."""
    act = parse_citation(text) if isinstance(text, str) else None
    return act.citation if act else None


def act_of(hit, documents: Mapping[str, Mapping] | None = None) -> str | None:
    """The citation of the act a hit (or a document record) belongs to: its citation, its ELI, or the citation
    its document's title opens with."""
    doc_id = field_of(hit, "doc_id") or ""
    doc = (documents or {}).get(doc_id) or {}
    for citation in (field_of(hit, "citation"), doc.get("citation")):
        found = normalize_citation(citation)
        if found:
            return found
    if doc_id.startswith("/eli/cz/"):
        parsed = parse_act_path(doc_id)
        if parsed:
            return parsed[0].citation
    for title in (doc.get("title"), field_of(hit, "title")):
        m = _TITLE_CITATION.match(title or "")
        if m:
            return normalize_citation(m["citation"])
    return None


def provision_key(text: str | None) -> tuple[str, str] | None:
    """``"§ 2235"`` -> ("§", "2235"); ``"čl. 5"`` / ``"Článek 5"`` / ``"cl_5"`` -> ("čl", "5"); a longer
    reference keeps its head (``"§ 12 odst. 3"`` -> ("§", "12")); None for anything else."""
    m = _PROVISION_HEAD.match(text or "")
    if not m:
        return None
    section = m.group("section") or m.group("par")
    if section:
        return ("§", section.lower())
    article = m.group("article") or m.group("cl")
    return ("čl", article.lower() if article[0].isdigit() else article.upper())


def provisions_of(hit) -> set[tuple[str, str]]:
    """The provisions a passage is part of or opens: its section path's § / čl. components, its ``provision``
    field, and the provision headings standing on a line of their own in its text."""
    found = set()
    for part in (field_of(hit, "section") or "").split(" > "):
        key = provision_key(part)
        if key:
            found.add(key)
    key = provision_key(field_of(hit, "provision"))
    if key:
        found.add(key)
    for m in _HEADING_LINE.finditer(field_of(hit, "text") or ""):
        key = provision_key(m.group(0).strip())
        if key:
            found.add(key)
    return found


def is_provision(hit, item: Mapping, documents: Mapping | None = None) -> bool:
    if act_of(hit, documents) != normalize_citation(item["act"]):
        return False
    return not item.get("provision") or provision_key(item["provision"]) in provisions_of(hit)


# --- decisions ----------------------------------------------------------------------------------------------


def _fold_upper(text: str | None) -> str:
    return strip_diacritics(text or "").upper()


def _tokens(file_number: str) -> list[str]:
    return re.findall(r"[0-9A-Z]+", _fold_upper(file_number))


def file_number_pattern(file_number: str) -> re.Pattern:
    """The file number in any spacing or separator, diacritics folded: ``11 Tz 117/2005`` also as
    ``11_Tz_117_2005`` or ``11.TZ.117.2005`` (an ECLI), never inside a longer number."""
    body = r"[\W_]*".join(re.escape(t) for t in _tokens(file_number))
    return re.compile(rf"(?<![0-9A-Z]){body}(?![0-9])")


def is_decision(hit, item: Mapping, documents: Mapping | None = None) -> bool:
    doc = (documents or {}).get(field_of(hit, "doc_id") or "") or {}
    pattern = file_number_pattern(item["file_number"])
    key = "".join(_tokens(item["file_number"]))
    for citation in (field_of(hit, "citation"), doc.get("citation")):
        if citation and "".join(_tokens(citation)) == key:
            return True
    places = (field_of(hit, "doc_id"), field_of(hit, "title"), doc.get("title"), field_of(hit, "url"))
    return any(pattern.search(_fold_upper(text)) for text in places if text)


# --- municipal documents ------------------------------------------------------------------------------------


def _words(text: str | None) -> str:
    """Diacritics folded, lower case, every run of other characters one space: ``Kanalizační-řád`` ->
    ``kanalizacni rad``."""
    return " ".join(re.findall(r"[0-9a-z]+", strip_diacritics(text or "").lower()))


def _compact(text: str | None) -> str:
    return _words(text).replace(" ", "")


def _host(url: str | None) -> str:
    m = re.match(r"^[a-z]+://([^/]+)", url or "", re.IGNORECASE)
    return m.group(1) if m else ""


def is_notice(hit, item: Mapping, documents: Mapping | None = None) -> bool:
    """A document of the place (its board's municipality, or the place in its or its notice's web address)
    whose title, notice title or address holds one of ``title_any`` (any title when the list is empty)."""
    doc = (documents or {}).get(field_of(hit, "doc_id") or "") or {}
    notice = doc.get("notice") if isinstance(doc.get("notice"), Mapping) else {}
    place = _compact(item["place"])
    url = field_of(hit, "url") or doc.get("url")
    at_place = _compact(doc.get("obec")) == place or any(
        place and place in _compact(text)
        for text in (_host(url), field_of(hit, "doc_id"), _host(notice.get("url")), notice.get("board"))
    )
    if not at_place:
        return False
    stems = [_words(s) for s in item.get("title_any") or []]
    if not stems:
        return True
    named = " | ".join(
        _words(t)
        for t in (
            field_of(hit, "title"),
            doc.get("title"),
            url,
            notice.get("title"),
            notice.get("url"),
            notice.get("attachment_name"),
        )
        if t
    )
    return any(stem in named for stem in stems)


# --- one verdict --------------------------------------------------------------------------------------------


def matches(hit, item: Mapping, documents: Mapping | None = None) -> bool:
    """``hit`` answers the gold ``item`` (a provision, act, decision or notice item; never an unanswerable one)."""
    kind = gold_kind(item)
    if kind in (PROVISION, ACT):
        return is_provision(hit, item, documents)
    if kind == DECISION:
        return is_decision(hit, item, documents)
    if kind == NOTICE:
        return is_notice(hit, item, documents)
    return False


def names_act(coverage, citation: str) -> bool:
    """The coverage block names the act ``citation`` as one the collection does not hold: an entry anywhere in it
    whose ``id`` or ``citation`` is that act, without the status ``indexed`` or ``held: true``."""
    wanted = normalize_citation(citation)
    if not wanted:
        return False
    stack = [coverage]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            named = any(normalize_citation(value.get(key)) == wanted for key in ("id", "citation"))
            if named and value.get("status") not in _HELD_STATUSES and value.get("held") is not True:
                return True
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


# --- is the gold in a bundle -------------------------------------------------------------------------------


class GroundTruth:
    """A bundle's chunks by document, indexed once for every question checked against them: whether each
    question's gold is there (:meth:`errors`), and which held acts lack a gold provision in every path
    (:meth:`warnings`)."""

    def __init__(self, chunks: Iterable[dict], documents: Iterable[str] | dict | None = None):
        self.by_doc: dict[str, list[dict]] = {}
        for c in chunks:
            self.by_doc.setdefault(c["doc_id"], []).append(c)
        self.known = set(documents) if documents is not None else set(self.by_doc)
        # documents.json records where given; else what the chunks say of their document
        records = documents if isinstance(documents, dict) else {}
        self.records = {d: records.get(d) or self._record_from_chunks(d) for d in self.known}
        self.acts: dict[str, set[str]] = {}  # act citation -> its documents
        for doc_id, record in self.records.items():
            act = act_of(record, self.records)
            if act:
                self.acts.setdefault(act, set()).add(doc_id)
        self._normalized: dict[int, str] = {}
        self._provisions: dict[str, set] = {}

    def _record_from_chunks(self, doc_id: str) -> dict:
        first = (self.by_doc.get(doc_id) or [{}])[0]
        return {"doc_id": doc_id, **{k: first.get(k) for k in ("citation", "title", "url") if first.get(k)}}

    def _text(self, chunk: dict) -> str:
        key = id(chunk)
        if key not in self._normalized:
            self._normalized[key] = normalize(chunk["text"])
        return self._normalized[key]

    def provisions(self, act: str) -> set:
        """The provisions the passages of ``act`` carry in their paths or open (read once per act)."""
        if act not in self._provisions:
            self._provisions[act] = {
                key
                for doc_id in self.acts.get(act, ())
                for c in self.by_doc.get(doc_id, [])
                for key in provisions_of(c)
            }
        return self._provisions[act]

    def _held(self, item: dict) -> bool:
        """The bundle holds what a named gold item points to (the act, the decision, a document of the place)."""
        kind = gold_kind(item)
        if kind in (PROVISION, ACT):
            return normalize_citation(item["act"]) in self.acts
        check = is_decision if kind == DECISION else is_notice
        return any(check(record, item, self.records) for record in self.records.values())

    def errors(self, questions: Sequence[dict]) -> list[str]:
        errors = []
        for q in questions:
            gold = q.get("gold", [])
            if not answerable(q):
                act = governing_act(q)
                if act and act in self.acts:
                    errors.append(f"{q['id']}: the bundle holds the governing act {act}: the question has an answer")
                continue
            if alternatives(gold):
                if not any(self._held(g) for g in gold):
                    errors.append(f"{q['id']}: the bundle holds none of {_describe(gold)}")
                continue
            for g in gold:
                if g["doc_id"] not in self.known:
                    errors.append(f"{q['id']}: unknown document {g['doc_id']}")
                    continue
                evidence = normalize(g["evidence"])
                on_page = [
                    c
                    for c in self.by_doc.get(g["doc_id"], [])
                    if int(c["page_start"]) <= int(g["page"]) <= int(c["page_end"])
                ]
                if not any(evidence in self._text(c) for c in on_page):
                    errors.append(f"{q['id']}: evidence not on page {g['page']} of {g['doc_id']}: {g['evidence']!r}")
        return errors

    def warnings(self, questions: Sequence[dict]) -> list[str]:
        """Questions the bundle holds the act of but no passage of which carries a gold provision in its path:
        scored (as misses, unless a hit opens the provision), and listed so a wrong § or a path the chunker lost
        is seen."""
        found = []
        for q in questions:
            gold = q.get("gold", [])
            named = [g for g in gold if gold_kind(g) == PROVISION] if alternatives(gold) else []
            if not named or any(gold_kind(g) != PROVISION and self._held(g) for g in gold):
                continue
            located = [
                g for g in named if provision_key(g["provision"]) in self.provisions(normalize_citation(g["act"]))
            ]
            if any(normalize_citation(g["act"]) in self.acts for g in named) and not located:
                found.append(f"{q['id']}: no passage of the bundle carries {_describe(named)} in its path")
        return found


def _describe(gold: Sequence[dict]) -> str:
    parts = []
    for g in gold:
        kind = gold_kind(g)
        if kind == PROVISION:
            parts.append(f"{g['act']} {g['provision']}")
        elif kind == ACT:
            parts.append(g["act"])
        elif kind == DECISION:
            parts.append(g["file_number"])
        elif kind == NOTICE:
            parts.append(f"{g['place']} ({', '.join(g.get('title_any') or [])})")
    return "; ".join(parts)
