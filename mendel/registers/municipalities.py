"""Czech municipalities from the registers — every obec with its kód obce, okres, kraj, parts, postcodes and
kind — and where a notice board belongs (:func:`place_boards`).

The data file ``mendel/data/municipalities.tsv`` is generated, never edited: ``python -m
mendel.registers.municipalities`` builds it from the sample corpus's ``registry/ruian_casti_obci_psc.csv`` (RÚIAN:
every část obce with its PSČ, obec, okres and kraj) and ``registry/edesky_boards_2024-05.sql`` (the edesky.cz board
register: each municipality's kind, and board names that tell apart municipalities of one name).

A board's place comes from, in order: the kód obce its catalogue record or list entry gives; its publisher's name
(the one municipality of that kind and name, or a region or regional body such as "Hasičský záchranný sbor
Zlínského kraje"); another board of the same publisher (IČO), when that publisher's boards agree; the one region
its page's address names. A name that names no current region exactly, or names two places, places nothing.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

from mendel.czech.declension import kraj_forms
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


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", fold(text).casefold())


def place_boards(boards: list) -> tuple[list, int]:
    """Boards (:class:`mendel.crawl.boards.board.Board`) with their place filled in where it can be told, and what told it
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


def main() -> None:
    from mendel.core.config import SAMPLE_CORPUS

    municipalities = build(SAMPLE_CORPUS)
    path = write_data(municipalities)
    kinds = sum(1 for m in municipalities if m.kind)
    print(f"{path}: {len(municipalities)} municipalities, {kinds} with their kind from the board register")


if __name__ == "__main__":
    main()
