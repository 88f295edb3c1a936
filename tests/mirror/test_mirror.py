"""The local mirror serves the sample corpus under the real sites' URL layout."""

from __future__ import annotations

import hashlib
import html
import json
import re
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from urllib.parse import quote

import pytest
import requests

from mirror import esbirka
from mirror.server import MirrorThread, default_corpus_root
from tests.support import REPO_ROOT

CORPUS = default_corpus_root()
API = "/esel-esbir-daver"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def mirror():
    with MirrorThread(CORPUS) as m:
        yield m


@pytest.fixture(scope="module")
def http():
    with requests.Session() as session:
        yield session


def by_month(http, mirror, year: int) -> dict:
    r = http.post(f"{mirror.base_url}{API}/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich", json=year)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    return r.json()


def listed(payload: dict) -> list[dict]:
    return [
        info
        for month in payload["dokumentySbirkyVMesici"]
        for sada in month["sbirkyDokumentuSbirky"]
        for info in sada["dokumentySbirkyRejstrikInfo"]
    ]


def stale_path(stale_url: str) -> str:
    return quote(stale_url, safe="")


# ---------------------------------------------------------------- e-Sbírka REST API


def test_default_corpus_root_is_the_bundled_corpus():
    assert CORPUS == REPO_ROOT / "sample_corpus"
    assert (CORPUS / "MANIFEST.md").exists()


def test_server_starts_quickly():
    started = time.perf_counter()
    with MirrorThread(CORPUS) as m:
        assert m.base_url.startswith("http://127.0.0.1:")
    assert time.perf_counter() - started < 1.0


def test_listing_2024_has_the_four_acts_in_april_and_one_consolidated_act_in_january(http, mirror):
    payload = by_month(http, mirror, 2024)
    infos = listed(payload)
    # 30/2024 is an informativní-znění DOCX (no cover sheet: its adoption date, 24 January, stands in)
    assert [i["kodDokumentuSbirky"] for i in infos] == [
        "30/2024 Sb.",
        "87/2024 Sb.",
        "88/2024 Sb.",
        "89/2024 Sb.",
        "90/2024 Sb.",
    ]
    assert [m["mesic"] for m in payload["dokumentySbirkyVMesici"]] == [1, 4]
    sada = payload["dokumentySbirkyVMesici"][1]["sbirkyDokumentuSbirky"][0]
    assert sada["sadaDokumentuKod"] == "sb"
    first = infos[1]
    assert first["staleUrl"] == "/sb/2024/87"
    assert first["kodDokumentuSbirky"] == "87/2024 Sb."
    assert first["datum"] == "2024-04-16"  # "Zpřístupněna dne 16. dubna 2024" on the cover sheet
    assert first["nazev"].startswith("Ústavní zákon, kterým se mění ústavní zákon č. 1/1993 Sb.")
    assert infos[4]["nazev"] == "Zákon o zbraních a střelivu"


def test_listing_2025_is_ordered_by_month_and_only_that_year(http, mirror):
    payload = by_month(http, mirror, 2025)
    months = [m["mesic"] for m in payload["dokumentySbirkyVMesici"]]
    assert months == sorted(months) and len(months) <= 12
    infos = listed(payload)
    assert len(infos) == 13  # 157/2025 of the third collection with the twelve
    assert all(i["staleUrl"].startswith("/sb/2025/") for i in infos)
    bydleni = next(i for i in infos if i["staleUrl"] == "/sb/2025/175")
    assert bydleni["nazev"] == "Zákon o poskytování některých opatření v podpoře bydlení (zákon o podpoře bydlení)"
    assert bydleni["datum"] == "2025-06-16"
    assert by_month(http, mirror, 1999) == {"dokumentySbirkyVMesici": []}


def test_listing_rejects_a_body_that_is_not_a_year(http, mirror):
    url = f"{mirror.base_url}{API}/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich"
    r = http.post(url, data=b'{"rok": 2024}', headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json()["chyby"][0]["kod"] == "CHYBA_VSTUPU"
    assert http.get(url).status_code == 405


def test_years_register(http, mirror):
    r = http.post(f"{mirror.base_url}{API}/chronologicke-rejstriky/roky", json={})
    years = {y["rok"]: y["deaktivovano"] for y in r.json()["seznam"]}
    assert years[2024] is False and years[2025] is False and years[1993] is False
    assert years[2000] is True and min(years) == 1918


def test_detail_shape(http, mirror):
    r = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/2024/87')}")
    assert r.status_code == 200
    d = r.json()
    assert d["staleUrl"] == "/sb/2024/87"
    assert d["eli"] == "/eli/cz/sb/2024/87"
    assert d["zkracenaCitace"] == "87/2024 Sb."
    assert d["uplnaCitace"].startswith("Ústavní zákon č. 87/2024 Sb., kterým se mění ústavní zákon č. 1/1993 Sb.")
    assert d["uplnaCitace"].endswith("ústavního zákona č. 300/2000 Sb.")
    assert d["nazev"].startswith("Ústavní zákon, kterým se mění")
    assert d["datumCasVyhlaseni"] == "2024-04-16T00:00:00+02:00"
    assert d["typZneni"] == "VYHLASENE"
    assert d["datumUcinnostiZneniOd"] == "2026-01-01"  # "Tento ústavní zákon nabývá účinnosti dnem 1. ledna 2026."
    assert "cisloCastky" not in d  # acts since 2024 are not published in částky


def test_detail_effective_date_relative_to_announcement(http, mirror):
    d = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/2025/120')}").json()
    # announced 29. 4. 2025; "prvním dnem druhého kalendářního měsíce následujícího po jeho vyhlášení"
    assert d["datumUcinnostiZneniOd"] == "2025-06-01"


def test_detail_accepts_unencoded_version_and_eli_forms(http, mirror):
    for form in ("/sb/2024/88", "%2Fsb%2F2024%2F88%2F2024-04-16", "%2Feli%2Fcz%2Fsb%2F2024%2F88"):
        r = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{form}")
        assert r.status_code == 200, form
        assert r.json()["zkracenaCitace"] == "88/2024 Sb."
    # A date before the act took effect names the wording that takes effect next (its only one, from 1. 1. 2026).
    dated = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/%2Fsb%2F2024%2F88%2F2024-04-16").json()
    assert dated["staleUrl"] == "/sb/2024/88/2026-01-01" and dated["eli"] == "/eli/cz/sb/2024/88/2026-01-01"


def test_download_links_shape(http, mirror):
    r = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/2024/90')}/odkazy-ke-stazeni")
    assert r.status_code == 200
    overene = r.json()["overeneZneni"]
    assert overene["kodDokumentuSbirky"] == "90/2024 Sb."
    assert overene["rokCastky"] == 2024 and overene["sbirkaKod"] == "sb"
    link = overene["odkazPdf"]
    pdf = CORPUS / "esbirka" / "pdf" / "90-2024.pdf"
    assert link["dokumentId"] == 202400090
    assert link["nazevDokumentu"] == "Sb_2024_90_PZZ.pdf"
    assert link["velikost"] == (pdf.stat().st_size + 1023) // 1024
    assert link["pocetStran"] == 87
    assert link["nazev"] == "Zákon o zbraních a střelivu"


def test_every_listed_pdf_downloads_byte_for_byte(http, mirror):
    downloaded = 0
    for year in (2024, 2025):
        for info in listed(by_month(http, mirror, year)):
            links = http.get(
                f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path(info['staleUrl'])}/odkazy-ke-stazeni"
            ).json()
            if "overeneZneni" not in links:  # 30/2024: an informativní znění only (its text: the fragments)
                assert info["staleUrl"] == "/sb/2024/30" and links == {}
                continue
            link = links["overeneZneni"]["odkazPdf"]
            url = (
                f"{mirror.base_url}{API}/souborove-dokumenty/{link['dokumentId']}/ORIGINAL/STAHNI/"
                f"{quote(link['nazevDokumentu'])}"
            )
            r = http.get(url)
            assert r.status_code == 200
            assert r.headers["Content-Type"] == "application/pdf"
            assert r.headers["Content-Disposition"] == f"attachment;filename={link['nazevDokumentu']}"
            _, year_, number = info["staleUrl"].rsplit("/", 2)
            on_disk = CORPUS / "esbirka" / "pdf" / f"{number}-{year_}.pdf"
            assert hashlib.sha256(r.content).hexdigest() == sha256_file(on_disk)
            assert int(r.headers["Content-Length"]) == on_disk.stat().st_size
            assert r.headers["ETag"] == f'"{sha256_file(on_disk)}"'
            assert "Last-Modified" in r.headers
            downloaded += 1
    assert downloaded == 17  # 157/2025 of the third collection with the sixteen


def test_zobraz_is_inline_and_head_has_no_body(http, mirror):
    url = f"{mirror.base_url}{API}/souborove-dokumenty/202500175/ORIGINAL/ZOBRAZ/Sb_2025_175_PZZ.pdf"
    r = http.get(url)
    assert r.headers["Content-Disposition"] == "inline;filename=Sb_2025_175_PZZ.pdf"
    head = http.head(url)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["Content-Length"] == r.headers["Content-Length"]


def test_content_kind_original_or_the_format_name(http, mirror):
    base = f"{mirror.base_url}{API}/souborove-dokumenty/202400088"
    assert http.get(f"{base}/ORIGINAL/STAHNI/a.pdf").status_code == 200
    assert http.get(f"{base}/PDF/STAHNI/a.pdf").status_code == 200
    assert http.get(f"{base}/DOCX/STAHNI/a.pdf").status_code == 404
    assert http.get(f"{base}/ORIGINAL/SMAZ/a.pdf").status_code == 400


def test_conditional_requests_give_304(http, mirror):
    url = f"{mirror.base_url}{API}/souborove-dokumenty/202400087/ORIGINAL/STAHNI/Sb_2024_87_PZZ.pdf"
    first = http.get(url)
    etag, last_modified = first.headers["ETag"], first.headers["Last-Modified"]
    again = http.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag
    assert http.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
    assert http.get(url, headers={"If-Modified-Since": last_modified}).status_code == 304
    assert http.get(url, headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}).status_code == 200
    detail = f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/2024/87')}"
    tag = http.get(detail).headers["ETag"]
    assert http.get(detail, headers={"If-None-Match": tag}).status_code == 304


def test_unknown_act_and_paths_are_404_chyby(http, mirror):
    for path in (
        f"{API}/dokumenty-sbirky/{stale_path('/sb/2024/9999')}",
        f"{API}/dokumenty-sbirky/{stale_path('/sb/2024/9999')}/odkazy-ke-stazeni",
        f"{API}/souborove-dokumenty/123/ORIGINAL/STAHNI/x.pdf",
        f"{API}/souborove-dokumenty/202400087/NAHLED/STAHNI/x.pdf",
        f"{API}/neexistuje",
    ):
        r = http.get(mirror.base_url + path)
        assert r.status_code == 404, path
        assert r.headers["Content-Type"] == "application/json"
        error = r.json()["chyby"][0]
        assert error["kod"] in ("DOKUMENT_NENALEZEN", "NENALEZENO")
        assert error["popis"] and error["datumCasChyby"] and len(error["correlationId"]) == 36
    plain = http.get(mirror.base_url + "/no/such/page")
    assert plain.status_code == 404 and plain.headers["Content-Type"].startswith("text/plain")


def test_sbirky_is_the_real_response(http, mirror):
    r = http.get(f"{mirror.base_url}{API}/sbirky")
    assert r.content == (CORPUS / "esbirka" / "api" / "response_sbirky.json").read_bytes()
    assert [s["kod"] for s in r.json()["seznam"]] == ["sb", "sm", "ul0", "ul1", "ul2", "vcs"]


def test_robots_txt_allows_all(http, mirror):
    r = http.get(mirror.base_url + "/robots.txt")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    lines = r.text.splitlines()
    assert lines[0].startswith("#")
    assert "User-agent: *" in lines and "Allow: /" in lines and not any(ln.startswith("Disallow: /") for ln in lines)


# ---------------------------------------------------------------- DOCX (informativní znění)


def test_docx_acts_are_listed_and_served(http, mirror):
    infos = listed(by_month(http, mirror, 1993))
    assert {i["staleUrl"] for i in infos} == {"/sb/1993/1", "/sb/1993/2", "/sb/1993/4", "/sb/1993/29"}
    assert {i["staleUrl"] for i in listed(by_month(http, mirror, 2004))} == {
        "/sb/2004/76",
        "/sb/2004/633",
        "/sb/2004/499",
    }
    links = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/2004/76')}/odkazy-ke-stazeni").json()
    assert links == {}  # the definition has no slot for a consolidated file: its text is the fragments
    # the file itself stays where its id names it
    r = http.get(f"{mirror.base_url}{API}/souborove-dokumenty/{2004_00076 + 1_000_000_000}/ORIGINAL/STAHNI/x.docx")
    assert r.headers["Content-Type"] == esbirka.MIME["docx"]
    assert r.content == (CORPUS / "esbirka" / "docx" / "76_2004.docx").read_bytes()
    detail = http.get(f"{mirror.base_url}{API}/dokumenty-sbirky/{stale_path('/sb/1918/8')}").json()
    assert detail["nazev"] == "Zákon, jímž se zrušuje zabavení jmění pro činy velezrádné"
    assert detail["typZneni"] == "AKTUALNI"


# ---------------------------------------------------------------- open-data SPARQL


def sparql(http, mirror, query: str) -> requests.Response:
    return http.get(mirror.base_url + "/sparql", params={"query": query}, headers={"Accept": "application/json"})


def test_sparql_serves_the_real_results(http, mirror):
    api = CORPUS / "esbirka" / "api"
    vocab = "https://slovník.gov.cz/legislativní/sbírka/"
    meta = sparql(
        http,
        mirror,
        f"SELECT ?act ?citation ?year ?number ?ver WHERE {{ "
        f"BIND(<https://opendata.eselpoint.gov.cz/esel-esb/eli/cz/sb/2019/110> AS ?act) "
        f"?act <{vocab}citace-právního-aktu> ?citation . }} LIMIT 1",
    )
    assert meta.status_code == 200 and meta.headers["Content-Type"] == "application/json"
    assert meta.content == (api / "sparql_act_2019_110_meta.json").read_bytes()
    fragments = sparql(
        http,
        mirror,
        "SELECT ?text ?order WHERE { "
        "<https://opendata.eselpoint.gov.cz/esel-esb/eli/cz/sb/2019/110/2025-08-01> "
        f"<{vocab}má-fragment-znění> ?frag . }} ORDER BY ?order",
    )
    assert fragments.content == (api / "sparql_act_2019_110_fragments.json").read_bytes()
    posted = http.post(mirror.base_url + "/sparql", data={"query": "SELECT ?text WHERE { <x/sb/2019/110> ?p ?text }"})
    assert posted.content == fragments.content


def test_sparql_unknown_query_is_an_empty_result_set(http, mirror):
    r = sparql(http, mirror, "SELECT DISTINCT ?act (STR(?c) AS ?citation) WHERE { ?act ?p ?c } LIMIT 5")
    assert r.status_code == 200
    assert r.json() == {"head": {"vars": ["act", "citation"]}, "results": {"bindings": []}}
    assert http.get(mirror.base_url + "/sparql").status_code == 400


# ---------------------------------------------------------------- other sources


def test_kadan_feed_is_served_unchanged(http, mirror):
    feed = (CORPUS / "municipal" / "kadan_uredni_deska.json").read_bytes()
    for path in ("/1ad1f16beff952576ae7ddd76a91e163", "/kadan/uredni-deska.json"):
        r = http.get(mirror.base_url + path)
        assert r.status_code == 200 and r.content == feed
        assert r.headers["Content-Type"] == "application/json"
    attachment = json.loads(feed)["informace"][0]["dokument"][0]["url"]
    assert attachment.startswith("https://www.mesto-kadan.cz/filemanager/files/")
    assert http.get(mirror.base_url + attachment.split("mesto-kadan.cz", 1)[1]).status_code == 404


def test_blesno_pdfs_under_their_real_paths(http, mirror):
    blesno = CORPUS / "municipal" / "blesno"
    files = sorted(blesno.glob("*/*.pdf"))
    assert len(files) == 19
    index = http.get(mirror.base_url + "/assets/articles/").text
    hrefs = re.findall(r'href="([^"]+)"', index)
    assert len(hrefs) == 19
    for pdf in files:
        slug, name = pdf.name.split("__", 1)
        r = http.get(f"{mirror.base_url}/assets/articles/{slug}/{name}")
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/pdf"
        assert r.content == pdf.read_bytes()
    assert http.get(mirror.base_url + "/assets/articles/kanalizace/neni.pdf").status_code == 404


def test_blesno_rest_backend_lists_articles_and_their_pdfs(http, mirror):
    files = sorted((CORPUS / "municipal" / "blesno").glob("*/*.pdf"))
    by_article: dict[str, set[str]] = {}
    for pdf in files:
        slug, name = pdf.name.split("__", 1)
        by_article.setdefault(slug, set()).add(name)
    r = http.get(mirror.base_url + "/articles/ids?prefix=")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.json() == sorted(by_article)
    assert http.get(mirror.base_url + "/articles/ids?prefix=vr-").json() == sorted(
        a for a in by_article if a.startswith("vr-")
    )
    assert http.get(mirror.base_url + "/articles/ids").status_code == 404  # Spring: no `prefix` → article "ids"
    host = mirror.base_url.split("://", 1)[1]
    for slug, names in by_article.items():
        refs = http.get(f"{mirror.base_url}/articles/{slug}/assets?type=references").json()
        assert {ref["name"] for ref in refs} == names
        for ref in refs:
            assert ref["url"] == f"http://{host}/articles/{slug}/assets/{ref['name']}"
            pdf = http.get(ref["url"])
            assert pdf.status_code == 200 and pdf.headers["Content-Type"] == "application/pdf"
            assert (
                pdf.content
                == (CORPUS / "municipal" / "blesno")
                .joinpath(next(p for p in files if p.name == f"{slug}__{ref['name']}"))
                .read_bytes()
            )
    assert http.get(mirror.base_url + "/articles/neni/assets?type=references").json() == []
    assert http.get(mirror.base_url + "/articles/kanalizace/assets").status_code == 404
    assert http.get(mirror.base_url + "/articles/kanalizace/assets/neni.pdf").status_code == 404
    assert http.get(mirror.base_url + "/articles/kanalizace/assets/Kanalizacni-Rad.pdf").status_code == 404


def test_ruian_vfr_files_and_link_list(http, mirror):
    files = {
        "20140331_OB_564729_UKSH.xml.gz": CORPUS / "cuzk" / "ruian" / "OB_UKSH.xml.gz",
        "20140706_ST_ZKSH.xml.gz": CORPUS / "cuzk" / "ruian" / "ST_ZKSH.xml.gz",
    }
    for name, path in files.items():
        r = http.get(f"{mirror.base_url}/vymenny_format/soucasna/{name}")
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-gzip"
        assert r.content == path.read_bytes() and r.headers["ETag"] == f'"{sha256_file(path)}"'
        again = http.get(
            f"{mirror.base_url}/vymenny_format/soucasna/{name}", headers={"If-None-Match": r.headers["ETag"]}
        )
        assert again.status_code == 304
    assert http.get(mirror.base_url + "/vymenny_format/soucasna/20140331_OB_1_UKSH.xml.gz").status_code == 404

    def links(query: str) -> list[str]:
        r = http.get(f"{mirror.base_url}/vdp/ruian/vymennyformat/seznamlinku?{query}")
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
        assert r.text == "" or r.text.endswith("\r\n")
        return r.text.split("\r\n")[:-1]

    real = "https://vdp.cuzk.gov.cz/vymenny_format/soucasna/"
    assert links("vf.pu=S&_vf.pu=on&vf.cr=U&vf.up=OB&vf.ds=K&vf.uo=A&search=Vyhledat") == [
        real + "20140331_OB_564729_UKSH.xml.gz"
    ]
    assert links("vf.cr=U&vf.up=OB&vf.ds=K&vf.uo=O&ob.kod=564729") == [real + "20140331_OB_564729_UKSH.xml.gz"]
    assert links("vf.cr=U&vf.up=OB&vf.ds=K&vf.uo=O&ob.kod=554782") == []
    assert links("vf.cr=Z&vf.up=ST&vf.ds=K") == [real + "20140706_ST_ZKSH.xml.gz"]
    assert links("vf.cr=U&vf.up=ST") == []
    assert links("") == [real + "20140706_ST_ZKSH.xml.gz", real + "20140331_OB_564729_UKSH.xml.gz"]


def test_robots_txt_can_disallow(tmp_path, monkeypatch):
    strict = "User-agent: *\nDisallow: /articles/\n"
    with MirrorThread(CORPUS, robots_txt=strict) as m:
        assert requests.get(m.base_url + "/robots.txt", timeout=5).text == strict
    robots_file = tmp_path / "robots.txt"
    robots_file.write_text("User-agent: MendelBot\nDisallow: /\n", encoding="utf-8")
    monkeypatch.setenv("MENDEL_MIRROR_ROBOTS_TXT", str(robots_file))
    with MirrorThread(CORPUS) as m:
        assert requests.get(m.base_url + "/robots.txt", timeout=5).text == "User-agent: MendelBot\nDisallow: /\n"
    monkeypatch.delenv("MENDEL_MIRROR_ROBOTS_TXT")
    with MirrorThread(CORPUS) as m:
        assert "Allow: /" in requests.get(m.base_url + "/robots.txt", timeout=5).text


def ns_records() -> dict[str, dict]:
    records = {}
    for path in sorted((CORPUS / "courts").glob("ns_decisions*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            records[record["url"]] = record
    return records


def ns_search(http, mirror, query: str, start: int = 1, count: int = 20) -> str:
    r = http.get(
        f"{mirror.base_url}/Judikatura/judikatura_ns.nsf/$$WebSearch1?SearchView&"
        f"Query={quote(query)}&SearchMax=1000&SearchOrder=4&Start={start}&Count={count}&pohled=1"
    )
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/html; charset=UTF-8"
    return r.text


def test_nsoud_search_lists_decisions_at_their_real_paths(http, mirror):
    records = ns_records()
    assert len(records) == 11  # 20 Nd 234/2026 is in both files
    page = ns_search(http, mirror, "[datum_predani_na_web]>=01/01/2025")
    assert 'id="tabl"' in page and "Výsledky 1 - 11 z 11" in page
    links = re.findall(r'<a class="odk" href="([^"]+)">([^<]+)</a>', page)
    assert {html.unescape(href) for href, _ in links} == {u.split("nsoud.cz", 1)[1] for u in records}
    by_case = ns_search(http, mirror, '[spzn1]=29 AND [spzn2]=nd AND "461/2024"')
    assert re.findall(r'class="odk"[^>]*>([^<]+)<', by_case) == ["29 Nd 461/2024"]
    assert "Nebyly nalezeny žádné výsledky" in ns_search(http, mirror, "[datum_predani_na_web]>=01/01/2030")
    fulltext = ns_search(http, mirror, "[ARozhodnutiRT]=((dovolání AND insolvenční*))")
    assert "29 ICdo 177/2024" in fulltext


def test_nsoud_search_pages(http, mirror):
    first = ns_search(http, mirror, "", start=1, count=5)
    total = int(re.search(r"Výsledky 1 - 5 z (\d+)", first).group(1))
    assert total >= 957  # every decision of the site: the 954 + 3 of the full set, and the earlier records
    next_href = html.unescape(re.search(r'<a class="dalsi" href="([^"]+)"', first).group(1))
    assert "Start=6" in next_href and "Count=5" in next_href
    second = http.get(mirror.base_url + next_href).text
    assert f"Výsledky 6 - 10 z {total}" in second
    assert not set(re.findall(r'class="odk"[^>]*>([^<]+)<', first)) & set(
        re.findall(r'class="odk"[^>]*>([^<]+)<', second)
    )


def test_nsoud_decision_page_carries_the_full_text(http, mirror):
    for url, record in ns_records().items():
        r = http.get(mirror.base_url + url.split("nsoud.cz", 1)[1])
        assert r.status_code == 200
        body = re.search(r'<font face="Times New Roman" size="3">(.*?)</font>', r.text, re.S).group(1)
        assert html.unescape(body) == record["full_text"]
        assert hashlib.sha256((url + "\n" + html.unescape(body)).encode()).hexdigest() == record["content_hash"]
        assert f'<td class="right-part">{record["ecli"]}</td>' in r.text
        assert f'<td class="right-part">{html.escape(record["case_number"])}</td>' in r.text
    missing = "/Judikatura/judikatura_ns.nsf/WebSearch/00000000000000000000000000000000?openDocument"
    assert http.get(mirror.base_url + missing).status_code == 404


# ---------------------------------------------------------------- server mechanics and the derived catalog


def test_request_log_records_method_path_status(mirror):
    with MirrorThread(CORPUS) as m, requests.Session() as s:
        s.get(m.base_url + "/robots.txt")
        s.get(m.base_url + "/missing")
        s.head(m.base_url + "/robots.txt")
        assert m.server.request_log == [
            ("GET", "/robots.txt", 200),
            ("GET", "/missing", 404),
            ("HEAD", "/robots.txt", 200),
        ]


def test_serve_forever_prints_the_base_url():
    # A default SIGTERM disposition for the server, as from a shell: an ignored SIGTERM is inherited across exec.
    proc = subprocess.Popen(
        [sys.executable, "-m", "mirror.server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),
    )
    try:
        base_url = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", base_url)
        assert requests.get(base_url + "/robots.txt", timeout=5).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)  # interpreter shutdown on a loaded 2-core machine
        proc.stdout.close()


def test_an_empty_corpus_serves_404s(tmp_path):
    with MirrorThread(tmp_path) as m, requests.Session() as s:
        assert s.get(m.base_url + "/robots.txt").status_code == 200
        assert s.get(m.base_url + API + "/sbirky").status_code == 404
        assert by_month(s, m, 2024) == {"dokumentySbirkyVMesici": []}
        assert s.get(m.base_url + "/1ad1f16beff952576ae7ddd76a91e163").status_code == 404


def test_committed_catalog_matches_the_corpus():
    catalog = json.loads(esbirka.CATALOG_PATH.read_text(encoding="utf-8"))
    assert catalog["_note"].startswith("DERIVED FILE")
    files = {rel: path for path, rel in esbirka._corpus_files(CORPUS)}
    assert {e["file"] for e in catalog["entries"]} == set(files)
    for entry in catalog["entries"]:
        assert entry["sha256"] == sha256_file(files[entry["file"]]), entry["file"]


def test_catalog_entries_are_recomputed_for_unknown_files(tmp_path):
    stale = tmp_path / "catalog.json"
    stale.write_text(json.dumps({"entries": []}), encoding="utf-8")
    corpus = tmp_path / "corpus"
    (corpus / "esbirka" / "docx").mkdir(parents=True)
    src = CORPUS / "esbirka" / "docx" / "Sb_1918_8_IZ.docx"
    (corpus / "esbirka" / "docx" / src.name).write_bytes(src.read_bytes())
    [entry] = esbirka.load_catalog(corpus, stale)
    assert (entry["number"], entry["year"], entry["adopted"]) == (8, 1918, "1918-11-02")


def test_heading_and_effect_parsers():
    heading = esbirka.parse_act_heading(
        "Strana 2 Akt č. 175 / 2025 Sb.\n175\nZÁKON\nze dne 22. května 2025\n"
        "o poskytování některých opatření v podpoře bydlení\n(zákon o podpoře bydlení)\n"
        "Parlament se usnesl na tomto zákoně České republiky:\nČÁST PRVNÍ"
    )
    assert heading == {
        "act_type": "Zákon",
        "adopted": date(2025, 5, 22),
        "title": "o poskytování některých opatření v podpoře bydlení (zákon o podpoře bydlení)",
        "name": "Zákon o poskytování některých opatření v podpoře bydlení (zákon o podpoře bydlení)",
    }
    # the act's running number in its volume is no part of its type; an act promulgated in Slovak keeps its words
    assert esbirka.parse_act_heading(
        "102.\nÚstavní zákon ze dne 11. června 1930\no úpravě státních hranic s Německem, Rakouskem a Maďarskem.\n"
        "Národní shromáždění republiky Československé usneslo se na tomto zákoně:"
    ) == {
        "act_type": "Ústavní zákon",
        "adopted": date(1930, 6, 11),
        "title": "o úpravě státních hranic s Německem, Rakouskem a Maďarskem",
        "name": "Ústavní zákon o úpravě státních hranic s Německem, Rakouskem a Maďarskem",
    }
    assert esbirka.parse_act_heading(
        "171.\nÚstavný zákon\nzo dňa 14. októbra 1947,\no mierovej smluve s Maďarskom.\n"
        "Ústavodarné Národné shromaždenie republiky Československej usnieslo sa na tomto ústavnom zákone:"
    ) == {
        "act_type": "Ústavný zákon",
        "adopted": date(1947, 10, 14),
        "title": "o mierovej smluve s Maďarskom",
        "name": "Ústavný zákon o mierovej smluve s Maďarskom",
    }
    announced = date(2025, 4, 29)
    parse = esbirka.parse_effective_date
    assert parse("Tento zákon nabývá účinnosti dnem jeho vyhlášení.", announced) == announced
    assert parse("Tato vyhláška nabývá účinnosti dnem následujícím po dni jeho vyhlášení.", announced) == date(
        2025, 4, 30
    )
    assert parse(
        "Tento zákon nabývá účinnosti prvním dnem kalendářního měsíce následujícího po dni jeho vyhlášení.",
        date(2025, 12, 3),
    ) == date(2026, 1, 1)
    assert parse("Tento zákon nabývá účinnosti dnem 1. ledna 2026, s výjimkou ...", None) == date(2026, 1, 1)
    assert parse("Tento zákon nabývá účinnosti dnem jeho vyhlášení.", None) is None
    assert esbirka.number_year_from_name("Sb_1993_1_IZ.docx") == (1, 1993)
    assert esbirka.number_year_from_name("76_2004.docx") == (76, 2004)
    assert esbirka.number_year_from_name("87-2024.pdf") == (87, 2024)
