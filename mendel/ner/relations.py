"""AMENDS and REPEALS relations read from the language of amending acts.

An amending act says what it changes in sentences of a few fixed shapes:

* ``Zákon č. 40/2009 Sb., trestní zákoník, ve znění …, se mění takto:`` (also ``V zákoně č. …``,
  ``Vyhláška č. …``, ``… se mění a doplňuje takto:``) amends the act it names first and opens a block
  of numbered points; the ``ve znění`` list only names earlier amendments;
* a point of that block names what it changes: ``1. V § 34 odst. 1 písm. a) se …`` amends the
  provision, ``87. § 310 se zrušuje.`` and ``V § 67 se odstavec 4 zrušuje.`` repeal a provision or a
  unit of it, ``Za § 8a se vkládá nový § 8b`` amends (creates) § 8b;
* ``V § 5a zákona č. 589/1992 Sb., …, se doplňuje odstavec 3`` amends one provision of another act;
* ``Vyhláška č. 475/2024 Sb., …, se zrušuje.`` and ``Zrušují se: 1. Vyhláška č. …`` repeal acts.

The subject is the amending act's own citation, which the caller knows (``documents.citation``).
Objects are written like LAW_REF norms: ``40/2009 Sb.`` or ``40/2009 Sb. § 12 odst. 3``. Offsets
delimit the statement or point the relation was read from; ``evidence`` is that text, whitespace
collapsed and cut to ``EVIDENCE_CHARS``. Quoted new wording (``„§ 64 …“``) is never read as an
instruction of the amending act.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from mendel.law.identifiers import parse_citation
from mendel.ner import recognise_text
from mendel.ner.rules import LAW_REF, Entity, split_law_ref_norm

AMENDS = "AMENDS"
REPEALS = "REPEALS"
EVIDENCE_CHARS = 400
MAX_RANGE = 30  # "§ 210 až 212" is expanded; longer ranges are kept as their two ends


@dataclass(frozen=True)
class Relation:
    kind: str  # AMENDS | REPEALS
    subject_norm: str
    object_norm: str
    start: int  # the statement or point the relation was read from
    end: int
    evidence: str

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------

# lines that end a block of points: part, chapter and article headings, a § alone on its line
HEADING_LINE_RE = re.compile(
    r"^[ \t]*(?:(?:ČÁST|HLAVA|DÍL|ODDÍL)\b.*|Čl\.\s*[IVXLC0-9]+[a-z]?\.?|§\s*[0-9]+[a-z]*)[ \t]*$", re.M
)
POINT_START_RE = re.compile(r"^[ \t]*(?P<num>[0-9]{1,3})\.[ \t]+(?=\S)", re.M)
# the amended act opens a block: "…, se mění takto:", "se mění a doplňuje takto:", "se doplňuje takto:"
BLOCK_TRIGGER_RE = re.compile(r"\bse\s+(?:mění(?:\s+a\s+doplňuje)?|doplňuje)\s+(?:takto|tak,\s+že)\s*:?")
REPEAL_VERB_RE = re.compile(r"\bzrušuj(?:e|í)\s*\.")
REPEAL_LIST_RE = re.compile(r"^[ \t]*Zrušuj(?:e|í)\s+se\s*(?P<colon>:)?", re.M)
# "kterým se mění …" is the title of an act, not an instruction
CHANGE_VERB_RE = re.compile(
    r"(?<!kterým )(?<!kterou )(?<!kterým se )(?<!kterou se )"
    r"\b(?:vklád(?:á|ají)|nahrazuj(?:e|í)|doplňuj(?:e|í)|mění|zní|znějí|zrušuj(?:e|í)|označuj(?:e|í))\b"
)
# "…, § 29a zní:" / "…, se § 3 včetně nadpisu zní:": a single provision gets new wording
NEW_WORDING_RE = re.compile(
    r"(?:,\s*|\bse\s+)(?P<loc>(?:§|[čČ]l\.)[^„:]{0,120}?)\s+(?:včetně\s+[^„:]{0,60}?\s+)?zn(?:í|ějí)\s*:"
)
# what may precede the act that opens a statement on its line: nothing, "V ", "12. ", "12. V "
OPENER_PREFIX_RE = re.compile(r"^(?:[0-9]{1,3}\.\s+)?(?:V\s+)?$")
OPENER_ENTITY_RE = re.compile(
    r"^(?:(?:[Úú]stavní\s+)?[Zz]ákon|[Zz]ákoně|[Vv]yhláška|[Vv]yhlášce|[Nn]ařízení"
    r"|[Zz]ákonné\s+opatření|[Ss]dělení|§|[čČ]l\.)(?!\w)"
)
PAGE_HEADER_ENTITY_RE = re.compile(r"^[Aa]kt(?:u|em)?\s")

# inside a point of a block
POINT_LOCATION_RE = re.compile(
    r"(?:V\s+(?:nadpisu\s+|úvodní\s+části\s+ustanovení\s+|závěrečné\s+části\s+ustanovení\s+)?"
    r"|Nadpis\s+|(?=§|[čČ]l\.))"
    r"(?P<loc>(?:§|[čČ]l\.).{0,200}?)\s+(?:se|zní|znějí|včetně|nadpis)\b",
    re.S,
)
POINT_INSERT_RE = re.compile(
    r"(?:Za|Před)\s+(?:§|[čČ]l\.)\s*\S+\s+se\s+vklád(?:á|ají)\s+nov(?:ý|é)\s+"
    r"(?P<new>(?:§§?|[čČ]l(?:\.|ánky?))\s*.{0,80}?)(?=,|\s+kter|\s+zn)",
    re.S,
)
POINT_WHOLE_REPEAL_RE = re.compile(
    r"(?P<loc>(?:§|[čČ]l\.).{0,160}?)\s+(?:se\s+)?(?:včetně\s+.{0,120}?\s+)?(?:se\s+)?zrušuj(?:e|í)\s*\.", re.S
)
UNIT_REPEAL_RE = re.compile(
    r"\b(?P<unit>odstav(?:ec|ce)|písmen(?:o|a)|bod(?:y)?)\s+(?P<items>(?:[0-9]{1,3}[a-z]?|[a-z]{1,2}\))"
    r"(?:\s*(?:,|a|až)\s*(?:[0-9]{1,3}[a-z]?|[a-z]{1,2}\)))*)\s+(?:se\s+)?zrušuj(?:e|í)\b"
)
INCLUDING_RE = re.compile(r"\s+včetně\s+.*?(?=\s+a\s+(?:§|[čČ]l\.)|$)", re.S)

# a list of provisions: "§ 205, 206 a 209", "§ 12 odst. 1 a § 25 odst. 1", "§ 210 až 212", "čl. 3 a 4"
_PROV_TOKEN_RE = re.compile(
    r"(?P<mark>§§?|[čČ]l\.)\s*(?P<num>[0-9]+[a-z]*|[IVXLC]+[a-z]?)(?![\w/])"
    r"|(?P<odst>odst\.\s*[0-9]+[a-z]?)"
    r"|(?P<pism>písm\.\s*[a-z]{1,2}\))"
    r"|(?P<bod>bod(?:u|ě|y|ů|ech|em)?\s+[0-9]+[a-z]?)"
    r"|(?P<range>\s+až\s+|\s*[-–]\s*)"
    r"|(?P<sep>\s*,\s*|\s+a\s+|\s+nebo\s+)"
    r"|(?P<bare>(?<![\w.])[0-9]+[a-z]{0,2})(?![\w/.)])"
    r"|(?P<letter>(?<![\w.])[a-z]{1,2}\))"  # "písm. a) a b)": continues the letter before it
    r"|(?P<word>[^\W\d]{2,}\.?)"
)  # any other word ("včetně poznámky pod čarou č. 2b") ends a list
UNIT_NAMES = {"odstav": "odst.", "písmen": "písm.", "bod": "bod"}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _quote_depths(text: str) -> list[int]:
    """Depth of „…“ quoting at every line start (index: line number). A point that follows a line
    ending in ``“.`` starts unquoted even if a quote was left open (PDF text sometimes loses one)."""
    depths, depth = [0], 0
    line_start = 0
    for i, ch in enumerate(text):
        if ch == "„":
            depth += 1
        elif ch == "“" and depth:
            depth -= 1
        elif ch == "\n":
            line = text[line_start:i].rstrip()
            nxt = text[i + 1 : i + 40]
            if depth and line.endswith(("“.", "“;")) and POINT_START_RE.match(nxt):
                depth = 0
            depths.append(depth)
            line_start = i + 1
    return depths


class _Lines:
    """Line starts of a text, and whether a line starts inside quoted wording."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.depths = _quote_depths(text)

    def index(self, pos: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def quoted(self, pos: int) -> bool:
        return self.depths[self.index(pos)] > 0

    def quoted_at(self, pos: int) -> bool:
        """Whether ``pos`` itself lies inside „…“ (the line's depth plus the quotes before it on the line)."""
        i = self.index(pos)
        depth = self.depths[i]
        for ch in self.text[self.starts[i] : pos]:
            if ch == "„":
                depth += 1
            elif ch == "“" and depth:
                depth -= 1
        return depth > 0


def _evidence(text: str, start: int, end: int) -> str:
    snippet = " ".join(text[start:end].split())
    return snippet if len(snippet) <= EVIDENCE_CHARS else snippet[: EVIDENCE_CHARS - 1].rstrip() + "…"


UNIT_LEVELS = {"odst": 0, "pism": 1, "bod": 2}


def _unit_kind(sub: str) -> str:
    return {"odst.": "odst", "písm.": "pism", "bod": "bod"}[sub.split()[0]]


def _unit_value(token: str) -> str:
    """ "odst.3" -> "odst. 3", "bodů 2" -> "bod 2"."""
    value = " ".join(token.split())
    value = re.sub(r"^(odst\.|písm\.)\s*", r"\1 ", value)
    return re.sub(r"^bod\w*\s+", "bod ", value)


def _path(mark: str, num: str, subs: list[str]) -> str:
    unit = "§" if mark.startswith("§") else "čl."
    return " ".join([f"{unit} {num}", *subs])


def provisions(fragment: str) -> list[str]:
    """Provision paths named by a list such as ``§ 205, 206 a 209`` or ``§ 12 odst. 1 a § 25 odst. 1``.

    Each item keeps the sub-units written after it; a bare number continues the last § or čl. (or odstavec, bod),
    a bare letter the last písmeno; ranges (``až`` or a dash) are expanded (``_expand``).
    """
    items: list[tuple[str, str, list[str]]] = []  # (mark, number, sub-units)
    mark, pending_range, last, last_token = None, False, None, None
    for m in _PROV_TOKEN_RE.finditer(fragment):
        kind = next(
            k
            for k in ("mark", "odst", "pism", "bod", "range", "sep", "bare", "letter", "word")
            if m.group(k) is not None
        )
        if kind == "word" or (kind == "letter" and last != "pism"):
            mark, pending_range, last = None, False, "word"
            continue
        if (kind, last) in (("bare", "odst"), ("bare", "bod"), ("letter", "pism")) and items:
            # "§ 32o odst. 3 a 4": odstavec 4; "písm. a) až c)": písmena b) and c)
            prev_mark, prev_num, prev_subs = items[-1]
            unit = {"odst": "odst.", "bod": "bod", "pism": "písm."}[last]
            first = prev_subs[-1].split()[-1] if prev_subs else ""
            numbers = _expand(first, m.group(kind)) if pending_range else [m.group(kind)]
            items.extend((prev_mark, prev_num, [*prev_subs[:-1], f"{unit} {n}"]) for n in numbers)
            pending_range = False
            continue
        after_separator = last_token in ("sep", "range")
        last_token = kind
        if kind not in ("sep", "range"):
            last = kind
        if kind in ("odst", "pism", "bod") and after_separator and items:
            # "písm. a) a b) a odst. 3": a new item of the same provision, from the unit named on
            prev_mark, prev_num, prev_subs = items[-1]
            level = UNIT_LEVELS[kind]
            kept = [sub for sub in prev_subs if UNIT_LEVELS[_unit_kind(sub)] < level]
            items.append((prev_mark, prev_num, [*kept, _unit_value(m.group())]))
            pending_range = False
            continue
        if kind in ("mark", "bare"):
            number = m.group("num") if kind == "mark" else m.group("bare")
            if kind == "mark":
                mark = m.group("mark")
            elif mark is None:
                continue
            if pending_range and items:
                items.extend((mark, n, []) for n in _expand(items[-1][1], number)[:-1])
            items.append((mark, number, []))
            pending_range = False
        elif kind in ("odst", "pism", "bod") and items:
            items[-1][2].append(_unit_value(m.group()))
        elif kind == "range":
            pending_range = True
    return list(dict.fromkeys(_path(mk, num, subs) for mk, num, subs in items))


_ITEM_PARTS_RE = re.compile(r"([0-9]*)([a-z]*)(\)?)")


def _expand(first: str, last: str) -> list[str]:
    """The items after ``first`` up to ``last`` of a range: "3 až 5" -> 4, 5; "14a až 14c" -> 14b, 14c;
    "14 až 14b" -> 14a, 14b; "a) až c)" -> b), c). Only ``last`` when the ends are not such a pair or the range
    is implausibly long (more than ``MAX_RANGE`` items)."""
    a, b = _ITEM_PARTS_RE.fullmatch(first), _ITEM_PARTS_RE.fullmatch(last)
    if not (a and b and a.group(3) == b.group(3)):
        return [last]
    (num_a, letters_a, close), (num_b, letters_b, _) = a.groups(), b.groups()
    if num_a and num_b and not letters_a and not letters_b and 0 < int(num_b) - int(num_a) <= MAX_RANGE:
        return [str(n) for n in range(int(num_a) + 1, int(num_b) + 1)]
    if (
        num_a == num_b
        and len(letters_a) <= 1
        and len(letters_b) == 1
        and (letters_a or "`") < letters_b
        and (num_a or letters_a)
    ):  # the same provision number, or písmena, with one letter each
        start = ord(letters_a) + 1 if letters_a else ord("a")
        return [f"{num_a}{chr(c)}{close}" for c in range(start, ord(letters_b) + 1)]
    return [last]


UNIT_ITEM_RE = re.compile(r"(?P<value>[0-9]{1,3}[a-z]?|[a-z]{1,2}\))|(?P<range>až)")


def _unit_items(unit: str, items: str) -> list[str]:
    """ "písmena d) a e)" -> ["písm. d)", "písm. e)"]; "odstavce 4 až 6" -> odst. 4, 5, 6."""
    name = next(v for k, v in UNIT_NAMES.items() if unit.startswith(k))
    values: list[str] = []
    pending_range = False
    for m in UNIT_ITEM_RE.finditer(items):
        if m.group("range"):
            pending_range = True
            continue
        value = m.group("value")
        values.extend(_expand(values[-1], value) if pending_range and values else [value])
        pending_range = False
    return [f"{name} {v}" for v in dict.fromkeys(values)]


def _act_of(entity: Entity) -> str | None:
    return split_law_ref_norm(entity.norm or "")[0] if entity.norm else None


# --------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------


def _block_end(text: str, start: int, lines: _Lines) -> int:
    """Where a block of points that starts at ``start`` ends: the next heading outside quotes."""
    for m in HEADING_LINE_RE.finditer(text, start):
        if not lines.quoted(m.start()):
            return m.start()
    return len(text)


def _points(text: str, start: int, end: int, lines: _Lines) -> list[tuple[int, int]]:
    starts = [m.start() for m in POINT_START_RE.finditer(text, start, end) if not lines.quoted(m.start())]
    return [(a, b) for a, b in zip(starts, starts[1:] + [end])]


def _first_line_end(text: str, start: int, end: int) -> int:
    """End of a point's own instruction: up to "zní:"/"znějí:" or the end of its first sentence-like line."""
    stop = re.compile(r"zn(?:í|ějí)\s*:|[„]").search(text, start, end)
    limit = stop.start() if stop else end
    nl = text.find("\n", start, limit)
    # an instruction may wrap: keep lines until one ends with "." or the quoted text starts
    while nl != -1 and not text[start:nl].rstrip().endswith((".", ":")):
        nxt = text.find("\n", nl + 1, limit)
        if nxt == -1:
            return limit
        nl = nxt
    return nl if nl != -1 else limit


def _point_relations(text: str, start: int, end: int, act: str, subject: str) -> list[Relation]:
    """The relations of one numbered point of a block amending ``act``."""
    head_end = _first_line_end(text, start, end)
    body = POINT_START_RE.sub("", text[start:head_end], count=1)
    out: list[Relation] = []

    def rel(kind: str, path: str) -> None:
        out.append(Relation(kind, subject, f"{act} {path}", start, head_end, _evidence(text, start, head_end)))

    whole = POINT_WHOLE_REPEAL_RE.match(body)  # "87. § 310 se zrušuje.", "§ 5 včetně … a § 6 se zrušuje."
    located = INCLUDING_RE.sub("", whole.group("loc")) if whole else ""
    if whole and not re.search(r"\bse\s+(?!zrušuj|včetně)\S+\s", located):
        for path in provisions(located):
            rel(REPEALS, path)
        return out
    inserted = POINT_INSERT_RE.match(body)
    if inserted:
        for path in provisions(inserted.group("new")):
            rel(AMENDS, path)
        return out
    loc = POINT_LOCATION_RE.match(body)
    if not loc:
        return out
    paths = provisions(loc.group("loc"))
    units = UNIT_REPEAL_RE.search(body, loc.end("loc"))
    if units:
        for path in paths:
            for item in _unit_items(units.group("unit"), units.group("items")):
                rel(REPEALS, f"{path} {item}")
        rest = body[: units.start()] + body[units.end() :]
        if not CHANGE_VERB_RE.search(rest, loc.end("loc")):  # nothing else changes in the provision
            return out
    for path in paths:
        rel(AMENDS, path)
    return out


def _statement_end(text: str, start: int, limit: int, lines: _Lines) -> tuple[int, str, re.Match] | None:
    """The verb that closes a statement opened at ``start``, outside quoted wording:
    ("block", end) for "se mění takto:", ("repeal", end) for "se zrušuje.", ("wording", end, match) for
    "…, § 29a zní:", ("change", end) for another change verb; None when there is none before ``limit``."""
    found = []
    for kind, regex in (
        ("block", BLOCK_TRIGGER_RE),
        ("repeal", REPEAL_VERB_RE),
        ("wording", NEW_WORDING_RE),
        ("change", CHANGE_VERB_RE),
    ):
        for m in regex.finditer(text, start, limit):
            if not lines.quoted_at(m.start()):
                found.append((m.start(), m.end(), kind, m))
                break
    if not found:
        return None
    _, end, kind, m = min(found, key=lambda f: (f[0], f[2] != "wording"))
    return end, kind, m


def extract_relations(text: str, subject_norm: str | None) -> list[Relation]:
    """AMENDS and REPEALS relations of the act ``subject_norm`` (e.g. ``"270/2025 Sb."``) read from its text.

    Returns [] when the subject is unknown or the text holds no amending language.
    """
    if not subject_norm or not isinstance(text, str) or not text:
        return []
    subject_act = parse_citation(subject_norm)  # only an act amends: a decision's file number is no subject
    if subject_act is None or subject_act.citation != subject_norm:
        return []
    lines = _Lines(text)
    entities = [e for e in recognise_text(text) if e.label == LAW_REF and e.norm]
    out, list_spans = _repeal_lists(text, subject_norm, entities, lines)
    covered_until = -1  # the end of the statement or block read last

    for entity in entities:
        if entity.start < covered_until or lines.quoted_at(entity.start):
            continue
        if any(a <= entity.start < b for a, b in list_spans):
            continue
        line_start = lines.starts[lines.index(entity.start)]
        prefix = text[line_start : entity.start]
        if not OPENER_PREFIX_RE.match(prefix) or not OPENER_ENTITY_RE.match(entity.text):
            continue
        act = _act_of(entity)
        if not act or act == subject_norm or PAGE_HEADER_ENTITY_RE.match(entity.text):
            continue
        block_end = _block_end(text, entity.end, lines)
        point_after = next(
            (m.start() for m in POINT_START_RE.finditer(text, entity.end, block_end) if not lines.quoted(m.start())),
            block_end,
        )
        found = _statement_end(text, entity.end, min(point_after, entity.end + 12000), lines)
        if found is None:
            continue
        statement_end, kind, match = found
        evidence = _evidence(text, line_start, statement_end)

        def add(kind_: str, obj: str) -> None:
            out.append(Relation(kind_, subject_norm, obj, line_start, statement_end, evidence))

        if kind == "block":  # "Zákon č. 40/2009 Sb., …, se mění takto:" and its points
            add(AMENDS, entity.norm)
            for a, b in _points(text, statement_end, block_end, lines):
                out.extend(_point_relations(text, a, b, act, subject_norm))
            covered_until = block_end
        elif kind == "repeal":
            statement = text[entity.end : statement_end]
            inner = re.search(r"\bse\s+(?P<loc>(?:§|[čČ]l\.).{0,120}?)\s+zrušuj", statement, re.S)
            units = UNIT_REPEAL_RE.search(statement)
            if inner:  # "V zákoně č. …, se § 12 zrušuje."
                for path in provisions(inner.group("loc")):
                    add(REPEALS, f"{act} {path}")
            elif units:  # "V čl. II zákona č. 265/2001 Sb., …, se bod 7 zrušuje."
                for item in _unit_items(units.group("unit"), units.group("items")):
                    add(REPEALS, f"{entity.norm} {item}")
            elif not prefix.strip():  # "Vyhláška č. 475/2024 Sb., …, se zrušuje."
                add(REPEALS, entity.norm)
            covered_until = statement_end
        elif prefix.strip().endswith("V"):
            # a single change: "V zákoně č. … § 29a zní:", "V § 5a zákona č. …, se doplňuje odstavec 3"
            if kind == "wording":
                for path in provisions(match.group("loc")):
                    add(AMENDS, f"{act} {path}")
            else:
                add(AMENDS, entity.norm)
            covered_until = statement_end
    return sorted(out, key=lambda r: (r.start, r.kind, r.object_norm))


def _repeal_lists(
    text: str, subject: str, entities: list[Entity], lines: _Lines
) -> tuple[list[Relation], list[tuple[int, int]]]:
    """``Zrušují se: 1. Vyhláška č. 23/2002 Sb., … 2. …`` and ``Zrušuje se zákon č. …``: the relations
    and the spans of the lists. An item that repeals only a part of an act (``Část třetí zákona č. …``)
    gives none: the act itself stays in force."""
    out, spans_read = [], []
    for m in REPEAL_LIST_RE.finditer(text):
        if lines.quoted(m.start()):
            continue
        end = _block_end(text, m.end(), lines)
        if m.group("colon"):
            spans = _points(text, m.end(), end, lines) or [(m.end(), end)]
        else:
            stop = text.find("\n\n", m.end(), end)
            spans = [(m.start(), stop if stop != -1 else end)]
        spans_read.append((m.start(), spans[-1][1]))
        for a, b in spans:
            act_entity = next((e for e in entities if a <= e.start < b), None)
            if act_entity is None or not _act_of(act_entity) or _act_of(act_entity) == subject:
                continue
            if PAGE_HEADER_ENTITY_RE.match(act_entity.text):
                continue
            lead = re.sub(r"^\s*(?:[0-9]{1,3}\.\s*)?(?:Zrušuj(?:e|í)\s+se\s*:?\s*)?", "", text[a : act_entity.start])
            if lead:  # "Část padesátá třetí zákona č. 320/2002 Sb." repeals a part only
                continue
            stop = text.find("\n", act_entity.end, b)
            evidence_end = b if stop == -1 else stop
            out.append(Relation(REPEALS, subject, act_entity.norm, a, evidence_end, _evidence(text, a, evidence_end)))
    return out, spans_read
