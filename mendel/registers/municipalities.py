"""Czech municipalities from the registers: all 6,258 with their kód obce, okres, kraj, parts and postcodes, and
what kind of municipality each is; where a notice board belongs; the names' case forms and their offices for the
NER gazetteer.

The data file ``mendel/data/municipalities.tsv`` is generated, never edited: ``python -m mendel.registers.municipalities``
builds it from the registry files of the sample corpus —

- ``registry/ruian_casti_obci_psc.csv`` (RÚIAN-based: every část obce with its PSČ, kód/název obce, okres, kraj):
  the municipalities, their parts and postcodes;
- ``registry/edesky_boards_2024-05.sql`` (the edesky.cz board register, table ``urad``: "Město Kadaň", okres,
  kraj): the kind of each municipality it names (obec, město, městys, vojenský újezd) and the board names used to
  tell apart municipalities of one name.

A board's place (:func:`place_boards`): the kód obce its catalogue record names (``dcterms:spatial``, a RÚIAN
obec IRI) or its list entry gives; else its publisher's name ("Město Hranice": the one municipality of that kind
and name, or the one the board register puts in a district; "Zlínský kraj" or a regional body such as
"Hasičský záchranný sbor Zlínského kraje": the region); else the place of another board of the same publisher
(IČO), when that publisher's boards agree; else the one region its page's address names (``…/hzs-zlinskeho-kraje-
…-uredni-deska.aspx``: a page names the board, not its publisher, so this place is not passed on by IČO). A name
or address that names no current region exactly (the police's "správa západočeského kraje", a region of before
2000; "KŘP OLK") or names two places nothing.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

from mendel.data import DATA_DIR

DATA_FILE = DATA_DIR / "municipalities.tsv"
RUIAN_FILE = Path("registry") / "ruian_casti_obci_psc.csv"
EDESKY_FILE = Path("registry") / "edesky_boards_2024-05.sql"
COLUMNS = ("kod", "nazev", "druh", "okres_kod", "okres", "kraj_kod", "kraj", "casti", "psc", "desky")
# The kinds of municipality a board register's name starts with ("Město Kadaň"), longest first.
KINDS = {
    "statutární město": "statutární město",
    "hlavní město": "hlavní město",
    "vojenský újezd": "vojenský újezd",
    "městys": "městys",
    "město": "město",
    "obec": "obec",
}
_KIND_PREFIX = re.compile(r"^(" + "|".join(sorted(KINDS, key=len, reverse=True)) + r")\s+(.+)$", re.IGNORECASE)
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2060\ufeff]")


@dataclass(frozen=True)
class Municipality:
    code: str  # kód obce (RÚIAN)
    name: str
    kind: str | None  # obec | město | městys | vojenský újezd | hlavní město; None: no register says
    okres_code: str
    okres: str  # "Chomutov"
    kraj_code: str
    kraj: str  # "Ústecký kraj", "Kraj Vysočina", "Hlavní město Praha"
    parts: tuple[str, ...]  # části obce
    postcodes: tuple[str, ...]
    boards: tuple[str, ...] = ()  # its names in the board register ("Město Kadaň")


@dataclass(frozen=True)
class Place:
    obec_kod: str | None
    obec: str | None
    okres: str | None
    kraj: str | None


def kraj_name(short: str) -> str:
    """RÚIAN's short region names → the region's name: ``Ústecký`` → ``Ústecký kraj``."""
    if short == "Vysočina":
        return "Kraj Vysočina"
    return short if short.startswith("Hlavní město") else f"{short} kraj"


def key(text: str) -> str:
    """A comparison key of a name: invisible marks gone, spaces collapsed, case folded."""
    return " ".join(_INVISIBLE.sub("", text).split()).casefold()


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


# ---------------------------------------------------------------- building the data file


def _edesky_boards(sql: str) -> list[tuple[str, str | None, str | None]]:
    """(name, okres, kraj) of every board of the dump's ``urad`` table."""
    start = sql.index("COPY public.urad (")
    header, body = sql[start:].split("\n", 1)
    columns = [c.strip() for c in header[header.index("(") + 1 : header.index(")")].split(",")]
    rows = []
    for line in body.split("\n\\.\n", 1)[0].splitlines():
        values = dict(zip(columns, (None if v == "\\N" else v for v in line.split("\t"))))
        okres = " ".join(_INVISIBLE.sub("", values.get("okres") or "").split()).removeprefix("Okres ") or None
        rows.append((" ".join(_INVISIBLE.sub("", values["nazev"]).split()), okres, values.get("kraj")))
    return rows


def _okres_matches(municipality_okres: str, board_okres: str | None) -> bool:
    # The board register writes "Brno" for Brno-město and Brno-venkov, "Havlíčkův brod" in lower case.
    if board_okres is None:
        return True
    mine, theirs = key(municipality_okres), key(board_okres)
    return mine == theirs or mine.startswith(theirs + "-")


def build(corpus: Path) -> list[Municipality]:
    """The municipalities of the registry files under ``corpus`` (the sample corpus), in kód obce order."""
    rows: dict[str, dict] = {}
    with (corpus / RUIAN_FILE).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            entry = rows.setdefault(row["kodobce"], {"row": row, "parts": [], "postcodes": []})
            for field, value in (("parts", row["nazcobce"]), ("postcodes", row["psc"])):
                if value and value not in entry[field]:
                    entry[field].append(value)
    by_name: dict[str, list[str]] = defaultdict(list)
    for code, entry in rows.items():
        by_name[key(entry["row"]["nazobce"])].append(code)
    kinds: dict[str, set[str]] = defaultdict(set)
    boards: dict[str, list[str]] = defaultdict(list)
    for name, okres, _ in _edesky_boards((corpus / EDESKY_FILE).read_text(encoding="utf-8")):
        match = _KIND_PREFIX.match(name)
        if not match:
            continue
        candidates = [
            c for c in by_name.get(key(match.group(2)), []) if _okres_matches(rows[c]["row"]["nazokresu"], okres)
        ]
        if len(candidates) == 1:
            kinds[candidates[0]].add(KINDS[match.group(1).lower()])
            boards[candidates[0]].append(name)
    municipalities = []
    for code in sorted(rows, key=int):
        row, entry = rows[code]["row"], rows[code]
        kind = (
            "hlavní město"
            if row["nazobce"] == "Praha"
            else (next(iter(kinds[code])) if len(kinds[code]) == 1 else None)
        )
        municipalities.append(
            Municipality(
                code=code,
                name=row["nazobce"],
                kind=kind,
                okres_code=row["kodokresu"],
                okres=row["nazokresu"],
                kraj_code=row["kodkraj"],
                kraj=kraj_name(row["nazevkraj"]),
                parts=tuple(sorted(entry["parts"])),
                postcodes=tuple(sorted(entry["postcodes"])),
                boards=tuple(sorted(set(boards[code]))),
            )
        )
    return municipalities


def write_data(municipalities: list[Municipality], path: Path = DATA_FILE) -> Path:
    lines = ["\t".join(COLUMNS)]
    for m in municipalities:
        lines.append(
            "\t".join(
                (
                    m.code,
                    m.name,
                    m.kind or "",
                    m.okres_code,
                    m.okres,
                    m.kraj_code,
                    m.kraj,
                    "|".join(m.parts),
                    "|".join(m.postcodes),
                    "|".join(m.boards),
                )
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_data(path: Path = DATA_FILE) -> list[Municipality]:
    out = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            split = lambda value: tuple(value.split("|")) if value else ()  # noqa: E731
            out.append(
                Municipality(
                    code=row["kod"],
                    name=row["nazev"],
                    kind=row["druh"] or None,
                    okres_code=row["okres_kod"],
                    okres=row["okres"],
                    kraj_code=row["kraj_kod"],
                    kraj=row["kraj"],
                    parts=split(row["casti"]),
                    postcodes=split(row["psc"]),
                    boards=split(row["desky"]),
                )
            )
    return out


# ---------------------------------------------------------------- the register


class Register:
    def __init__(self, municipalities: list[Municipality]):
        self.municipalities = municipalities
        self.by_code = {m.code: m for m in municipalities}
        self.by_name: dict[str, list[Municipality]] = defaultdict(list)
        self.by_board_name: dict[str, list[Municipality]] = defaultdict(list)
        for m in municipalities:
            self.by_name[key(m.name)].append(m)
            for board in m.boards:
                self.by_board_name[key(board)].append(m)
        self.kraje = {key(m.kraj): m.kraj for m in municipalities}

    def find(self, publisher: str | None) -> Municipality | None:
        """The municipality a publisher's name names ("Město Hranice", "Obec Blešno", "Kadaň"), when exactly one
        does: by the board register's names first, then by kind and name."""
        if not publisher:
            return None
        found = self.by_board_name.get(key(publisher), [])
        if len(found) == 1:
            return found[0]
        match = _KIND_PREFIX.match(" ".join(publisher.split()))
        kind, name = (KINDS[match.group(1).lower()], match.group(2)) if match else (None, publisher)
        candidates = self.by_name.get(key(name), [])
        if kind is not None and len(candidates) > 1:
            # "Statutární město Karviná" is a město to the board register
            same_kind = [m for m in candidates if m.kind == kind or (kind == "statutární město" and m.kind == "město")]
            candidates = same_kind or candidates
        return candidates[0] if len(candidates) == 1 else None

    @cached_property
    def _kraj_forms(self) -> dict[tuple[str, ...], str]:
        return {tuple(_words(form)): kraj for kraj in self.kraje.values() for form in kraj_forms(kraj)}

    def kraj_named(self, text: str | None) -> str | None:
        """The one region ``text`` names in any case, accents and punctuation aside — a body's name ("Hasičský
        záchranný sbor Jihomoravského kraje", "Krajské ředitelství policie hl. m. Prahy") or a page's address
        (``…/krajske-reditelstvi-stredoceskeho-kraje-uredni-deska.aspx``); None when it names none or several."""
        words = _words(text or "")
        found = {
            kraj
            for form, kraj in self._kraj_forms.items()
            if any(tuple(words[i : i + len(form)]) == form for i in range(len(words) - len(form) + 1))
        }
        return found.pop() if len(found) == 1 else None


@lru_cache(maxsize=1)
def register() -> Register:
    return Register(read_data())


def place_of(municipality: Municipality) -> Place:
    return Place(municipality.code, municipality.name, municipality.okres, municipality.kraj)


def kraj_forms(kraj: str) -> list[str]:
    """A region's name in the six cases, as bodies' names and page addresses write it: "Zlínský kraj" →
    "Zlínského kraje", "Zlínském kraji"…; "Kraj Vysočina" → "Kraje Vysočina"…; Prague also "hl. m. Prahy"."""
    kraj_cases = ("kraj", "kraje", "kraji", "kraj", "kraji", "krajem")
    if kraj.startswith("Hlavní město"):
        city = ("Praha", "Prahy", "Praze", "Prahu", "Praze", "Prahou")
        town = ("hlavní město", "hlavního města", "hlavnímu městu", "hlavní město", "hlavním městě", "hlavním městem")
        return [f"{t} {c}" for t, c in zip(town, city)] + [f"hl. m. {c}" for c in city]
    if kraj.startswith("Kraj "):
        return [f"{k} {kraj.removeprefix('Kraj ')}" for k in kraj_cases]
    adjective = kraj.removesuffix(" kraj")
    return [f"{a[0]} {k}" for a, k in zip(_adjective_cases(adjective, "m"), kraj_cases)]


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", fold(text).casefold())


def place_boards(boards: list) -> tuple[list, int]:
    """Boards (:class:`mendel.crawl.boards.register.Board`) with their place filled in where it can be told, and what told it
    (``placed_by``: ``municipality``; ``name``: a region the board's or its publisher's name names; ``page``);
    returns them and how many have one. A board none of these places may still be linked to a public body by its
    notices (:func:`mendel.registers.public_bodies.place_boards`)."""
    known = register()
    places: dict[str, Place] = {}  # board key → place, from the board's publisher
    for board in boards:
        municipality = known.by_code.get(board.obec_kod or "") or known.find(board.name)
        if municipality is not None:
            places[board.key] = place_of(municipality)
        elif kraj := known.kraj_named(board.name):  # "Zlínský kraj", "HZS Zlínského kraje"
            places[board.key] = Place(None, None, None, kraj)
    publisher_places: dict[str, set[Place]] = defaultdict(set)
    for board in boards:
        if board.key in places and board.publisher_ico:
            publisher_places[board.publisher_ico].add(places[board.key])
    # A publisher whose boards disagree passes no place on.
    by_publisher = {ico: next(iter(found)) for ico, found in publisher_places.items() if len(found) == 1}
    placed = []
    for board in boards:
        place = places.get(board.key) or by_publisher.get(board.publisher_ico or "")
        placed_by = None if place is None else "municipality" if place.obec_kod else "name"
        if place is None and (kraj := known.kraj_named(getattr(board, "page", None))):
            place, placed_by = Place(None, None, None, kraj), "page"
        if place is not None:
            board = replace(
                board, obec_kod=place.obec_kod, obec=place.obec, okres=place.okres, kraj=place.kraj, placed_by=placed_by
            )
        placed.append(board)
    return placed, sum(1 for b in placed if b.kraj or b.obec)


# ---------------------------------------------------------------- case forms and offices (the NER gazetteer)

PREPOSITIONS = frozenset({"nad", "pod", "u", "v", "ve", "na", "při", "za", "mezi", "pri"})
_SOFT = "ňžščřťďjcľ"
_LOC_E_AFTER = tuple("dtnbpvmf")
N_CASES = 6  # nominative, genitive, dative, accusative, locative, instrumental


def _mutated_e(stem: str) -> str:
    """The ending -ě/-e as Czech writes it after ``stem`` (Praha → Praze, Lhota → Lhotě, Tábor → Táboře)."""
    for end, repl in (("ch", "še"), ("k", "ce"), ("h", "ze"), ("g", "ze"), ("r", "ře")):
        if stem.endswith(end):
            return stem[: -len(end)] + repl
    return stem + ("ě" if stem.endswith(_LOC_E_AFTER) else "e")


def _attach(stem: str, ending: str) -> str:
    """``stem`` + ``ending``, spelled: ň, ť, ď before e / i become n, t, d + ě / i (Kadaň → Kadaně, Kadani)."""
    hard = {"ň": "n", "ť": "t", "ď": "d"}
    if stem[-1:] in hard and ending[:1] in ("e", "i", "í"):
        return stem[:-1] + hard[stem[-1]] + ("ě" + ending[1:] if ending[0] == "e" else ending)
    return stem + ending


def _soft_cases(stems: list[str], word: str, feminine: bool = True, masculine: bool = True) -> list[list[str]]:
    """Consonant-final nouns of the soft (Kadaň, Kroměříž) and i-stem (Boleslav) feminine and soft masculine
    declensions (Liberec → Liberce), every stem (Plzeň loses its e: Plzně)."""
    forms: list[list[str]] = [[word], [], [], [word], [], []]
    for s in stems:
        forms[1].append(_attach(s, "e"))
        forms[2].append(_attach(s, "i"))
        forms[4].append(_attach(s, "i"))
        forms[5] += ([_attach(s, "í")] if feminine else []) + ([_attach(s, "em")] if masculine else [])
    return [list(dict.fromkeys(f)) for f in forms]


def _noun_cases(word: str, feminine: bool = False) -> tuple[list[list[str]], str]:
    """Case forms of a place name's head noun — every paradigm its ending allows, since a name alone does not tell
    Bystřice (one town) from Pardubice (plural) — and its gender for agreeing adjectives (``feminine``: an
    adjective before it already says so: Mladá Boleslav)."""
    w = word
    if w.endswith("ice") or w.endswith("ce"):
        s = w[:-1]  # Pardubic- (plural) or Bystřic- (one town)
        return [[w], [s, w], [s + "ím", s + "i"], [w, s + "i"], [s + "ích", s + "i"], [s + "emi", s + "í"]], "pf"
    if w.endswith(("ě", "e")):  # Hradiště (neuter), soft feminines
        s = w[:-1]
        return [[w], [w], [s + "i"], [w], [s + "i"], [w + "m", s + "í"]], "n"
    if w.endswith("í"):  # Meziříčí, Ústí
        return [[w], [w], [w + "mu", w], [w], [w], [w + "m"]], "n"
    if w.endswith("y"):  # Kladruby, Děčany, Vary
        s = w[:-1]
        return [[w], [s, s + "ů"], [s + "ům"], [w], [s + "ech", s + "ích"], [w]], "p"
    if w.endswith("a"):  # Praha, Lhota
        s = w[:-1]
        return [
            [w],
            [s + ("e" if s.endswith(tuple(_SOFT)) else "y")],
            [_mutated_e(s)],
            [s + "u"],
            [_mutated_e(s)],
            [s + "ou"],
        ], "f"
    if w.endswith("o"):  # Blešno, Brno, Hradisko
        s = w[:-1]
        loc = [s + "u"] if s.endswith(("k", "h", "ch", "g")) else [_mutated_e(s), s + "u"]
        return [[w], [s + "a"], [s + "u"], [w], loc, [s + "em"]], "n"
    if w.endswith("ec") and len(w) > 3:  # Hradec, Liberec: e falls out, then soft masculine
        return _soft_cases([w[:-2] + "c"], w, feminine=False), "m"
    if w.endswith(tuple(_SOFT)):  # Kadaň, Plzeň (e falls out), Kroměříž, Třebíč: mostly feminine, some masculine
        stems = [w] + ([w[:-2] + w[-1]] if len(w) > 3 and w[-2] == "e" else [])
        return _soft_cases(stems, w), "f"
    if feminine:  # Mladá Boleslav, Nová Ves: i-stem feminine (genitive -i first)
        forms = _soft_cases([w], w, masculine=False)
        forms[1].reverse()
        forms[1] = [w + "i"] + [f for f in forms[1] if f != w + "i"]
        return forms, "f"
    # hard masculine: Zlín, Tábor, Prostějov, Most; -ek drops its e and takes -u (Frýdek → Frýdku)
    if w.endswith("ek") and len(w) > 3:
        s = w[:-2] + "k"
        return [[w], [s + "u", s + "a"], [s + "u"], [w], [s + "u"], [s + "em"]], "m"
    loc = [w + "u"] if w.endswith(("k", "h", "ch", "g")) else [_mutated_e(w), w + "u"]
    return [[w], [w + "a", w + "u"], [w + "u"], [w], loc, [w + "em"]], "m"


_POSSESSIVE = {  # possessive adjectives: Havlíčkův Brod, Karlovy Vary, Jindřichův Hradec
    "ův": ("ův", "ova", "ovu", "ův", "ově", "ovým"),
    "ova": ("ova", "ovy", "ově", "ovu", "ově", "ovou"),
    "ovo": ("ovo", "ova", "ovu", "ovo", "ově", "ovým"),
    "ovy": ("ovy", "ových", "ovým", "ovy", "ových", "ovými"),
    "in": ("in", "ina", "inu", "in", "ině", "iným"),
    "ina": ("ina", "iny", "ině", "inu", "ině", "inou"),
    "ino": ("ino", "ina", "inu", "ino", "ině", "iným"),
    "iny": ("iny", "iných", "iným", "iny", "iných", "inými"),
}


def _adjective_cases(word: str, gender: str) -> list[list[str]]:
    """An adjective agreeing with its noun (Nová Ves, Velké Meziříčí, Dolní Lhota), or a place name that is an
    adjective itself (Karviná); ``gender`` "pf": either (České Budějovice, plural; Dolní Bystřice, one town)."""
    if len(gender) > 1:
        both = [_adjective_cases(word, g) for g in gender]
        return [list(dict.fromkeys(f for forms in both for f in forms[c])) for c in range(N_CASES)]
    for end, endings in _POSSESSIVE.items():
        if word.endswith(end) and len(word) > len(end) + 2:
            return [[word[: -len(end)] + e] for e in endings]
    s = word[:-1]
    if word.endswith("ý"):
        endings = ("ý", "ého", "ému", "ý", "ém", "ým") if gender != "p" else ("é", "ých", "ým", "é", "ých", "ými")
    elif word.endswith("á"):
        endings = ("á", "é", "é", "ou", "é", "ou")
    elif word.endswith("é"):
        endings = ("é", "ého", "ému", "é", "ém", "ým") if gender != "p" else ("é", "ých", "ým", "é", "ých", "ými")
    elif word.endswith("í"):
        endings = ("í", "í", "í", "í", "í", "í") if gender == "f" else ("í", "ího", "ímu", "í", "ím", "ím")
    else:
        return [[word]] * N_CASES
    return [[s + e] for e in endings]


def _is_adjective(word: str, last: bool) -> bool:
    if not word[:1].isupper() or len(word) <= 3:
        return False
    if any(word.endswith(end) and len(word) > len(end) + 2 for end in _POSSESSIVE):
        return not last
    # A name's last word ending in -í is a noun (Ústí, Meziříčí); -á, -ý, -é is an adjective even alone (Karviná).
    return word.endswith(("ý", "á", "é")) or (word.endswith("í") and not last)


def _compound_cases(words: list[str]) -> list[list[str]]:
    """Case forms of adjectives + the noun they agree with; words after the noun stay (Hradec Králové)."""
    noun = next((i for i, w in enumerate(words) if not _is_adjective(w, i == len(words) - 1)), None)
    if noun is None:  # the name is an adjective (Karviná, Bílý Kostel's first half aside)
        gender = {"á": "f", "ý": "m"}.get(words[-1][-1], "n")
        per_word = [_adjective_cases(w, gender) for w in words]
        return [[" ".join(combo) for combo in _product([cases[c] for cases in per_word])] for c in range(N_CASES)]
    feminine = any(w.endswith("á") for w in words[:noun])
    parts = [_noun_cases(word, feminine) for word in words[noun].split("-")]  # Frýdek-Místek: both halves
    gender = parts[-1][1]
    noun_forms = [
        list(dict.fromkeys("-".join(combo) for combo in _product([p[0][c] for p in parts]))) for c in range(N_CASES)
    ]
    per_word = [_adjective_cases(w, gender) for w in words[:noun]] + [noun_forms]
    rest = words[noun + 1 :]
    return [[" ".join(combo + rest) for combo in _product([cases[c] for cases in per_word])] for c in range(N_CASES)]


def _product(lists: list[list[str]]) -> list[list[str]]:
    combos: list[list[str]] = [[]]
    for options in lists:
        combos = [c + [o] for c in combos for o in options]
    return combos


def case_forms(name: str) -> tuple[str, ...]:
    """Every case form of a municipality's name the declension rules give (nominative first; a name's paradigm is
    not always told by its ending, so some forms are alternatives only one of which is right; a prepositional tail
    stays: Ústí nad Labem → Ústí nad Labem, Ústím nad Labem)."""
    head, tail = _head_and_tail(name)
    if any(ch.isdigit() for ch in name) or not head:
        return (name,)
    forms = []
    for alternatives in _compound_cases(head):
        for form in alternatives:
            form = f"{form} {tail}" if tail else form
            if form not in forms:
                forms.append(form)
    return tuple(forms)


def gazetteer_forms() -> dict[str, tuple[str, ...]]:
    """Every municipality's name (nominative) → its case forms, for the NER's municipality gazetteer: the name
    after "obec", "města", "Obecní úřad", "Městského úřadu", "Magistrát města"… is recognised in any case."""
    return {m.name: case_forms(m.name) for m in register().municipalities}


def _head_and_tail(name: str) -> tuple[list[str], str]:
    """A name's declining words and its prepositional tail (Ústí | nad Labem)."""
    words = name.split()
    cut = next((i for i, w in enumerate(words) if i and w.lower() in PREPOSITIONS), len(words))
    return words[:cut], " ".join(words[cut:])


# A word of a place name (Frýdek-Místek is one); the words of a name are apart by whitespace, line breaks too.
_NAME_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_SPACE = re.compile(r"\s+")


class PlaceNames:
    """Every case form of every municipality's name (and its ASCII-folded spelling: OCR, folded court texts),
    found by looking words up — a regular expression over tens of thousands of forms takes seconds to compile."""

    def __init__(self, forms: dict[str, tuple[str, ...]]):
        self.by_form: dict[str, str] = {}
        for nominatives in (True, False):  # a nominative wins over another name's case form spelled alike
            for nominative, name_forms in forms.items():
                for form in name_forms[:1] if nominatives else name_forms[1:]:
                    for spelling in (form, fold(form)):
                        self.by_form.setdefault(spelling, nominative)
        self.max_words = max((len(f.split()) for f in self.by_form), default=0)

    def match(self, text: str, pos: int) -> tuple[int, str] | None:
        """(end, nominative) of the longest name form starting at ``pos`` and ending at a word's end."""
        words, ends, at = [], [], pos
        while len(words) < self.max_words:
            if words:
                space = _SPACE.match(text, at)
                if space is None:
                    break
                at = space.end()
            word = _NAME_WORD.match(text, at)
            if word is None:
                break
            words.append(word.group())
            at = word.end()
            ends.append(at)
        for count in range(len(words), 0, -1):
            nominative = self.by_form.get(" ".join(words[:count]))
            if nominative is not None:
                return ends[count - 1], nominative
        return None


@lru_cache(maxsize=1)
def place_names() -> PlaceNames:
    return PlaceNames(gazetteer_forms())


def genitive(name: str) -> str:
    """The first genitive form the rules give (Magistrát města Karviné: for the offices' names)."""
    head, tail = _head_and_tail(name)
    first = _compound_cases(head)[1][0]
    return f"{first} {tail}" if tail else first


def offices(municipality: Municipality) -> list[str]:
    """The offices of a municipality by its kind, in the nominative: Obecní úřad X, Úřad městyse X, Městský úřad X
    (and Magistrát města X: the registers do not tell statutory cities, so every town has both names; the
    recogniser only meets the real one)."""
    name = municipality.name
    if municipality.kind == "hlavní město":
        return ["Magistrát hlavního města Prahy"]
    if municipality.kind == "městys":
        return [f"Úřad městyse {name}"]
    if municipality.kind == "obec":
        return [f"Obecní úřad {name}"]
    towns = [f"Městský úřad {name}", f"Magistrát města {genitive(name)}"]
    return towns if municipality.kind == "město" else [f"Obecní úřad {name}", *towns]


def regional_offices() -> dict[str, str]:
    """kraj → its regional office (Krajský úřad Ústeckého kraje; Prague's is its Magistrát)."""
    out = {}
    for kraj in sorted({m.kraj for m in register().municipalities}):
        if kraj.startswith("Hlavní město"):
            out[kraj] = "Magistrát hlavního města Prahy"
        elif kraj == "Kraj Vysočina":
            out[kraj] = "Krajský úřad Kraje Vysočina"
        else:
            adjective = kraj.removesuffix(" kraj")
            out[kraj] = f"Krajský úřad {adjective[:-1]}ého kraje"
    return out


@lru_cache(maxsize=1)
def kraj_genitives() -> dict[str, str]:
    """Every region's name in the genitive as a regional body's name writes it ("… Jihomoravského kraje", "… kraje
    Vysočina", "… hl. m. Prahy") → the way its full name writes it ("Kraje Vysočina", "hlavního města Prahy")."""
    out = {}
    for kraj in sorted(register().kraje.values()):
        forms = kraj_forms(kraj)
        canonical = forms[1][:1].upper() + forms[1][1:] if kraj.startswith("Kraj ") else forms[1]
        for form in [forms[1], forms[7]] if kraj.startswith("Hlavní město") else [forms[1]]:
            for spelling in (form, form[:1].upper() + form[1:]):
                out[spelling] = canonical
    return out


def fire_rescue_services() -> dict[str, str]:
    """kraj → its fire-and-rescue service (Hasičský záchranný sbor Ústeckého kraje), a state authority per region."""
    canonical = kraj_genitives()
    return {
        kraj: f"Hasičský záchranný sbor {canonical[kraj_forms(kraj)[1]]}" for kraj in sorted(register().kraje.values())
    }


def main() -> None:
    from mendel.core.config import SAMPLE_CORPUS

    municipalities = build(SAMPLE_CORPUS)
    path = write_data(municipalities)
    kinds = sum(1 for m in municipalities if m.kind)
    print(f"{path}: {len(municipalities)} municipalities, {kinds} with their kind from the board register")


if __name__ == "__main__":
    main()
