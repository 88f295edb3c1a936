"""The register: the catalogue's boards and the maintained list merged, partition keys looked up without reading
the catalogue, names reserved for tests left out in production; and the mirror's scale mode (1,500 boards, each on
a host of its own), which the register reads like the real catalogue."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.parse
import urllib.request

from assets.boards.register_read import read_register
from mendel.core.config import KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from mendel.crawl.boards.board import Board
from mendel.crawl.boards.register import boards_for_keys, load_registry
from mirror.scale import ScaleBoards, ico_with_check_digit
from mirror.server import MirrorThread

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
BLESNO = {p.read_bytes() for p in (SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf")}
LISTED = ["html:kadan-js", "html:kadan-html", "api:blesno"]


def get(base_url: str, host: str, path: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(base_url + path, headers={"Host": host})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_register_and_partition_keys(mirror, monkeypatch):
    monkeypatch.delenv("MENDEL_HTML_BOARDS", raising=False)
    demo = Settings(profile="demo", mirror_url=mirror.base_url)
    keys = [b.key for b in read_register(demo)]
    assert len(keys) == 186 + len(LISTED) and keys[-3:] == LISTED and KADAN_FEED_URL in keys
    boards, unknown = boards_for_keys([KADAN_FEED_URL, "html:kadan-js", "api:blesno", "html:gone", "what"], demo)
    assert [b.key for b in boards] == [KADAN_FEED_URL, "html:kadan-js", "api:blesno"]
    assert unknown == ["html:gone", "what"]
    assert boards[1].rules["ready"] == "#deska[data-stav]"
    # Production: boards on names reserved for tests (the mirror's made-up hosts) are never part of the register.
    catalogue = [
        Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL),
        Board(key="x", kind="ofn", url="http://x.test/"),
    ]
    assert [b.key for b in load_registry(Settings(profile="production"), catalogue)] == [KADAN_FEED_URL]


def test_scale_mode_serves_1500_boards_on_their_own_hosts():
    with MirrorThread(SAMPLE_CORPUS, scale=1500) as scaled:
        settings = Settings(
            profile="demo", mirror_url=scaled.base_url, html_boards=f"{scaled.base_url}/mirror/scale/html-boards.json"
        )
        boards = read_register(settings)
        ofn = [b for b in boards if b.kind == "ofn"]
        js = [b for b in boards if b.javascript]
        assert len(boards) == 1500 and len({b.host for b in boards}) == 1500
        assert len(ofn) + len(js) == 1500 and 0.08 <= len(js) / len(boards) <= 0.12
        assert all(b.on_reserved_name for b in boards)

        scale = scaled.server.scale
        rng = random.Random(7)
        real_titles = {n["název"]["cs"] for n in KADAN["informace"]}
        real_refs = {n.get("číslo_jednací") for n in KADAN["informace"]}
        real_posted = {n["vyvěšení"]["datum"] for n in KADAN["informace"]}
        notice_keys = set().union(*(n.keys() for n in KADAN["informace"]))
        checked_files = 0
        for board in rng.sample(ofn, 12):
            status, ctype, body = get(scaled.base_url, board.host, "/uredni-deska.jsonld")
            feed = json.loads(body)
            assert status == 200 and ctype == "application/ld+json"
            assert set(feed) == set(KADAN) and feed["@context"] == KADAN["@context"] and feed["typ"] == KADAN["typ"]
            assert len(feed["provozovatel"]["ičo"]) == 8
            for notice in feed["informace"]:
                assert set(notice) <= notice_keys and notice["iri"].startswith(f"http://{board.host}/")
                assert notice["název"]["cs"] in real_titles and notice.get("číslo_jednací") in real_refs
                assert notice["vyvěšení"]["datum"] in real_posted
                for document in notice["dokument"]:
                    path = urllib.parse.urlsplit(document["url"]).path
                    status, ctype, pdf = get(scaled.base_url, board.host, path)
                    assert status == 200 and ctype == "application/pdf" and pdf in BLESNO  # bytes unchanged
                    checked_files += 1
            # A board is its own site: its neighbour's feed is not served on its host.
            assert get(scaled.base_url, board.host, "/uredni-deska/")[0] == 404
        assert checked_files > 20

        board = js[0]
        status, _, page = get(scaled.base_url, board.host, "/uredni-deska/")
        notices, _ = scale.content(scale.by_host[board.host].index)
        assert status == 200 and b"<script>" in page
        assert all(n["název"]["cs"].encode() not in page for n in notices)  # only a browser sees the notices
        api = json.loads(get(scaled.base_url, board.host, "/uredni-deska/api/informace.json")[2])
        assert [i["nazev"] for i in api["informace"]] == [n["název"]["cs"] for n in notices]
        assert get(scaled.base_url, board.host, "/uredni-deska.jsonld")[0] == 404  # no OFN feed on a JS board

    again = ScaleBoards(SAMPLE_CORPUS, 1500)
    assert again.feed(again.boards[41]) == scale.feed(scale.boards[41])  # deterministic
    assert ico_with_check_digit(26191) == "00261912"  # Kadaň's real IČO, check digit included
