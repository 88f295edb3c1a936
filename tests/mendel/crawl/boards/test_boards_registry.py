"""The board register: the mirror's NKOD catalogue (SPARQL over DCAT records built from the OFN template: the real
Kadaň, Hranice, Karviná, Zlínský kraj and 182 MVČR boards), the maintained list (HTML boards, Blešno's site API),
the scale-mode mirror's 1,500 boards, and the HTML rules' pure helpers."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.parse
import urllib.request

import pytest
from parsel import Selector

from crawlers.mirror_hosts import fetch_url
from crawlers.spiders.boards import html_notice, html_notice_id
from mendel.core.config import HTML_BOARDS_FILE, KADAN_FEED_URL, SAMPLE_CORPUS, Settings
from mendel.crawl.boards.register import (
    OFN_BOARDS,
    Board,
    RegistryError,
    boards_for_keys,
    boards_from_bindings,
    fetch_nkod_boards,
    html_boards_from,
    load_html_boards,
    load_registry,
    nkod_query,
)
from mirror.nkod import parse_query
from mirror.scale import ScaleBoards, ico_with_check_digit
from mirror.server import MirrorThread

KADAN = json.loads((SAMPLE_CORPUS / "municipal" / "kadan_uredni_deska.json").read_text(encoding="utf-8"))
BLESNO = {p.read_bytes() for p in (SAMPLE_CORPUS / "municipal" / "blesno").glob("*/*.pdf")}
MVCR = json.loads((SAMPLE_CORPUS / "municipal" / "boards" / "mvcr_182_boards.json").read_text(encoding="utf-8"))
EXPORTS = {
    "http://hranice.mirror.test/uredni-deska.jsonld": "hranice_ofn.jsonld",
    "http://karvina.mirror.test/opendata.json": "karvina_deska.json",
    "http://karvina.mirror.test/uredni-deska.xml": "karvina_deska.xml",
    "http://kr-zlinsky.mirror.test/uredni-deska.csv": "zlinsky_kraj_deska.csv",
}
KADAN_DATASET = "https://data.gov.cz/zdroj/datové-sady/00261912/uredni-deska"
LISTED = ["html:kadan-js", "html:kadan-html", "api:blesno"]


def sparql(base_url: str, query: str, accept: str = "application/sparql-results+json") -> tuple[int, str, str]:
    url = f"{base_url}/sparql?{urllib.parse.urlencode({'query': query})}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept})) as response:
            return response.status, response.headers["Content-Type"], response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode("utf-8")


def get(base_url: str, host: str, path: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(base_url + path, headers={"Host": host})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


# ---------------------------------------------------------------- NKOD on the mirror


def test_nkod_lists_every_real_board_the_mirror_serves(mirror):
    status, ctype, body = sparql(mirror.base_url, nkod_query())
    assert status == 200 and ctype == "application/sparql-results+json"
    result = json.loads(body)
    assert result["head"]["vars"] == [
        "dataset",
        "publisher",
        "publisherName",
        "downloadURL",
        "format",
        "spatial",
        "page",
    ]
    kadan = [r for r in result["results"]["bindings"] if r["downloadURL"]["value"] == KADAN_FEED_URL]
    assert {r["publisherName"]["value"] for r in kadan} == {"Město Kadaň"}
    assert {r["format"]["value"].rsplit("/", 1)[-1] for r in kadan} == {"JSON_LD"}
    boards = {b.key: b for b in fetch_nkod_boards(mirror.base_url + "/sparql", page_size=50)}  # several pages
    assert len(boards) == 182 + 4  # one board a dataset: Karviná's JSON, not its XML as well
    kadan_board = boards[KADAN_FEED_URL]
    assert (kadan_board.kind, kadan_board.publisher_ico, kadan_board.format) == ("ofn", "00261912", "JSON_LD")
    assert {k: (b.kind, b.format) for k, b in boards.items() if b.kind == "export"} == {
        "http://karvina.mirror.test/opendata.json": ("export", "JSON"),
        "http://kr-zlinsky.mirror.test/uredni-deska.csv": ("export", "CSV"),
    }
    # The 182 MVČR feeds on their real API URLs, each served as the feed of that URL (publisher from the feed).
    for feed in MVCR:
        assert boards[feed["iri"]].publisher_ico == feed["provozovatel"]["ičo"] and boards[feed["iri"]].name is None
    for feed in random.Random(3).sample(MVCR, 5):
        rebased = urllib.parse.urlsplit(fetch_url(feed["iri"], mirror.base_url))
        status, ctype, served = get(mirror.base_url, "127.0.0.1", rebased.path)
        assert status == 200 and ctype == "application/ld+json" and json.loads(served) == feed
    # Files whose download URL is not known: on mirror hosts of their own, bytes unchanged.
    for url, name in EXPORTS.items():
        parts = urllib.parse.urlsplit(url)
        status, _, served = get(mirror.base_url, parts.hostname, parts.path)
        assert status == 200 and served == (SAMPLE_CORPUS / "municipal" / "boards" / name).read_bytes()


def test_one_board_a_dataset_its_preferred_distribution():
    def row(dataset, url, file_type=None, spatial=None):
        out = {
            "dataset": {"value": dataset},
            "downloadURL": {"value": url},
            "publisher": {"value": "https://rpp-opendata.egon.gov.cz/odrpp/zdroj/orgán-veřejné-moci/00261912"},
        }
        if file_type:
            out["format"] = {"value": f"http://publications.europa.eu/resource/authority/file-type/{file_type}"}
        if spatial:
            out["spatial"] = {"value": spatial}
        return out

    boards = boards_from_bindings(
        [
            row("d1", "http://a/x.xml", "XML"),
            row("d1", "http://a/x.jsonld", "JSON_LD", "https://linked.cuzk.cz/resource/ruian/obec/563102"),
            row("d1", "http://a/x.jsonld", "JSON_LD", "https://linked.cuzk.cz/resource/ruian/stat/1"),
            row("d2", "http://b/x.csv", "CSV"),
            row("d3", "http://c/feed"),
        ]
    )
    assert [(b.key, b.kind, b.format, b.obec_kod, b.publisher_ico) for b in boards] == [
        ("http://a/x.jsonld", "ofn", "JSON_LD", "563102", "00261912"),
        ("http://b/x.csv", "export", "CSV", None, "00261912"),
        ("http://c/feed", "ofn", None, None, "00261912"),
    ]


def test_nkod_record_has_the_templates_dcat_shape(mirror):
    prefixes = "PREFIX dcat: <http://www.w3.org/ns/dcat#>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n"
    query = prefixes + (
        f"SELECT ?p ?o WHERE {{ <{KADAN_DATASET}> a dcat:Dataset ; dcat:distribution ?dist . ?dist ?p ?o }} ORDER BY ?p"
    )
    rows = json.loads(sparql(mirror.base_url, query)[2])["results"]["bindings"]
    distribution = {(r["p"]["value"].rsplit("/", 1)[-1], r["o"]["value"]) for r in rows}
    assert ("dcat#downloadURL", KADAN_FEED_URL) in distribution
    assert ("format", "http://publications.europa.eu/resource/authority/file-type/JSON_LD") in distribution
    assert ("conformsTo", "https://ofn.gov.cz/úřední-desky/2021-07-20/schémata/úřední-deska.json") in distribution
    query = (
        prefixes + "SELECT DISTINCT ?spec WHERE { ?d a dcat:Dataset ; dcterms:conformsTo ?spec } ORDER BY DESC(?spec)"
    )
    specs = [r["spec"]["value"] for r in json.loads(sparql(mirror.base_url, query)[2])["results"]["bindings"]]
    assert specs == [OFN_BOARDS, "https://ofn.gov.cz/úřední-desky/"]
    # English titles are there too, and a language filter picks them.
    query = prefixes + 'SELECT DISTINCT ?t WHERE { ?d dcterms:title ?t FILTER(langMatches(LANG(?t), "en")) }'
    assert [r["t"]["value"] for r in json.loads(sparql(mirror.base_url, query)[2])["results"]["bindings"]] == [
        "Official bulletin board"
    ]
    # Karviná's XML export is a second distribution of its dataset, without the OFN's JSON schema.
    query = prefixes + (
        "SELECT ?url ?schema WHERE { ?d dcat:distribution ?dist . ?dist dcat:downloadURL ?url ;"
        " dcterms:format <http://publications.europa.eu/resource/authority/file-type/XML> ."
        " OPTIONAL { ?dist dcterms:conformsTo ?schema } }"
    )
    rows = json.loads(sparql(mirror.base_url, query)[2])["results"]["bindings"]
    assert rows == [{"url": {"type": "uri", "value": "http://karvina.mirror.test/uredni-deska.xml"}}]


def test_unsupported_sparql_is_a_clear_400_and_esbirka_queries_pass_through(mirror):
    status, _, body = sparql(
        mirror.base_url, "PREFIX dcat: <http://www.w3.org/ns/dcat#>\nSELECT ?d WHERE { ?d a dcat:Dataset } GROUP BY ?d"
    )
    assert status == 400 and "not supported by the mirror" in body
    with pytest.raises(ValueError, match="UNION"):
        parse_query("PREFIX dcat: <http://www.w3.org/ns/dcat#> SELECT * WHERE { { ?a ?b ?c } UNION { ?a ?b ?c } }")
    # No DCAT in the query: e-Sbírka's open-data endpoint answers on the same path.
    status, _, body = sparql(
        mirror.base_url,
        "SELECT ?s WHERE { ?s ?p <https://opendata.eselpoint.gov.cz/esel-esb/eli/cz/sb/2019/110> }",
        accept="application/json",
    )
    assert status == 200 and json.loads(body)["results"]["bindings"]


# ---------------------------------------------------------------- the maintained HTML list


def test_maintained_html_list_and_its_validation():
    boards = {b.key: b for b in load_html_boards(str(HTML_BOARDS_FILE))}
    assert list(boards) == LISTED
    assert boards["html:kadan-js"].javascript and not boards["html:kadan-html"].javascript
    assert all(b.on_mirror for b in boards.values())
    assert {b.publisher_ico for b in boards.values() if b.kind == "html"} == {"00261912"}
    assert (boards["api:blesno"].kind, boards["api:blesno"].rules) == ("article_api", {})
    assert boards["html:kadan-html"].rules["posted"].startswith("xpath:")
    with pytest.raises(RegistryError, match="board #0 \\(x\\): rules missing \\['row'\\]"):
        html_boards_from({"boards": [{"id": "x", "url": "http://x.cz/", "rules": {"board": "a", "title": "b"}}]})
    with pytest.raises(RegistryError, match="unknown rules \\['rows'\\]"):
        html_boards_from(
            {
                "boards": [
                    {"id": "x", "url": "http://x.cz/", "rules": {"board": "a", "row": "r", "title": "b", "rows": "c"}}
                ]
            }
        )
    with pytest.raises(RegistryError, match="unknown kind 'rss'"):
        html_boards_from({"boards": [{"id": "x", "url": "http://x.cz/", "kind": "rss"}]})
    with pytest.raises(RegistryError, match="an article_api site has no extraction rules"):
        html_boards_from(
            {"boards": [{"id": "x", "url": "http://x.cz/", "kind": "article_api", "rules": {"board": "a"}}]}
        )


def test_register_and_partition_keys(mirror, monkeypatch):
    monkeypatch.delenv("MENDEL_HTML_BOARDS", raising=False)
    demo = Settings(profile="demo", mirror_url=mirror.base_url)
    keys = [b.key for b in load_registry(demo)]
    assert len(keys) == 186 + len(LISTED) and keys[-3:] == LISTED and KADAN_FEED_URL in keys
    boards, unknown = boards_for_keys([KADAN_FEED_URL, "html:kadan-js", "api:blesno", "html:gone", "what"], demo)
    assert [b.key for b in boards] == [KADAN_FEED_URL, "html:kadan-js", "api:blesno"]
    assert unknown == ["html:gone", "what"]
    assert boards[1].rules["ready"] == "#deska[data-stav]"
    # Production: the mirror's made-up hosts are never part of the register.
    production = Settings(profile="production")
    monkeypatch.setattr(
        "mendel.crawl.boards.register.fetch_nkod_boards",
        lambda url: (
            [Board(key=KADAN_FEED_URL, kind="ofn", url=KADAN_FEED_URL)] if url == "https://data.gov.cz/sparql" else []
        ),
    )
    assert [b.key for b in load_registry(production)] == [KADAN_FEED_URL]


# ---------------------------------------------------------------- scale mode


def test_scale_mode_serves_1500_boards_on_their_own_hosts():
    with MirrorThread(SAMPLE_CORPUS, scale=1500) as scaled:
        settings = Settings(
            profile="demo", mirror_url=scaled.base_url, html_boards=f"{scaled.base_url}/mirror/scale/html-boards.json"
        )
        boards = load_registry(settings)
        ofn = [b for b in boards if b.kind == "ofn"]
        js = [b for b in boards if b.javascript]
        assert len(boards) == 1500 and len({b.host for b in boards}) == 1500
        assert len(ofn) + len(js) == 1500 and 0.08 <= len(js) / len(boards) <= 0.12
        assert all(b.on_mirror for b in boards)

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


# ---------------------------------------------------------------- HTML rules and mirror URLs


def test_html_notice_from_rules_and_dates():
    rules = next(b for b in load_html_boards(str(HTML_BOARDS_FILE)) if b.key == "html:kadan-html").rules
    row = Selector(
        text="""<article class="oznameni"><h2><a href="/n/1">Oznámení  o
        veřejné vyhlášce</a></h2><dl><dt>Vyvěšeno</dt><dd>3. 2. 2025</dd><dt>Relevantní do</dt>
        <dd>nespecifikováno</dd><dt>Číslo jednací</dt><dd>MKA/1/2025</dd></dl>
        <ul class="prilohy"><li><a href="/f/1.pdf">příloha 1</a></li></ul></article>"""
    ).css("article")[0]
    notice = html_notice(row, rules, "http://kadan-html.mirror.test/deska/")
    assert notice == {
        "typ": ["Digitální objekt", "Informace na úřední desce"],
        "url": "http://kadan-html.mirror.test/n/1",
        "název": {"cs": "Oznámení o veřejné vyhlášce"},
        "vyvěšení": {"typ": "Časový okamžik", "datum": "2025-02-03"},
        "číslo_jednací": "MKA/1/2025",
        "dokument": [
            {"typ": "Digitální objekt", "název": {"cs": "příloha 1"}, "url": "http://kadan-html.mirror.test/f/1.pdf"}
        ],
    }
    board = Board(key="html:x", kind="html", url="http://x.cz/deska/")
    assert html_notice_id(board, notice) == "http://kadan-html.mirror.test/n/1"
    without_page = {k: v for k, v in notice.items() if k != "url"}
    assert html_notice_id(board, without_page).startswith("http://x.cz/deska/#")
    assert html_notice_id(board, without_page) == html_notice_id(board, dict(without_page))
    assert html_notice(Selector(text="<article></article>"), rules, "http://x.cz/") is None


def test_fetch_url_keeps_mirror_host_names():
    origin = "http://127.0.0.1:8765"
    assert fetch_url("http://deska-0001.mirror.test/filemanager/files/1.pdf", origin) == (
        "http://deska-0001.mirror.test:8765/filemanager/files/1.pdf"
    )
    assert fetch_url(KADAN_FEED_URL, origin) == "http://127.0.0.1:8765/1ad1f16beff952576ae7ddd76a91e163"
    assert fetch_url(KADAN_FEED_URL, None) == KADAN_FEED_URL
