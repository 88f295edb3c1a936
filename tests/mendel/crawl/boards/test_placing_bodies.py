"""Boards of public bodies know their body: a board no municipality runs — a regional police directorate,
the police presidium, the Ministry of the Interior — is linked to the body most of its notices' file numbers name
(mendel/data/public_bodies.v1.yaml), a regional body gives it its kraj, and a board the numbers cannot tell stays
unplaced with the reason. Cases are the real MVČR feeds of the sample corpus."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import yaml

from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.board import Board
from mendel.registers import municipalities, public_bodies

MVCR_FEEDS = SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json"
FEEDS = {feed["iri"]: feed for feed in json.loads(MVCR_FEEDS.read_text(encoding="utf-8"))}
NUMBERS = {iri: [n.get("číslo_jednací") for n in feed.get("informace", [])] for iri, feed in FEEDS.items()}
API = "https://opendata-test.mvcr.cz/api/boards/"


def feed_board(number: int) -> Board:
    """The board of the n-th real feed as the catalogue gives it: its feed URL, the ministry's IČO, its page."""
    feed = FEEDS[f"{API}{number}"]
    return Board(
        key=feed["iri"], kind="ofn", url=feed["iri"], publisher_ico=feed["provozovatel"]["ičo"], page=feed["stránka"]
    )


def place(*numbers: int) -> dict[int, Board]:
    boards, _ = municipalities.place_boards([feed_board(n) for n in numbers])
    return {int(b.url.removeprefix(API)): b for b in public_bodies.place_boards(boards, NUMBERS)}


@pytest.mark.parametrize(
    "number, code, unit, kraj",
    [
        # Police boards whose page names a region of before 2000 or an abbreviation: only their notices place them.
        (7, "KRPU", "Krajské ředitelství policie Ústeckého kraje", "Ústecký kraj"),  # "správa severočeského kraje"
        (9, "KRPH", "Krajské ředitelství policie Královéhradeckého kraje", "Královéhradecký kraj"),  # "východočeského"
        (14, "KRPM", "Krajské ředitelství policie Olomouckého kraje", "Olomoucký kraj"),  # "…-policie-olk-…"
        (108, "KRPJ", "Krajské ředitelství policie kraje Vysočina", "Kraj Vysočina"),  # "…-policie-kvs-…"
        (15, "KRPT", "Krajské ředitelství policie Moravskoslezského kraje", "Moravskoslezský kraj"),  # 10 of 17
        (109, "KRPB", "Krajské ředitelství policie Jihomoravského kraje", "Jihomoravský kraj"),  # 13 KRPB-, 1 KRPT-
        # A page that names the region already: the notices name the same one, and the body is linked.
        (99, "KRPA", "Krajské ředitelství policie hlavního města Prahy", "Hlavní město Praha"),
        (3, "KRPS", "Krajské ředitelství policie Středočeského kraje", "Středočeský kraj"),
    ],
)
def test_a_regional_police_board_is_linked_to_its_directorate_and_its_kraj(number, code, unit, kraj):
    board = place(number)[number]
    assert (board.body_code, board.body, board.body_scope, board.kraj) == (code, unit, "regional", kraj)
    assert board.obec is None and board.okres is None and board.unplaced is None


@pytest.mark.parametrize(
    "number, code, unit",
    [
        (98, "PPR", "Policejní prezidium České republiky"),  # the police's national board: 1 PPR-, 2 without a number
        (128, "MV", "Ministerstvo vnitra"),  # 42 notices, all MV-
        (37, "OAM", "Ministerstvo vnitra, Odbor azylové a migrační politiky"),  # 242 OAM-, 2 MV-, 2 without
    ],
)
def test_a_national_body_s_board_is_linked_to_it_without_a_kraj(number, code, unit):
    board = place(number)[number]
    assert (board.body_code, board.body, board.body_scope, board.kraj) == (code, unit, "national", None)


def test_a_board_the_numbers_cannot_tell_stays_unplaced_and_says_why():
    boards = place(1, 5, 10)
    # The national police board lists one notice each of PPR-, NCOZ-, CPR-: a tie.
    assert boards[1].body is None and boards[1].kraj is None
    assert boards[1].unplaced == "tie: its notices' unit codes tie (CPR- 1, NCOZ- 1, PPR- 1)"
    # "správa západočeského kraje": six notices, none numbered; the Pardubice directorate's board lists none.
    assert boards[5].unplaced == "no_numbers: none of its 6 notices carries a file number with a unit code"
    assert boards[10].unplaced == "no_numbers: it lists no notice"
    # A code the table does not list (the real KRPS board's numbers, rewritten) leads: unplaced, the code named.
    unknown = public_bodies.place_by_numbers([n.replace("KRPS-", "KRPX-") if n else n for n in NUMBERS[f"{API}3"]])
    assert unknown.body is None and unknown.why_not == public_bodies.UNKNOWN_CODE
    assert "KRPX-" in unknown.reason and "KRPX- 34" in unknown.reason
    # Nothing stored yet (a board crawled for the first time): no body, and a board off the ministry's site is
    # not placed by its site either.
    (stored,) = public_bodies.place_boards(municipalities.place_boards([feed_board(11)])[0], {})
    assert stored.body is None and stored.unplaced.startswith(f"{public_bodies.NO_NOTICES}:")


def test_a_ministry_board_without_numbered_notices_is_the_ministrys_by_its_site():
    # Board 56 (a selection procedure of the ministry) lists one notice without a number; board 53 lists none.
    boards = place(53, 56)
    assert {n: (b.body_code, b.body_scope, b.placed_by) for n, b in boards.items()} == {
        53: ("MV", "national", "site"),
        56: ("MV", "national", "site"),
    }


def test_a_municipality_s_board_keeps_its_municipality_whatever_notices_it_lists():
    kadan = Board(key="kadan", kind="ofn", url="https://kadan/", name="Město Kadaň", publisher_ico="00261912")
    zlin = Board(key="zlin", kind="ofn", url="https://zlin/", name="Zlínský kraj", publisher_ico="70891320")
    boards, _ = municipalities.place_boards([kadan, zlin])
    # A town's or a region's board posts the police's notices too: they do not make it the police's board.
    police = {"https://kadan/": ["KRPU-1-1/ČJ-2024-040000"] * 3, "https://zlin/": ["KRPZ-1-1/ČJ-2024-150000"] * 3}
    placed = {b.key: (b.obec, b.kraj, b.body) for b in public_bodies.place_boards(boards, police)}
    assert placed == {"kadan": ("Kadaň", "Ústecký kraj", None), "zlin": (None, "Zlínský kraj", None)}


def test_a_body_of_another_region_than_the_page_names_is_not_linked():
    board, _ = municipalities.place_boards([feed_board(3)])  # its page: Středočeský kraj
    (placed,) = public_bodies.place_boards(board, {board[0].url: ["KRPZ-1-1/ČJ-2024-1"] * 2})
    assert (placed.kraj, placed.body, placed.placed_by) == ("Středočeský kraj", None, "page")


def test_placing_again_follows_the_notices_stored_now():
    (first,) = public_bodies.place_boards(municipalities.place_boards([feed_board(7)])[0], NUMBERS)
    assert (first.body_code, first.kraj, first.placed_by) == ("KRPU", "Ústecký kraj", "body")
    # Read back from the register table and placed again when its notices say otherwise: the old body's kraj goes.
    again = Board.from_dict(first.to_dict())
    (moved,) = public_bodies.place_boards([again], {again.url: ["KRPL-1-1/ČJ-2024-1"]})
    assert (moved.body_code, moved.kraj) == ("KRPL", "Liberecký kraj")
    (none,) = public_bodies.place_boards([again], {again.url: []})
    assert (none.body, none.kraj, none.placed_by) == (None, None, None) and none.unplaced.startswith("no_numbers")


def test_every_code_in_the_table_heads_notices_in_the_real_feeds():
    table = public_bodies.load_table()
    seen = Counter(public_bodies.code_of(n) for numbers in NUMBERS.values() for n in numbers)
    assert set(table.bodies) <= set(seen)  # no code listed that the feeds never show
    assert {c for c in table.bodies if table.bodies[c].scope == "regional"} == {
        "KRPA",
        "KRPS",
        "KRPK",
        "KRPU",
        "KRPL",
        "KRPH",
        "KRPJ",
        "KRPB",
        "KRPM",
        "KRPT",
        "KRPZ",
    }
    assert len({b.kraj for b in table.bodies.values() if b.kraj}) == 11
    assert public_bodies.code_of("KRPZ-119099-110/TČ -2023-150571") == "KRPZ"
    assert public_bodies.code_of("") is None and public_bodies.code_of("123/2024") is None


def test_a_malformed_table_is_refused():
    good = yaml.safe_load(public_bodies.TABLE_FILE.read_text(encoding="utf-8"))
    for broken in (
        {**good, "bodies": {"KRPX": {"unit": "X", "scope": "regional"}}},  # regional without kraj
        {**good, "bodies": {"PPR": {"unit": "X", "scope": "national", "kraj": "Zlínský kraj"}}},
        {**good, "bodies": {"X": {"unit": "X", "scope": "local"}}},
        {**good, "sites": {"www.example.cz": {"code": "NOPE"}}},
        {"bodies": {}},
    ):
        with pytest.raises(public_bodies.TableError):
            public_bodies.table_from(broken)


def test_the_register_metadata_counts_boards_by_what_placed_them():
    boards = place(*range(1, 183))
    summary = public_bodies.place_summary(boards.values())
    # 182 real feeds. By body: 41 by their notices' numbers (21 police boards — 4 of them placed by their page
    # too —, 20 of the ministry's), 114 of the ministry's site with no numbered notice. By region alone: the 14
    # fire-and-rescue services' boards and 4 police boards with no numbered notice, by their page. Unplaced: the
    # tie and 8 boards with no numbered notice off the ministry's site.
    assert summary == {
        "placed_by_municipality": 0,
        "placed_by_body": 155,
        "placed_by_region": 18,
        "unplaced_by_reason": {"no_numbers": 8, "tie": 1},
    }
    assert Counter(b.placed_by for b in boards.values() if b.body) == {"body": 37, "page": 4, "site": 114}


def test_the_register_read_places_boards_once_and_the_notices_inherit_it(fresh_db):
    import psycopg

    from mendel.crawl.boards import placing, register

    def table(conn) -> dict:
        rows = conn.execute("SELECT key, kraj, body, body_scope FROM boards").fetchall()
        return {k: (kraj, body, scope) for k, kraj, body, scope in rows}

    catalogue = [feed_board(7), feed_board(53), feed_board(10)]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        # The register read before any crawl: the ministry's board by its site, the police boards not yet.
        first_night, placed = placing.place_boards(conn, catalogue)
        read = {b.key: b for b in first_night}
        assert read[f"{API}53"].body == "Ministerstvo vnitra" and read[f"{API}7"].body is None and placed == 1
        assert read[f"{API}7"].unplaced.startswith(f"{public_bodies.NO_NOTICES}:")
        register.register_boards(conn, first_night)
        # The crawl stores board 7's notices (and an attachment, which carries its notice's number too).
        feed = FEEDS[f"{API}7"]
        rows = [
            (n["iri"], "boards", n["url"], "notice", n.get("číslo_jednací"), feed["iri"]) for n in feed["informace"]
        ]
        rows.append(
            ("7:attachment.pdf", "boards", "https://x/a.pdf", "notice_attachment", "KRPL-1-1/ČJ-2024-1", feed["iri"])
        )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO documents (doc_id, source, url, doc_type, citation, listing)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                rows,
            )
        # Reading the places writes nothing: board 7 is not placed before the register is read again.
        before = table(conn)
        places = placing.document_places(conn)
        assert feed["informace"][0]["iri"] not in places and table(conn) == before
        assert before[f"{API}7"] == (None, None, None)
        # The next night's register read finds the body in the stored notices and keeps it; its notices inherit it.
        next_night, _ = placing.place_boards(conn, catalogue)
        register.register_boards(conn, next_night)
        places = placing.document_places(conn)
        ustecky = {
            "kraj": "Ústecký kraj",
            "body": "Krajské ředitelství policie Ústeckého kraje",
            "body_scope": "regional",
        }
        assert places[feed["informace"][0]["iri"]] == ustecky and places["7:attachment.pdf"] == ustecky
        assert table(conn) == {
            f"{API}7": ("Ústecký kraj", "Krajské ředitelství policie Ústeckého kraje", "regional"),
            f"{API}53": (None, "Ministerstvo vnitra", "national"),
            f"{API}10": (None, None, None),
        }
        (spec,) = register.registered_boards(conn, [f"{API}7"])
        assert (spec.body_code, spec.placed_by, spec.unplaced) == ("KRPU", "body", None)
        again = {b.key: b for b in placing.place_boards(conn, catalogue)[0]}
        assert again[f"{API}7"].body_code == "KRPU" and again[f"{API}10"].unplaced.startswith("no_notices")
