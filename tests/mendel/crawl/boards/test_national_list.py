"""The national list of notice boards (``mendel/data/boards_national.v1.tsv``) is built from the registry files of the
sample corpus, never edited: the committed table is what the build makes, every municipality of the code list has
its row, and every value says where it came from."""

from __future__ import annotations

import json

import pytest

from cli.main import main as mendel_main
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.cms_rules import load_cms_rules
from mendel.crawl.boards.national_list import (
    DESK_LINKS_SOURCE,
    NATIONAL_FILE,
    board_page,
    build,
    domain_names,
    edesky_municipalities,
    mpsv_codes,
    municipality_of_domain,
    read_table,
    summary,
    write_table,
)
from mendel.registers.municipalities import read_data, register


@pytest.fixture(scope="module")
def built():
    return build(SAMPLE_CORPUS)


def test_the_committed_table_is_what_the_build_makes(built, tmp_path):
    assert read_table() == built
    # and it reads back as it was written
    assert read_table(write_table(built, tmp_path / "list.tsv")) == built


def test_every_municipality_of_the_code_list_has_one_row_with_its_provenance(built):
    codes = mpsv_codes(SAMPLE_CORPUS)
    rows = [b for b in built if b.key.startswith("obec:")]
    assert sorted(b.obec_kod for b in rows) == sorted(codes) and len(codes) == 6258
    assert len({b.key for b in built}) == len(built)
    assert all(b.provenance for b in built)
    assert all(f"mpsv:{b.obec_kod}" in b.provenance for b in rows)
    kadan = next(b for b in rows if b.name == "Kadaň")
    assert (kadan.okres, kadan.kraj) == ("Chomutov", "Ústecký kraj")


def test_a_rule_set_follows_from_the_sites_cms(built):
    rules = load_cms_rules()
    with_rules = {s.key for s in rules.systems if s.rules}
    for board in built:
        assert bool(board.rule_set) == (board.cms in with_rules), board
        if board.rule_set:
            assert board.rule_set == f"cms:{board.cms}@{rules.version}"
    trutnov = next(b for b in built if b.website == "trutnov.cz")
    assert (trutnov.name, trutnov.cms, trutnov.website_from) == ("Trutnov", "public4u", "weby:name")


def test_board_pages_come_from_the_2019_links(built):
    links = {e["id"]: e for e in json.loads((SAMPLE_CORPUS / DESK_LINKS_SOURCE).read_text(encoding="utf-8"))}
    with_page = [b for b in built if b.board_url]
    assert with_page and all(b.board_url_from == "desk_links_2019" for b in with_page)
    for board in with_page:
        ids = [int(p.split(":")[1]) for p in board.provenance.split("; ") if p.startswith("desk_links:")]
        assert any(board.board_url == board_page(links[i]["city-web"], links[i]["desk"]) for i in ids), board


@pytest.mark.parametrize(
    "site, links, page",
    [
        # the board among a site's links, not its notices' pages
        (
            "https://www.abertamy.eu/",
            ["/uredni-deska/", "/uredni-deska/detail/program-zasedani-zastupitelstva-mesta-abertamy-dne-20-03-2019"],
            "https://www.abertamy.eu/uredni-deska/",
        ),
        # a board on a hosting provider's host
        ("http://www.bavorov.cz", ["http://bavorov.imunis.cz/edeska/"], "http://bavorov.imunis.cz/edeska/"),
        # the one linked most often
        (
            "http://www.konice.cz",
            ["/uredni-deska/2/p1=55", "/uredni-deska/2/p1=55", "/vismo/zobraz_dok.asp?ud=2&p1=1005"],
            "http://www.konice.cz/uredni-deska/2/p1=55",
        ),
        # only the home page or nothing: no board page
        ("https://www.sumavanet.cz/bela/", [], None),
        ("http://www.example-obec.cz/", ["/", "/index.php"], None),
    ],
)
def test_board_page_of_a_sites_links(site, links, page):
    assert board_page(site, links) == page


@pytest.mark.parametrize(
    "domain, name",
    [
        ("abertamy.eu", "Abertamy"),
        ("lazne-belohrad.cz", "Lázně Bělohrad"),
        ("obec-kunratice.cz", None),  # two municipalities of that name: none chosen
        ("example.cz", None),
    ],
)
def test_a_domain_that_spells_a_municipalitys_name(domain, name):
    found = municipality_of_domain(domain, domain_names(read_data()))
    assert (found.name if found else None) == name


@pytest.mark.parametrize(
    "board, okres, okres_found",
    [
        ("Město Kadaň", "Chomutov", "Chomutov"),
        ("Obec Čistá (Svitavy)", "Svitavy", "Svitavy"),  # a shared name with its okres in brackets
        ("Obec Drnovice okres Vyškov", "Vyškov", "Vyškov"),
        ("Obec Drnovice okres Zlín", "Zlín", "Zlín"),
    ],
)
def test_edesky_boards_find_their_municipality(board, okres, okres_found):
    found = edesky_municipalities(register(), board, okres)
    assert [m.okres for m in found] == [okres_found]


def test_ofn_feeds_of_a_catalogue_read_fill_the_list(built):
    kadan_feed = "https://www.mesto-kadan.cz/1ad1f16beff952576ae7ddd76a91e163"
    catalogue = [Board(key=kadan_feed, kind="ofn", url=kadan_feed, name="Město Kadaň", dataset="urn:test:kadan")]
    with_feed = [b for b in build(SAMPLE_CORPUS, catalogue) if b.ofn_feed]
    assert [(b.name, b.ofn_feed) for b in with_feed] == [("Kadaň", kadan_feed)]
    assert "catalogue:urn:test:kadan" in with_feed[0].provenance
    assert summary(built)["with_ofn_feed"] == 0  # the committed table: no catalogue read offline


def test_summary_counts_add_up(built):
    counts = summary(built)
    assert counts["rows"] == counts["municipalities"] + counts["other_boards"] + counts["unplaced_sites"]
    assert sum(counts["found_by"].values()) == counts["rows"]
    assert counts["found_by"]["nothing"] == counts["without_anything"]
    assert counts["with_rule_set"] <= counts["with_cms"] <= counts["with_website"]
    top = list(counts["top_cms_by_municipalities"].values())
    assert top == sorted(top, reverse=True) and top[0] > 0


def test_build_list_command_writes_the_table(tmp_path, capsys):
    out = tmp_path / "national.tsv"
    assert mendel_main(["boards", "build-list", "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["table"] == str(out) and printed["rows"] == len(read_table(out))
    assert out.read_bytes() == NATIONAL_FILE.read_bytes()
