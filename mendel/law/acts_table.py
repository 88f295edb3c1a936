"""The table of Czech acts people cite by name (``mendel/data/acts_by_name.v1.yaml``): loader, declension of the
customary names into their six cases, and a matcher that finds the acts a text names.

Plain functions, no serving imports: query understanding (``serving.ranking.coverage``) uses them to tell which acts a query
names, whether or not the collection holds them; the NER recogniser can read the same table.

    >>> [m.citation for m in find_named_acts("výpovědní doba podle zákoníku práce a § 2079 občanského zákoníku")]
    ['262/2006 Sb.', '89/2012 Sb.']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from mendel.czech.folding import fold
from mendel.data import DATA_DIR
from mendel.law.identifiers import parse_citation

ACTS_TABLE = DATA_DIR / "acts_by_name.v1.yaml"
KINDS = ("zákon", "ústavní zákon", "vyhláška", "nařízení vlády", "usnesení", "sdělení", "nařízení EU")

# Case forms (nominative, genitive, dative, accusative, locative, instrumental) of the nouns a customary name is
# built on, and the gender their adjectives agree with. The vocative is left out: nobody addresses an act.
HEAD_NOUNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "zákon": ("m", ("zákon", "zákona", "zákonu", "zákon", "zákoně", "zákonem")),
    "zákoník": ("m", ("zákoník", "zákoníku", "zákoníku", "zákoník", "zákoníku", "zákoníkem")),
    "řád": ("m", ("řád", "řádu", "řádu", "řád", "řádu", "řádem")),
    "tarif": ("m", ("tarif", "tarifu", "tarifu", "tarif", "tarifu", "tarifem")),
    "ústava": ("f", ("ústava", "ústavy", "ústavě", "ústavu", "ústavě", "ústavou")),
    "listina": ("f", ("listina", "listiny", "listině", "listinu", "listině", "listinou")),
    "vyhláška": ("f", ("vyhláška", "vyhlášky", "vyhlášce", "vyhlášku", "vyhlášce", "vyhláškou")),
    "úmluva": ("f", ("úmluva", "úmluvy", "úmluvě", "úmluvu", "úmluvě", "úmluvou")),
    "nařízení": ("n", ("nařízení", "nařízení", "nařízení", "nařízení", "nařízení", "nařízením")),
    "zřízení": ("n", ("zřízení", "zřízení", "zřízení", "zřízení", "zřízení", "zřízením")),
}
# Adjective endings per gender and case: hard (-ý/-á/-é) and soft (-í) paradigms.
HARD_ENDINGS = {
    "m": ("ý", "ého", "ému", "ý", "ém", "ým"),
    "f": ("á", "é", "é", "ou", "é", "ou"),
    "n": ("é", "ého", "ému", "é", "ém", "ým"),
}
SOFT_ENDINGS = {
    "m": ("í", "ího", "ímu", "í", "ím", "ím"),
    "f": ("í", "í", "í", "í", "í", "í"),
    "n": ("í", "ího", "ímu", "í", "ím", "ím"),
}
# Where an ambiguous abbreviation counts as an act: right after a provision or a "according to" word.
STRICT_CONTEXT = re.compile(
    r"(?:§+\s*\d+[a-z]?|[čc]l\.\s*[IVXLC\d]+[a-z]?|odst\.\s*\d+|p[íi]sm\.\s*[a-z]\)|"
    r"\bpodle|\bdle|\bve\s+smyslu)[^.;!?]{0,25}$",
    re.IGNORECASE,
)


class ActsTableError(ValueError):
    """The table file breaks its own rules (a bad citation, a duplicate, an unknown kind)."""


@dataclass(frozen=True)
class NamedAct:
    citation: str  # "89/2012 Sb." or "nařízení (EU) 2016/679"
    title: str  # official title
    kind: str
    names: tuple[str, ...] = ()  # customary names, nominative
    forms: tuple[str, ...] = ()  # every case form of every name
    abbreviations: tuple[str, ...] = ()
    strict: tuple[str, ...] = ()
    case_sensitive: bool = False
    proper_forms: tuple[str, ...] = ()  # case forms matched only with their capital (``Obecné nařízení``)

    def is_proper(self, form: str) -> bool:
        """Whether ``form`` is matched only as written: a one-word name of a case-sensitive act, a proper name."""
        return (self.case_sensitive and " " not in form) or form in self.proper_forms

    @property
    def eli(self) -> str | None:
        parsed = parse_citation(self.citation)
        return parsed.eli if parsed is not None else None

    @property
    def short_name(self) -> str:
        return self.names[0] if self.names else self.title


@dataclass(frozen=True)
class ActMention:
    """An act named in a text: the table entry's citation, the span and how it was named."""

    citation: str
    start: int
    end: int
    text: str
    via: str  # "name" | "abbreviation"


def _adjective_forms(word: str, gender: str) -> tuple[str, ...] | None:
    for nominative, table in (({"m": "ý", "f": "á", "n": "é"}[gender], HARD_ENDINGS), ("í", SOFT_ENDINGS)):
        if word.endswith(nominative) and len(word) > 3:
            stem = word[: -len(nominative)]
            return tuple(stem + ending for ending in table[gender])
    return None


def decline(name: str) -> tuple[str, ...]:
    """The case forms of a customary act name: the head noun (zákon, zákoník, řád, vyhláška, …) and the adjectives
    before it decline, the rest ("o obchodních korporacích", "práce") stays. ``stavební zákon`` ->
    ``stavební zákon, stavebního zákona, …``; a name with no known head noun is returned as is."""
    words = name.split()
    for index, word in enumerate(words):
        head = HEAD_NOUNS.get(word.lower())
        if head is None:
            continue
        gender, noun_forms = head
        columns: list[tuple[str, ...]] = []
        for before in words[:index]:
            declined = _adjective_forms(before, gender)
            columns.append(declined if declined is not None else (before,) * 6)
        capital = word[:1].isupper()
        columns.append(tuple(f[:1].upper() + f[1:] if capital else f for f in noun_forms))
        rest = words[index + 1 :]
        forms = [" ".join([column[case] for column in columns] + rest) for case in range(6)]
        return tuple(dict.fromkeys(forms))
    return (name,)


def _entry(raw: dict, position: int) -> NamedAct:
    where = f"entry {position} ({raw.get('citation')!r})"
    citation = str(raw.get("citation") or "").strip()
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ActsTableError(f"{where}: kind {kind!r} not in {KINDS}")
    if kind != "nařízení EU":
        parsed = parse_citation(citation)
        if parsed is None or parsed.citation != citation:
            raise ActsTableError(f"{where}: citation must be written as the Sbírka prints it (e.g. 89/2012 Sb.)")
    title = str(raw.get("title") or "").strip()
    if not title:
        raise ActsTableError(f"{where}: no title")
    names = tuple(str(n).strip() for n in raw.get("names") or ())
    proper_names = tuple(str(n).strip() for n in raw.get("proper_names") or ())
    explicit = {str(k): tuple(str(f) for f in v) for k, v in (raw.get("forms") or {}).items()}
    unknown = set(explicit) - set(names) - set(proper_names)
    if unknown:
        raise ActsTableError(f"{where}: forms given for names it does not list: {sorted(unknown)}")
    forms: list[str] = []
    for name in names:
        forms += explicit.get(name) or decline(name)
    proper_forms = [form for name in proper_names for form in explicit.get(name) or decline(name)]
    return NamedAct(
        citation=citation,
        title=title,
        kind=kind,
        names=names,
        forms=tuple(dict.fromkeys(forms + proper_forms)),
        proper_forms=tuple(dict.fromkeys(proper_forms)),
        abbreviations=tuple(str(a) for a in raw.get("abbreviations") or ()),
        strict=tuple(str(a) for a in raw.get("strict") or ()),
        case_sensitive=bool(raw.get("case_sensitive", False)),
    )


@functools.lru_cache(maxsize=4)
def load_acts_table(path: Path = ACTS_TABLE) -> tuple[NamedAct, ...]:
    """Every entry of the table, names declined; raises :class:`ActsTableError` on a malformed table."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("acts"), list):
        raise ActsTableError(f"{path}: expected a mapping with an 'acts' list")
    acts = tuple(_entry(raw, n) for n, raw in enumerate(data["acts"], start=1))
    seen: dict[str, str] = {}
    for act in acts:
        if act.citation in seen:
            raise ActsTableError(f"{path}: {act.citation} listed twice")
        seen[act.citation] = act.citation
        for form in act.forms:
            other = seen.get(f"form:{form.lower()}")
            if other is not None and other != act.citation:
                raise ActsTableError(f"{path}: the name {form!r} is given to {other} and {act.citation}")
            seen[f"form:{form.lower()}"] = act.citation
    return acts


@functools.lru_cache(maxsize=4)
def acts_by_citation(path: Path = ACTS_TABLE) -> dict[str, NamedAct]:
    return {act.citation: act for act in load_acts_table(path)}


def _abbreviation_pattern(abbreviation: str) -> str:
    # "o. s. ř." also as "o.s.ř."; whole tokens only
    parts = [re.escape(part) for part in abbreviation.split()]
    return r"(?<![\w.])" + r"\s*".join(parts) + (r"(?!\w)" if abbreviation[-1].isalnum() else "")


class ActMatcher:
    """Finds the table's acts in a text: names in any case form (longest first), distinctive abbreviations
    anywhere, ambiguous ones only in a citing context; with or without diacritics (``zakonik prace`` is the
    labour code too: names and text are matched folded, ``mendel.czech.folding.fold``, which keeps every
    character's place)."""

    def __init__(self, acts: tuple[NamedAct, ...]):
        self.acts = {act.citation: act for act in acts}
        names: list[tuple[str, str, bool]] = []
        for act in acts:
            for form in act.forms:
                folded = fold(form)  # names and text are matched folded (the same length: spans carry over)
                if all(folded != known for known, citation, _ in names if citation == act.citation):
                    names.append((folded, act.citation, act.is_proper(form)))
        names.sort(key=lambda item: -len(item[0]))
        self._forms = {}
        insensitive, sensitive = [], []
        for form, citation, exact in names:
            key = form if exact else form.lower()
            self._forms.setdefault(key, citation)
            pattern = r"\s+".join(re.escape(word) for word in form.split())
            (sensitive if exact else insensitive).append(pattern)
        bound = r"(?<!\w)(?:{})(?!\w)"
        self._insensitive = re.compile(bound.format("|".join(insensitive)), re.IGNORECASE) if insensitive else None
        self._sensitive = re.compile(bound.format("|".join(sensitive))) if sensitive else None
        abbreviations: dict[str, tuple[str, bool]] = {}
        for act in acts:
            for written, strict in [(a, False) for a in act.abbreviations] + [(a, True) for a in act.strict]:
                key = "".join(fold(written).split())
                if abbreviations.get(key, (act.citation,))[0] != act.citation:
                    raise ActsTableError(
                        f"abbreviation {written!r} is given to {abbreviations[key][0]} and {act.citation}"
                    )
                abbreviations[key] = (act.citation, strict)
        self._abbreviations = abbreviations
        ordered = sorted({fold(a) for act in acts for a in act.abbreviations + act.strict}, key=lambda a: -len(a))
        self._abbreviation_re = re.compile("|".join(_abbreviation_pattern(a) for a in ordered)) if ordered else None
        # the names regex runs only on a text holding one of the words names are made of (most texts hold none)
        self._name_words = frozenset(w for form, _, _ in names for w in form.lower().split() if len(w) >= 4)

    def find(self, text: str) -> list[ActMention]:
        typed, text = text, fold(text)  # the same length: spans of the folded text are spans of the typed one
        found: list[ActMention] = []
        taken: list[tuple[int, int]] = []

        def free(start: int, end: int) -> bool:
            return not any(s < end and start < e for s, e in taken)

        words = set(re.findall(r"\w{4,}", text.lower()))
        for pattern, exact in ((self._sensitive, True), (self._insensitive, False)):
            if pattern is None or self._name_words.isdisjoint(words):
                continue
            for m in pattern.finditer(text):
                written = " ".join(m.group(0).split())
                citation = self._forms.get(written if exact else written.lower())
                if citation is not None and free(m.start(), m.end()):
                    found.append(ActMention(citation, m.start(), m.end(), typed[m.start() : m.end()], "name"))
                    taken.append((m.start(), m.end()))
        for m in self._abbreviation_re.finditer(text) if self._abbreviation_re is not None else ():
            citation, strict = self._abbreviations["".join(m.group(0).split())]
            if not free(m.start(), m.end()):
                continue
            if strict and not STRICT_CONTEXT.search(text[max(0, m.start() - 60) : m.start()]):
                continue
            found.append(ActMention(citation, m.start(), m.end(), typed[m.start() : m.end()], "abbreviation"))
            taken.append((m.start(), m.end()))
        return sorted(found, key=lambda mention: mention.start)


@functools.lru_cache(maxsize=4)
def default_matcher(path: Path = ACTS_TABLE) -> ActMatcher:
    return ActMatcher(load_acts_table(path))


def find_named_acts(text: str) -> list[ActMention]:
    """Acts of the table named in ``text``, in text order."""
    return default_matcher().find(text)
