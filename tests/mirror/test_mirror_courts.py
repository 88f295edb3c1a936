"""The mirror's Ústavní soud (NALUS) and Nejvyšší správní soud sites: real layout, real ConCo records only."""

from __future__ import annotations

import re
from datetime import date

import requests

from mendel.core.config import SAMPLE_CORPUS
from mirror import courts
from tests.support.courts import administrative_since, constitutional_since, real_nalus_pages

FIELD = "ctl00$MainContent$"


def hidden_fields(page: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="(__\w+)" id="\w+" value="([^"]*)"', page))


def test_nalus_form_postback_needs_the_issued_view_state_and_pages_the_session_hits(mirror):
    session = requests.Session()
    form = session.get(f"{mirror.base_url}/Search/Search.aspx", timeout=30)
    assert form.status_code == 200 and "ASP.NET_SessionId" in session.cookies
    state = hidden_fields(form.text)
    assert set(state) >= {"__VIEWSTATE", "__VIEWSTATEGENERATOR", "__EVENTVALIDATION"}
    criteria = {
        FIELD + "decidedFrom": "18.9.2018",
        FIELD + "nalezy": "on",
        FIELD + "usneseni": "on",
        FIELD + "stanoviska_plena": "on",
        FIELD + "resultsPageSize": "20",
        FIELD + "but_search": "Vyhledat",
    }
    forged = session.post(
        f"{mirror.base_url}/Search/Search.aspx",
        data={**state, "__VIEWSTATE": "AAAA" + "x" * 36, **criteria},
        timeout=30,
    )
    assert forged.status_code == 500 and "viewstate" in forged.text.lower()
    posted = session.post(
        f"{mirror.base_url}/Search/Search.aspx", data={**state, **criteria}, allow_redirects=False, timeout=30
    )
    assert posted.status_code == 302 and posted.headers["Location"] == "/Search/Results.aspx"

    real = {sz for sz, page in real_nalus_pages().items() if page["date"] >= date(2018, 9, 18)}
    expected = {**constitutional_since(date(2018, 9, 18)), **dict.fromkeys(real)}
    listed, total = [], None
    for page in range(0, 10):
        html = session.get(f"{mirror.base_url}/Search/Results.aspx", params={"page": page}, timeout=30).text
        banner = re.search(r"Výsledky (\d+) - (\d+) z celkem (\d+)", html)
        total = int(banner.group(3))
        keys = re.findall(r'ShowLink\("http://[^/]+/Search/GetText\.aspx\?sz=([^"]+)"', html)
        if not keys:
            break
        listed += keys
    assert total == len(expected) and sorted(listed) == sorted(expected)  # every hit once, across the pages
    # Without the session there is no search to show.
    assert requests.get(f"{mirror.base_url}/Search/Results.aspx", allow_redirects=False, timeout=30).status_code == 302

    none = requests.Session()
    state = hidden_fields(none.get(f"{mirror.base_url}/Search/Search.aspx", timeout=30).text)
    empty = none.post(
        f"{mirror.base_url}/Search/Search.aspx",
        timeout=30,
        data={**state, **criteria, FIELD + "decidedFrom": "1.1.1990", FIELD + "decidedTo": "31.12.1990"},
    )
    assert empty.status_code == 200 and "ctl00_MainContent_lbError" in empty.text


def test_nalus_text_page_shows_only_the_real_citation_records(mirror):
    decision = courts.load_conco(SAMPLE_CORPUS).constitutional["2-680-06_1"]
    page = requests.get(f"{mirror.base_url}/Search/GetText.aspx", params={"sz": "2-680-06_1"}, timeout=30)
    assert page.status_code == 200
    assert '<span id="lblRegistrySign">II.ÚS 680/06 ze dne 19. 4. 2007</span>' in page.text
    content = page.text.split('<td class="DocContent">', 1)[1]
    assert "ne text rozhodnutí" in content and "ConCo" in content
    for reference in decision.references:
        assert reference.reference in content
    assert "30 Cdo 85/2005" in content  # a linked reference of this decision (ConCo-ref-SupCo.csv)
    again = requests.get(
        f"{mirror.base_url}/Search/GetText.aspx",
        params={"sz": "2-680-06_1"},
        headers={"If-None-Match": page.headers["ETag"]},
        timeout=30,
    )
    assert again.status_code == 304
    assert (
        requests.get(f"{mirror.base_url}/Search/GetText.aspx", params={"sz": "9-1-99_1"}, timeout=30).status_code == 404
    )


def test_nssoud_search_rows_more_rows_and_utf16_texts(mirror):
    session = requests.Session()
    form = session.get(f"{mirror.base_url}/Home/Index", params={"formular": "4"}, timeout=30).text
    token = re.search(r'name="__RequestVerificationToken" type="hidden" value="([^"]+)"', form).group(1)
    prefix = re.search(
        r'name="(vyhledavaciPodminky\[\d+\])\.TechnickyNazev" value="datumvydanirozhodnuti"', form
    ).group(1)
    condition = {f"{prefix}.vyhledavaciPodminkaHodnota[0].HodnotaDatumACasOd": "01.01.2017 00:00:00"}
    refused = session.post(f"{mirror.base_url}/Home/Index?formular=4", data=condition, timeout=30)
    assert refused.status_code == 400
    results = session.post(
        f"{mirror.base_url}/Home/Index?formular=4", data={"__RequestVerificationToken": token, **condition}, timeout=30
    ).text
    expected = administrative_since(date(2017, 1, 1))
    assert f"Nalezeno záznamů: {len(expected)}" in results
    table = results.split('<table id="tresults"', 1)[1].split("</table>", 1)[0]
    ids = re.findall(r"DokumentOriginal/Text/(\d+)", table)
    assert len(ids) == 40
    params = re.sub(r"\\(.)", r"\1", re.search(r"var currParams = '((?:[^'\\]|\\.)*)'", results).group(1))
    page, more = 1, []
    while True:
        rows = session.post(
            f"{mirror.base_url}/Home/MyResTRowsCont",
            timeout=30,
            data={"vyhledavaciPodminky": params, "zobrazeniVysledkuId": "1", "pageNum": str(page), "resultOrder": ""},
        ).text
        if not rows.strip():
            break
        more += re.findall(r"DokumentOriginal/Text/(\d+)", rows)
        page += 1
    assert len(set(ids + more)) == len(ids) + len(more) == len(expected)

    text = requests.get(f"{mirror.base_url}/DokumentOriginal/Text/{ids[0]}", timeout=30)
    assert text.headers["Content-Type"] == "text/plain; charset=utf-16" and not text.content.startswith(b"\xff\xfe")
    decoded = text.content.decode("utf-16-le")
    assert "ne text rozhodnutí" in decoded and "Citováno v rozhodnutích Ústavního soudu:" in decoded
    newest = max(expected.values(), key=lambda r: r["date"])
    assert any(docket in decoded for docket in newest["dockets"])
    assert requests.get(f"{mirror.base_url}/DokumentOriginal/Text/12", timeout=30).status_code == 404


def test_conco_loader_reads_every_row_and_the_dirty_lines():
    records = courts.load_conco(SAMPLE_CORPUS)
    rows = sum(len(d.references) for d in records.constitutional.values())
    lines = sum(len(p.read_bytes().splitlines()) - 1 for p in (SAMPLE_CORPUS / "courts" / "citations").glob("*.csv"))
    assert rows == lines  # windows-1250 lines in ConCo-ref-rest.csv included, none lost
    decision = records.constitutional["Pl-24-10_1"]
    assert decision.docket == "Pl.ÚS 24/10" and decision.ecli == "ECLI:CZ:US:2011:Pl.US.24.10.1"
    assert records.constitutional["St-27-09_1"].docket == "Pl.ÚS-st. 27/09"
    assert records.constitutional["St-27-09_1"].ecli is None
    assert len(records.administrative) == len({d.file for d in records.administrative})


def test_nalus_serves_each_real_page_unchanged_and_lists_it_by_its_file_number(mirror):
    for sz, page in real_nalus_pages().items():
        served = requests.get(f"{mirror.base_url}/Search/GetText.aspx", params={"sz": sz}, timeout=30)
        assert served.content == (SAMPLE_CORPUS / "courts" / "nalus_html" / f"{sz}.html").read_bytes()
        session = requests.Session()
        state = hidden_fields(session.get(f"{mirror.base_url}/Search/Search.aspx", timeout=30).text)
        criteria = {FIELD + "citace": page["docket"], FIELD + "nalezy": "on", FIELD + "usneseni": "on"}
        session.post(f"{mirror.base_url}/Search/Search.aspx", data={**state, **criteria}, timeout=30)
        results = session.get(f"{mirror.base_url}/Search/Results.aspx", timeout=30).text
        assert re.findall(r'GetText\.aspx\?sz=([^"]+)"', results) == [sz], page["docket"]
