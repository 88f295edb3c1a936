"""Public bodies behind notice boards that no municipality runs: the police's regional directorates and national
units, the Ministry of the Interior. A board is linked to the body most of its notices' file numbers name.

The table ``mendel/data/public_bodies.v1.yaml`` (maintained, versioned) maps the code a file number (číslo
jednací) starts with — ``KRPA-291393-6/ČJ-2023-0011IY``: ``KRPA`` — to the issuing unit: its name, its scope
(``national`` | ``regional``) and, for a regional unit, its kraj. :func:`place_by_numbers` reads the codes of a
board's notices and picks the one most of them carry; a board none of whose notices is numbered, a tie between two
codes, or a leading code the table does not know places nothing, and the answer says why.

:func:`place_boards` applies it to boards (:class:`mendel.crawl.boards.board.Board`) that neither a municipality nor a name
places: a municipality's or a region's board lists notices of other bodies (a police notice on a town's board), so
only a board of no municipality is placed by its notices. A regional body gives such a board its kraj; a board a
page address already placed in another region keeps that region and is not linked (the two disagree).
"""

from __future__ import annotations

import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import yaml

from mendel.data import DATA_DIR

TABLE_FILE = DATA_DIR / "public_bodies.v1.yaml"
SCOPES = ("national", "regional")
# A file number's unit code: the letters before its first hyphen ("KRPZ-119099-110/TČ -2023-150571").
_CODE = re.compile(r"^\s*([^\W\d_]+)\s*-")
# Why a board is not linked to a body (the register's metadata counts boards by these).
NO_NOTICES = "no_notices"  # nothing of the board stored yet (a board crawled for the first time is placed after)
NO_NUMBERS = "no_numbers"  # it lists no notice, or none with a file number that has a unit code
TIE = "tie"  # two or more codes head its notices equally often
UNKNOWN_CODE = "unknown_code"  # the leading code is not in the table
OTHER_REGION = "other_region"  # a regional body of another kraj than the one its page names
BODY_PLACED = ("body", "site")  # placed_by of a board a body placed: by its notices' numbers, by its page's site


class TableError(ValueError):
    """The table is malformed (an entry without a unit, an unknown scope, a regional unit without its kraj)."""


@dataclass(frozen=True)
class Body:
    code: str  # KRPA
    unit: str  # Krajské ředitelství policie hlavního města Prahy
    scope: str  # national | regional
    kraj: str | None  # a regional unit's region; None for a national one


@dataclass(frozen=True)
class BodyTable:
    version: int
    bodies: dict[str, Body]
    sites: dict[str, Body] = field(default_factory=dict)  # a page's host → the body all boards there belong to


@dataclass(frozen=True)
class BodyPlace:
    body: Body | None
    why_not: str | None = None  # NO_NOTICES | NO_NUMBERS | TIE | UNKNOWN_CODE | OTHER_REGION
    reason: str | None = None  # the same in words, with the codes and counts


def table_from(value, where: str = "public bodies table", kraje=None) -> BodyTable:
    """Parsed table (``{"version": n, "bodies": {code: {unit, scope, kraj}}}``) → :class:`BodyTable`; ``kraje``:
    the region names a regional unit may name (default: those of the municipalities register)."""
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("version"), int)
        or not isinstance(value.get("bodies"), dict)
    ):
        raise TableError(f"{where}: expected a mapping with an integer 'version' and a 'bodies' mapping")
    if kraje is None:
        from mendel.registers.municipalities import register

        kraje = set(register().kraje.values())
    bodies = {}
    for code, entry in value["bodies"].items():
        label = f"{where}, code {code!r}"
        if not isinstance(code, str) or not _CODE.match(f"{code}-") or code != code.upper():
            raise TableError(f"{label}: a code is the upper-case letters a file number starts with")
        if not isinstance(entry, dict) or not entry.get("unit") or entry.get("scope") not in SCOPES:
            raise TableError(f"{label}: needs a 'unit' and a 'scope' (one of {list(SCOPES)})")
        kraj = entry.get("kraj")
        if (entry["scope"] == "regional") != (kraj is not None) or (kraj is not None and kraj not in kraje):
            raise TableError(f"{label}: a regional unit names its kraj (one of the register's), a national one none")
        bodies[code] = Body(code=code, unit=str(entry["unit"]), scope=entry["scope"], kraj=kraj)
    sites = {}
    for host, entry in (value.get("sites") or {}).items():
        code = entry.get("code") if isinstance(entry, dict) else None
        if code not in bodies:
            raise TableError(f"{where}, site {host!r}: needs the 'code' of a body the table lists")
        sites[str(host).lower()] = bodies[code]
    return BodyTable(version=value["version"], bodies=bodies, sites=sites)


@lru_cache(maxsize=4)
def load_table(path: Path = TABLE_FILE) -> BodyTable:
    return table_from(yaml.safe_load(Path(path).read_text(encoding="utf-8")), str(path))


def code_of(number: str | None) -> str | None:
    """The unit code a file number starts with (upper case), or None: ``KRPA-291393-6/ČJ-2023-0011IY`` → KRPA."""
    match = _CODE.match(number or "")
    return match.group(1).upper() if match else None


def place_by_numbers(numbers, table: BodyTable | None = None) -> BodyPlace:
    """The body most of a board's notices' file numbers name (``numbers``: one per stored notice, None or "" for a
    notice without one; None: nothing stored yet)."""
    if numbers is None:
        return BodyPlace(None, NO_NOTICES, "no notice of it is stored (it lists none, or is not crawled yet)")
    table = table or load_table()
    numbers = list(numbers)
    codes = Counter(c for c in map(code_of, numbers) if c)
    if not numbers:
        return BodyPlace(None, NO_NUMBERS, "it lists no notice")
    if not codes:
        return BodyPlace(None, NO_NUMBERS, f"none of its {len(numbers)} notices carries a file number with a unit code")
    ranked = codes.most_common()
    top = ranked[0][1]
    leaders = sorted(code for code, count in ranked if count == top)
    counts = ", ".join(f"{code}- {count}" for code, count in sorted(ranked, key=lambda r: (-r[1], r[0])))
    if len(leaders) > 1:
        return BodyPlace(None, TIE, f"its notices' unit codes tie ({counts})")
    body = table.bodies.get(leaders[0])
    if body is None:
        return BodyPlace(
            None,
            UNKNOWN_CODE,
            f"most of its numbered notices start with {leaders[0]}-, a code the "
            f"public bodies table (version {table.version}) does not list ({counts})",
        )
    return BodyPlace(body)


def place_boards(boards, numbers: dict, table: BodyTable | None = None) -> list:
    """Boards linked to their public body where their notices tell it (``numbers``: board URL → the file numbers
    of its stored notices, as :func:`mendel.crawl.boards.placing.notice_numbers` reads them). Boards a municipality or a name
    places are returned as they are; the others get their body (``body``, ``body_scope``, ``body_code``; a
    regional body's kraj when they have none) or, when no place is known at all, the reason (``unplaced``)."""
    table = table or load_table()
    out = []
    for board in boards:
        board = replace(board, body=None, body_scope=None, body_code=None, unplaced=None)
        if board.placed_by in BODY_PLACED:  # placed before by a body: placed again from what is known now
            board = replace(board, kraj=None, placed_by=None)
        if board.obec or board.placed_by == "name":
            out.append(board)
            continue
        found = place_by_numbers(numbers.get(board.url), table)
        body, placed_by = found.body, "body"
        if body is None and found.why_not in (NO_NOTICES, NO_NUMBERS):  # no notice names a unit: the page's site
            host = (urllib.parse.urlsplit(board.page or "").hostname or "").lower()
            body, placed_by = table.sites.get(host), "site"
        if body is not None and body.kraj and board.kraj and body.kraj != board.kraj:
            found = BodyPlace(
                None, OTHER_REGION, f"its notices' unit {body.code}- is of {body.kraj}, its page names {board.kraj}"
            )
            body = None
        if body is not None:
            board = replace(
                board,
                body=body.unit,
                body_scope=body.scope,
                body_code=body.code,
                kraj=board.kraj or body.kraj,
                placed_by=board.placed_by or placed_by,
            )
        elif not board.kraj:
            board = replace(board, unplaced=f"{found.why_not}: {found.reason}")
        out.append(board)
    return out


def place_summary(boards) -> dict:
    """Boards by what placed them, for the register's metadata: by municipality (kód obce), by a public body
    (its notices' file numbers; a body's board a page also placed counts here), by region only (a name or a page),
    unplaced — and the unplaced by reason."""

    def kind(board) -> str:
        return "municipality" if board.obec else "body" if board.body else "region" if board.kraj else "unplaced"

    kinds = Counter(kind(b) for b in boards)
    reasons = Counter((b.unplaced or "unknown").split(":", 1)[0] for b in boards if kind(b) == "unplaced")
    return {
        "placed_by_municipality": kinds["municipality"],
        "placed_by_body": kinds["body"],
        "placed_by_region": kinds["region"],
        "unplaced_by_reason": dict(sorted(reasons.items())),
    }
