"""The recogniser as a spaCy pipeline (blank ``cs``; no model download, no trained weights).

Components, in order:

1. tokenizer: the blank Czech tokenizer plus special cases for legal abbreviations
   (``odst.``, ``písm.``, ``č.``, ``Sb.``, ``čl.``, ``sp.``/``zn.``, ``č.``/``j.``, …; see
   ``mendel.ner.patterns.LEGAL_ABBREVIATIONS``);
2. ``mendel_gazetteer``: a ``span_ruler`` loaded from the versioned pattern file generated from the
   gazetteer table (``data/patterns/institutions.v{N}.jsonl``), writing candidate spans to
   ``doc.spans["mendel_gazetteer"]`` with the canonical name as ``span.id_``;
3. ``mendel_legal_ner``: wraps the regex rules and normalisers of ``mendel.ner.rules``, merges the
   ruler's spans into the candidates, resolves overlaps like ``extract_entities`` (earliest start,
   then longest), splits tokens where an entity boundary falls inside one (PDF text such as
   ``§122odst. 3``), and sets ``doc.ents`` with ``span._.norm``.

The result equals ``extract_entities(doc.text)`` (tested on the gold corpus). ``spacy.load`` on a
saved pipeline needs the factories registered: import ``mendel.ner.pipeline`` first, or use
``load_pipeline``.
"""
from __future__ import annotations

import re
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.symbols import ORTH
from spacy.tokens import Doc, Span

from mendel.ner import rules
from mendel.ner.institutions import institution_context_ok
from mendel.ner.patterns import GLUED_ABBREVIATIONS, LEGAL_ABBREVIATIONS, load_patterns
from mendel.ner.rules import Entity

RULER_NAME = "mendel_gazetteer"
NER_NAME = "mendel_legal_ner"

if not Span.has_extension("norm"):
    Span.set_extension("norm", default=None)
if not Doc.has_extension("default_act"):
    Doc.set_extension("default_act", default=None)

_BEFORE_OK = re.compile(r"[\w.-]")
_AFTER_OK = re.compile(r"[\w/-]")


def add_legal_abbreviations(nlp: Language) -> None:
    """Tokenizer special cases: each abbreviation stays one token, glued pairs become two."""
    for abbr in LEGAL_ABBREVIATIONS:
        nlp.tokenizer.add_special_case(abbr, [{ORTH: abbr}])
    for glued, parts in GLUED_ABBREVIATIONS.items():
        nlp.tokenizer.add_special_case(glued, [{ORTH: part} for part in parts])


class LegalNER:
    """Regex rules + gazetteer spans -> ``doc.ents`` with ``span._.norm``."""

    def __init__(self, ruler_key: str = RULER_NAME, default_act: str | None = None):
        self.ruler_key = ruler_key
        self.default_act = default_act

    def _ruler_candidates(self, doc: Doc):
        text = doc.text
        for span in doc.spans.get(self.ruler_key, []):
            start, end = span.start_char, span.end_char
            if start > 0 and _BEFORE_OK.match(text[start - 1]):
                continue
            if end < len(text) and _AFTER_OK.match(text[end]):
                continue
            if not institution_context_ok(text, start, end):
                continue
            yield start, end, span.label_, span.id_ or None

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        if not text:
            return doc
        found = rules.candidates(text, doc._.default_act or self.default_act)
        found.extend(self._ruler_candidates(doc))
        entities = rules.resolve(text, found)
        _split_at_boundaries(doc, entities)
        spans = []
        for ent in entities:
            span = doc.char_span(ent.start, ent.end, label=ent.label, alignment_mode="strict")
            if span is None:  # a boundary inside whitespace: keep the nearest token span
                span = doc.char_span(ent.start, ent.end, label=ent.label, alignment_mode="expand")
            if span is not None:
                spans.append((span, ent.norm))
        doc.ents = [span for span, _ in spans]
        for span, norm in spans:
            span._.norm = norm
        return doc


def _split_at_boundaries(doc: Doc, entities: list[Entity]) -> None:
    """Split tokens so that every entity starts and ends on a token boundary."""
    cuts: dict[int, set[int]] = {}
    for ent in entities:
        for offset in (ent.start, ent.end):
            token = _token_containing(doc, offset)
            if token is not None and token.idx < offset < token.idx + len(token.text):
                cuts.setdefault(token.i, set()).add(offset - token.idx)
    if not cuts:
        return
    with doc.retokenize() as retokenizer:
        for i, points in cuts.items():
            token = doc[i]
            edges = [0, *sorted(points), len(token.text)]
            orths = [token.text[a:b] for a, b in zip(edges, edges[1:])]
            retokenizer.split(token, orths, heads=[(token, 0)] * len(orths))


def _token_containing(doc: Doc, offset: int):
    # binary search over token start offsets
    lo, hi = 0, len(doc) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        token = doc[mid]
        if offset < token.idx:
            hi = mid - 1
        elif offset >= token.idx + len(token.text):
            lo = mid + 1
        else:
            return token
    return None


@Language.factory(NER_NAME, default_config={"ruler_key": RULER_NAME, "default_act": None})
def make_legal_ner(nlp: Language, name: str, ruler_key: str, default_act: str | None) -> LegalNER:
    return LegalNER(ruler_key=ruler_key, default_act=default_act)


def build_pipeline() -> Language:
    """Blank ``cs`` + legal tokenizer exceptions + gazetteer span ruler + the rule component."""
    nlp = spacy.blank("cs")
    add_legal_abbreviations(nlp)
    ruler = nlp.add_pipe("span_ruler", name=RULER_NAME,
                         config={"spans_key": RULER_NAME, "validate": True, "overwrite": True})
    ruler.add_patterns(load_patterns())
    nlp.add_pipe(NER_NAME, config={"ruler_key": RULER_NAME})
    return nlp


def save_pipeline(path: str | Path, nlp: Language | None = None) -> Path:
    """Write the pipeline directory (loadable with ``spacy.load`` once this module is imported)."""
    path = Path(path)
    (nlp or build_pipeline()).to_disk(path)
    return path


def load_pipeline(path: str | Path) -> Language:
    return spacy.load(path)


def entities_from_doc(doc: Doc) -> list[Entity]:
    return [Entity(s.start_char, s.end_char, s.label_, s.text, s._.norm) for s in doc.ents]
