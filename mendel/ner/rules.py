"""Rules for references in Czech legal text: LAW_REF and DECISION_REF, and how entities are chosen.

The patterns live by what they find: acts as texts cite them in ``citations.py`` (with the named-act gazetteer of
``acts.py``, read from the acts table), provision chains and their act in ``provisions.py``, what a document defines
for itself in ``document_acts.py``, file numbers and ECLIs in ``decisions.py``. Each ``*_candidates`` finder yields
every match as ``(start, end, label, norm)`` (a provision chain adds its elements); ``resolve`` keeps the
non-overlapping ones. The finders run as components of the spaCy pipeline (``mendel.ner.component``), next to the
DATE, MONEY and INSTITUTION finders of ``dates.py``, ``money.py`` and ``institutions.py``; callers use
``mendel.ner.recognise``. Annotation rules are in ``ner_eval/GUIDELINES.md``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from mendel.law.identifiers import eli_for_citation
from mendel.ner import provisions
from mendel.ner.acts import NAMED_ACTS, gazetteer
from mendel.ner.citations import EU_BARE_RE, czech_act_mentions, eu_act_mentions, named_act_mentions
from mendel.ner.dates import DATE
from mendel.ner.decisions import DECISION_REF, decision_candidates
from mendel.ner.document_acts import DocumentActs
from mendel.ner.institutions import INSTITUTION
from mendel.ner.money import MONEY
from mendel.ner.provisions import Element

LAW_REF = "LAW_REF"
LABELS = (LAW_REF, DECISION_REF, DATE, MONEY, INSTITUTION)
__all__ = [
    "LAW_REF",
    "DECISION_REF",
    "LABELS",
    "Element",
    "Entity",
    "decision_candidates",
    "law_candidates",
    "read_ahead",
]


@dataclass(frozen=True)
class Entity:
    start: int
    end: int
    label: str
    text: str
    norm: str | None
    # the provisions of a chain that names more than one, each with its own span and norm (the chain's act
    # distributed to all; the first one's norm is the entity's); empty for every other entity. They follow from
    # the text, so two entities of one span, label and norm are equal whatever their elements.
    elements: tuple[Element, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict:
        found = asdict(self)
        if not self.elements:
            del found["elements"]
        return found

    @property
    def norms(self) -> tuple[str, ...]:
        """Every norm the entity stands for: each element's, or its own."""
        if self.elements:
            return tuple(e.norm for e in self.elements)
        return (self.norm,) if self.norm else ()


def eli_for(citation: str) -> str | None:
    """``"89/2012 Sb."`` (optionally followed by a provision path) -> ``"/eli/cz/sb/2012/89"``."""
    if not isinstance(citation, str):
        return None
    # EU acts known to the gazetteer: "nařízení (EU) 2016/679 čl. 6"
    return eli_for_citation(citation) or next(
        (a.eli for a in NAMED_ACTS if a.eli and citation.strip().startswith(a.citation)), None
    )


# --------------------------------------------------------------------------
# LAW_REF candidates
# --------------------------------------------------------------------------


def read_acts(text: str, document: DocumentActs) -> list:
    """The acts ``text`` cites or names (``ActMention``, in text order), the document's own names winning over the
    acts table's; ``document`` learns what the text defines."""
    cited = list(czech_act_mentions(text)) + list(eu_act_mentions(text))
    table = list(gazetteer().finditer(text))
    named = list(named_act_mentions(text, table_matches=table, decided=document.decided))
    document.learn(text, cited + named)
    if document.has_terms:  # the document's own names win over the table's where both stand
        own = list(named_act_mentions(text, document, table_matches=()))
        spans = {(a.start, a.end) for a in own}
        named = own + [a for a in named if (a.start, a.end) not in spans]
    return sorted(cited + named, key=lambda a: (a.start, -a.end))


def read_ahead(text: str, document: DocumentActs) -> None:
    """``document`` carries on past ``text`` as if it had been recognised (what it defines, its last acts, its
    length) without finding its entities: a text recognised earlier, read again so that a later text of the
    document reads as it would in one pass over the whole document."""
    document.remember(text, read_acts(text, document))


def law_candidates(text: str, default_act: str | None = None, document: DocumentActs | None = None):
    """Every LAW_REF candidate of ``text``: acts by citation, EU number, name or abbreviation, and provision chains
    with their elements. ``document`` carries what earlier texts of the same document defined (a fresh one when
    the text is a document of its own) and learns what this one defines."""
    document = document if document is not None else DocumentActs()
    acts = read_acts(text, document)
    chains = provisions.find_chains(text, document.carried() + acts, document, default_act)
    document.remember(text, acts)
    for chain in chains:
        act = chain.act or default_act
        elements = provisions.distribute(chain.elements, act)
        yield chain.start, chain.end, LAW_REF, elements[0].norm, elements if len(elements) > 1 else ()
    for act in acts:
        yield act.start, act.end, LAW_REF, act.citation


def provision_candidates(text: str, default_act: str | None = None):
    """Provision chains ("§ 5 odst. 1 a 2", "čl. 36 Listiny") with their act, as LAW_REF candidates."""
    yield from (c for c in law_candidates(text, default_act) if len(c) > 4)  # acts come as 4-tuples


def czech_act_candidates(text: str):
    """Collection of Laws citations ("zákona č. 89/2012 Sb.")."""
    for act in czech_act_mentions(text):
        yield act.start, act.end, LAW_REF, act.citation


def eu_act_candidates(text: str):
    """EU acts by number ("nařízení (EU) 2016/679", "směrnice 2013/34/EU")."""
    for act in eu_act_mentions(text):
        yield act.start, act.end, LAW_REF, act.citation


def named_act_candidates(text: str):
    """Acts cited by name or abbreviation ("občanského zákoníku", "o. s. ř."), from the acts table."""
    for act in named_act_mentions(text):
        yield act.start, act.end, LAW_REF, act.citation


# --------------------------------------------------------------------------
# Choosing entities
# --------------------------------------------------------------------------

EU_TYPED_NORM_RE = re.compile(r"^(nařízení|směrnice|rozhodnutí) \S+$")


def resolve(text: str, found) -> list[Entity]:
    """Non-overlapping entities from candidates, sorted by start: left to right, the earliest start wins,
    then the longest; of equal spans, the candidate found first (the order of ``found`` breaks ties)."""
    ordered = sorted(found, key=lambda c: (c[0], -c[1]))
    entities: list[Entity] = []
    last_end = -1
    for start, end, label, norm, *elements in ordered:
        if start < last_end or end <= start:
            continue
        if label == LAW_REF and EU_BARE_RE.fullmatch(text, start, end) and entities:
            norm = _inherit_eu_type(text, entities[-1], start, norm)
        entities.append(Entity(start, end, label, text[start:end], norm, elements[0] if elements else ()))
        last_end = end
    return entities


def _inherit_eu_type(text: str, previous: Entity, start: int, norm: str) -> str:
    """ "směrnic 64/221/EHS, 68/360/EHS": list members take the type of the first."""
    typed = EU_TYPED_NORM_RE.match(previous.norm or "")
    if typed and re.fullmatch(r"\s*(?:,|a|nebo)?\s*", text[previous.end : start]):
        return f"{typed.group(1)} {norm}"
    return norm


# A LAW_REF norm is "<act> <provision path>" (either part may be missing); the path starts at § or čl.
_PROVISION_START_RE = re.compile(r"(?:^|\s)(?=§|čl\.|Čl\.)")


def split_law_ref_norm(norm: str) -> tuple[str | None, str | None]:
    """`89/2012 Sb. § 2079 odst. 1` → (`89/2012 Sb.`, `§ 2079 odst. 1`); `§ 5` → (None, `§ 5`)."""
    split = _PROVISION_START_RE.search(norm)
    act = (norm[: split.start()] if split else norm).strip() or None
    provision = norm[split.end() :].strip() if split else None
    return act, provision or None
