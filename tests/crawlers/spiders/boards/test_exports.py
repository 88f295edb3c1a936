"""Publishers' own exports: Karviná's pre-OFN JSON and its XML, the Zlínský kraj's CSV — read into OFN notices, or
quarantined notice by notice with the reason; a download URL that is no board at all is a quarantined listing."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import psycopg
import pytest

from crawlers.spiders.boards.exports import read_listing
from mendel.core.config import SAMPLE_CORPUS
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.register import write_boards_file
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, logged, only

BOARDS = SAMPLE_CORPUS / "municipal" / "boards"
KARVINA_JSON = "http://karvina.mirror.test/opendata.json"
KARVINA_XML = "http://karvina.mirror.test/uredni-deska.xml"
NOT_A_BOARD = "http://kadan-html.mirror.test/deska/"  # an HTML page named as an export


def test_the_real_exports_read_as_ofn_notices():
    karvina = json.loads((BOARDS / "karvina_deska.json").read_text(encoding="utf-8"))
    listing = read_listing((BOARDS / "karvina_deska.json").read_bytes(), KARVINA_JSON)
    assert listing.layout == "flat_json" and listing.feed["provozovatel"] == {"typ": "Osoba", "ičo": "00297534"}
    assert [i.position for i in listing.items] == list(range(1, len(karvina))) and all(i.notice for i in listing.items)
    first, source = listing.items[0], karvina[1]
    assert first.notice["název"] == {"cs": source["nazev"]}
    assert first.notice["vyvěšení"] == source["vyveseni"] and first.notice["relevantní_do"] == source["relevantni_do"]
    assert first.notice["dokument"][0]["url"] == source["url"] and "url" not in first.notice  # the file, no page
    assert first.notice_id.startswith(KARVINA_JSON + "#") and len({i.notice_id for i in listing.items}) == 164
    # What a notice needs, and the reason when it is missing.
    assert [
        read_listing(json.dumps([karvina[0], {**karvina[1], **change}]).encode(), KARVINA_JSON).items[0].reason
        for change in ({"nazev": None}, {"vyveseni": None}, {"vyveseni": "brzy"})
    ] == ["no title", "no date of posting", "unreadable date of posting 'brzy'"]

    xml = ET.parse(BOARDS / "karvina_deska.xml").getroot()
    listing = read_listing((BOARDS / "karvina_deska.xml").read_bytes(), KARVINA_XML)
    assert listing.layout == "ud_xml" and len(listing.items) == len(xml) == 164
    item, notice = xml[0], listing.items[0].notice
    assert notice["název"]["cs"] == item.findtext("NAZEV") and notice["vyvěšení"]["datum"] == item.findtext("VYVESENO")
    assert notice["relevantní_do"]["datum"] == item.findtext("STAZENO")
    assert notice["dokument"][0]["url"] == "http://karvina.mirror.test/" + item.findtext("URL")  # relative to it

    with (BOARDS / "zlinsky_kraj_deska.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    listing = read_listing((BOARDS / "zlinsky_kraj_deska.csv").read_bytes(), "http://kr-zlinsky.mirror.test/x.csv")
    assert listing.layout == "ofn_csv" and len(listing.items) == len(rows) == 2836
    assert listing.feed["provozovatel"]["ičo"] == "70891320" and all(i.notice for i in listing.items)
    notice = listing.items[0].notice
    assert notice["url"] == rows[0]["informace_url"] and notice["vyvěšení"]["datum"] == rows[0]["vyvěšení"][:10]
    assert notice["popis"]["cs"] == " ".join(rows[0]["anotace"].split())


@pytest.mark.e2e
def test_exports_crawled_and_their_broken_notices_quarantined_one_by_one(tmp_path, fresh_db, monkeypatch):
    # A copy of the corpus whose Karviná JSON export has three broken notices (a real export's ways of going wrong).
    corpus = tmp_path / "corpus"
    (corpus / "municipal" / "boards").mkdir(parents=True)
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.is_dir() and entry.name != "municipal":
            (corpus / entry.name).symlink_to(entry)
    for entry in (SAMPLE_CORPUS / "municipal").iterdir():
        if entry.name != "boards":
            (corpus / "municipal" / entry.name).symlink_to(entry)
    for entry in BOARDS.iterdir():
        if entry.name != "karvina_deska.json":
            (corpus / "municipal" / "boards" / entry.name).symlink_to(entry)
    karvina = json.loads((BOARDS / "karvina_deska.json").read_text(encoding="utf-8"))
    karvina[1]["nazev"] = " "
    karvina[2]["vyveseni"] = {"typ": "Časový okamžik", "nespecifikovaný": True}
    karvina.append("Oznámení bez struktury")
    (corpus / "municipal" / "boards" / "karvina_deska.json").write_text(
        json.dumps(karvina, ensure_ascii=False), encoding="utf-8"
    )
    boards = [
        Board(key=url, kind="export", url=url, format=kind)
        for url, kind in ((KARVINA_JSON, "JSON"), (KARVINA_XML, "XML"), (NOT_A_BOARD, "JSON"))
    ]
    with MirrorThread(corpus) as mirror:
        run = crawl_runner(monkeypatch, tmp_path, fresh_db, mirror.base_url)
        counts = run(
            "boards",
            "exports-1",
            MENDEL_BOARDS_FILE=str(write_boards_file(boards, tmp_path / "b.json")),
            MENDEL_BOARD_DOWNLOAD_DELAY="0",
        )
    good_json, xml_notices = len(karvina) - 1 - 3, 164
    # Every good notice stored; its file (not in the corpus) quarantined as a 404; three broken notices and the
    # HTML page quarantined with their reasons.
    only(counts, stored=good_json + xml_notices, quarantined=good_json + xml_notices + 3 + 1)
    assert (counts["boards_export_flat_json"], counts["boards_export_ud_xml"], counts["listing_failed"]) == (1, 1, 1)
    reasons = {
        url: (outcome, reason)
        for url, outcome, _, reason in logged(fresh_db, "exports-1")
        if outcome == "quarantined" and "#" in url
    }
    assert reasons == {
        f"{KARVINA_JSON}#1": ("quarantined", "notice 1 of the flat_json listing: no title"),
        f"{KARVINA_JSON}#2": (
            "quarantined",
            "notice 2 of the flat_json listing: the date of posting is given as unspecified",
        ),
        f"{KARVINA_JSON}#{len(karvina) - 1}": (
            "quarantined",
            f"notice {len(karvina) - 1} of the flat_json listing: notice is not a JSON object",
        ),
    }
    [(_, not_a_board)] = [(u, r) for u, o, _, r in logged(fresh_db, "exports-1") if u.endswith("/deska/")]
    assert not_a_board == "listing: not a notice board (text/html): an HTML page, not a feed or an export"
    with psycopg.connect(fresh_db) as conn:
        titles = dict(
            conn.execute(
                "SELECT listing, count(*) FROM documents WHERE doc_type = 'notice' GROUP BY listing"
            ).fetchall()
        )
    assert titles == {KARVINA_JSON: good_json, KARVINA_XML: xml_notices}
