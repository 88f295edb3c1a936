"""The legal NER pipeline: a blank Czech spaCy pipeline (no model download, no trained weights) whose
components are the rule finders. ``mendel.ner.recognise`` runs it; nothing else recognises entities.

Components, in order:

1. the tokenizer of ``spacy.blank("cs")`` plus special cases that keep legal abbreviations whole
   (``odst.``, ``písm.``, ``č.``, ``Sb.``, ``sp.``/``zn.``, …; ``LEGAL_ABBREVIATIONS``);
2. the finders, each adding its matches to ``doc._.ner_pending`` as ``(start, end, label, norm)``
   in characters (PDF text glues what a tokenizer would keep apart: ``§122odst. 3``, ``10000Kč``):
   ``mendel_decision_refs`` and ``mendel_law_refs`` (``rules.py``), ``mendel_dates`` (``dates.py``),
   ``mendel_money`` (``money.py``) and ``mendel_institutions`` (``institutions.py``, names from the
   versioned pattern file ``data/patterns/institutions.v{N}.jsonl``). Their order matters: of two
   candidates with the same span, the one found first wins;
3. ``mendel_legal_ner``: keeps the non-overlapping candidates (``rules.resolve``: earliest start, then
   longest) as ``doc._.entities`` (``Entity`` objects, exact character offsets) and as ``doc.ents``
   with ``span._.norm``, splitting a token where an entity edge falls inside it.

The names are matched on characters, not with spaCy's token-level ``span_ruler``: a phrase of tokens
misses a name broken across PDF lines ("Krajského\\nsoudu") or glued to a character the tokenizer
does not split off ("1)Krajský úřad"), and token patterns that allow line breaks are far slower
(``benchmarks/bench_ner.py`` has the figures).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Sequence
from functools import lru_cache

import spacy
from spacy.language import Language
from spacy.symbols import ORTH
from spacy.tokens import Doc, Span

from mendel.ner import rules
from mendel.ner.dates import YEAR, date_candidates
from mendel.ner.document_acts import DocumentActs
from mendel.ner.institutions import institution_candidates
from mendel.ner.money import money_candidates
from mendel.ner.rules import Entity

NER_NAME = "mendel_legal_ner"
BATCH_SIZE = 256
# spaCy's vocabulary keeps every string it has tokenised; past this many the shared pipeline is built afresh, so
# that a long-running server fed arbitrary queries stays bounded in memory
MAX_VOCABULARY_STRINGS = 500_000

# Czech legal abbreviations kept whole by the tokenizer ("odst." not "odst" + ".");
# glued pairs are split into their two abbreviations.
LEGAL_ABBREVIATIONS: tuple[str, ...] = (
    "odst.",
    "písm.",
    "č.",
    "Č.",
    "Sb.",
    "čl.",
    "Čl.",
    "sp.",
    "zn.",
    "j.",
    "sen.",
    "násl.",
    "zák.",
    "vyhl.",
    "tr.",
    "ř.",
    "obč.",
    "rozh.",
    "odd.",
    "resp.",
    "tj.",
    "např.",
    "srov.",
    "tzv.",
    "tis.",
    "mil.",
    "mld.",
    "Kčs.",
)
GLUED_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "sp.zn.": ("sp.", "zn."),
    "č.j.": ("č.", "j."),
    "Č.j.": ("Č.", "j."),
    "sen.zn.": ("sen.", "zn."),
}

for _target, _name in (
    (Span, "norm"),
    (Doc, "default_act"),
    (Doc, "entities"),
    (Doc, "ner_pending"),
    (Doc, "ner_document"),
):
    if not _target.has_extension(_name):
        _target.set_extension(_name, default=None)


def _pending(doc: Doc, extensions=None) -> tuple[str, list]:
    """The doc's text and the candidates found so far (``doc.text`` joins every token: read it once)."""
    extensions = extensions if extensions is not None else doc._
    pending = extensions.ner_pending
    if pending is None:
        pending = extensions.ner_pending = (doc.text, [])
    return pending


@Language.component("mendel_decision_refs")
def decision_refs(doc: Doc) -> Doc:
    text, found = _pending(doc)
    found.extend(rules.decision_candidates(text))
    return doc


@Language.component("mendel_law_refs")
def law_refs(doc: Doc) -> Doc:
    """Provisions (with ``doc._.default_act`` for those cited without an act), Czech and EU acts, named acts, the
    acts the document defines for itself (``doc._.ner_document``, shared by the texts of one document)."""
    extensions = doc._  # each ``doc._`` makes an object: read it once
    text, found = _pending(doc, extensions)
    found.extend(rules.law_candidates(text, extensions.default_act, extensions.ner_document))
    return doc


# every date has a four-digit year (``ner_eval/GUIDELINES.md``): a text without one is skipped
_YEAR_ANYWHERE_RE = re.compile(YEAR)


@Language.component("mendel_dates")
def dates(doc: Doc) -> Doc:
    text, found = _pending(doc)
    if _YEAR_ANYWHERE_RE.search(text):
        found.extend(date_candidates(text))
    return doc


@Language.component("mendel_money")
def money(doc: Doc) -> Doc:
    text, found = _pending(doc)
    found.extend(money_candidates(text))
    return doc


@Language.component("mendel_institutions")
def institutions(doc: Doc) -> Doc:
    text, found = _pending(doc)
    found.extend(institution_candidates(text))
    return doc


FINDERS = ("mendel_decision_refs", "mendel_law_refs", "mendel_dates", "mendel_money", "mendel_institutions")


class LegalNER:
    """The candidates of the finders -> ``doc._.entities`` and ``doc.ents`` (with ``span._.norm``)."""

    def __call__(self, doc: Doc) -> Doc:
        extensions = doc._
        text, found = _pending(doc, extensions)
        extensions.ner_pending = None
        entities = rules.resolve(text, found)
        extensions.entities = entities
        if entities:
            _set_ents(doc, entities)
        return doc


@Language.factory(NER_NAME)
def make_legal_ner(nlp: Language, name: str) -> LegalNER:
    return LegalNER()


def _set_ents(doc: Doc, entities: list[Entity]) -> None:
    spans = [doc.char_span(e.start, e.end, label=e.label) for e in entities]
    if None in spans:  # an entity edge inside a token: split it there, then every span again
        _split_at_boundaries(doc, [e for e, span in zip(entities, spans) if span is None])
        spans = [
            doc.char_span(e.start, e.end, label=e.label)
            or doc.char_span(e.start, e.end, label=e.label, alignment_mode="expand")  # an edge in whitespace
            for e in entities
        ]
    kept, last_end = [], 0
    for entity, span in zip(entities, spans):
        if span is not None and span.start >= last_end:
            span._.norm = entity.norm
            kept.append(span)
            last_end = span.end
    doc.ents = kept


def _split_at_boundaries(doc: Doc, entities: list[Entity]) -> None:
    """Split tokens so that each of ``entities`` starts and ends on a token boundary."""
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


# spaCy refuses texts over 1,000,000 characters to spare a statistical parser's memory; this pipeline is a
# tokenizer and rules, and a consolidated code's whole text (relations read it at once) runs to 1.2 M characters.
MAX_TEXT_CHARS = 20_000_000


def build_pipeline() -> Language:
    """Blank ``cs`` + legal tokenizer exceptions + the finders + the entity component."""
    nlp = spacy.blank("cs")
    nlp.max_length = MAX_TEXT_CHARS
    for abbr in LEGAL_ABBREVIATIONS:
        nlp.tokenizer.add_special_case(abbr, [{ORTH: abbr}])
    for glued, parts in GLUED_ABBREVIATIONS.items():
        nlp.tokenizer.add_special_case(glued, [{ORTH: part} for part in parts])
    for name in FINDERS:
        nlp.add_pipe(name)
    nlp.add_pipe(NER_NAME)
    return nlp


@lru_cache(maxsize=1)
def shared_pipeline() -> Language:
    """The pipeline, built once per process."""
    return build_pipeline()


def recognise(
    texts: Iterable[str],
    default_act: str | Sequence[str | None] | None = None,
    batch_size: int = BATCH_SIZE,
    documents: Sequence[Hashable | None] | None = None,
) -> list[list[Entity]]:
    """Entities of each text (labels in ``rules.LABELS``), sorted by start and non-overlapping.

    ``default_act`` (e.g. ``"563/1991 Sb."``) prefixes the norm of provisions cited without an act: one act
    for every text, or a sequence with one act (or None) per text. ``documents`` gives each text its document
    (any key; None: a document of its own): consecutive texts of one document share what it defines for itself
    (``(dále jen „a. t.“)``, an act's title), in text order. A ``DocumentActs`` as the key is used as it is, so a
    caller that recognises a document's texts over several calls keeps what the earlier ones defined. A text that
    is empty or not a string has no entities.
    """
    texts = list(texts)
    if default_act is None or isinstance(default_act, str):
        acts: Sequence[str | None] = [default_act] * len(texts)
    else:
        acts = list(default_act)
        if len(acts) != len(texts):
            raise ValueError(f"{len(acts)} default acts for {len(texts)} texts")
    if documents is not None and len(documents) != len(texts):
        raise ValueError(f"{len(documents)} documents for {len(texts)} texts")
    nlp = shared_pipeline()
    if len(nlp.vocab.strings) > MAX_VOCABULARY_STRINGS:
        shared_pipeline.cache_clear()
        nlp = shared_pipeline()
    results: list[list[Entity]] = [[] for _ in texts]
    wanted = [i for i, text in enumerate(texts) if isinstance(text, str) and text]
    contexts = _document_contexts([documents[i] for i in wanted] if documents is not None else None, len(wanted))
    docs = nlp.pipe(_docs(nlp, [texts[i] for i in wanted], [acts[i] for i in wanted], contexts), batch_size=batch_size)
    for i, doc in zip(wanted, docs):
        results[i] = doc._.entities
    return results


def _document_contexts(documents: Sequence[Hashable | None] | None, count: int) -> list[DocumentActs]:
    """One ``DocumentActs`` per run of consecutive texts of the same document, a fresh one for every other text."""
    contexts: list[DocumentActs] = []
    for i in range(count):
        key = documents[i] if documents is not None else None
        if isinstance(key, DocumentActs):
            contexts.append(key)
            continue
        same = key is not None and i > 0 and not isinstance(documents[i - 1], DocumentActs) and documents[i - 1] == key
        contexts.append(contexts[-1] if same else DocumentActs())
    return contexts


def _docs(nlp: Language, texts: list[str], acts: Sequence[str | None], contexts: list[DocumentActs]) -> Iterator[Doc]:
    for text, act, context in zip(texts, acts, contexts):
        doc = nlp.make_doc(text)
        extensions = doc._
        extensions.default_act = act
        extensions.ner_document = context
        extensions.ner_pending = (text, [])
        yield doc


def recognise_text(text: str, default_act: str | None = None) -> list[Entity]:
    """``recognise`` for one text."""
    return recognise([text], default_act)[0]
