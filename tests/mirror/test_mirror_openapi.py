"""Every e-Sbírka answer the mirror gives the spider is what the official API definition says — the operation's
schema, no field it does not define — for every act of the sample corpus, and the checker catches what it must."""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import quote

import pytest

from mendel.core.config import SAMPLE_CORPUS
from mirror.esbirka import API_PREFIX, EsbirkaSite
from mirror.responses import FileDigests
from tests.support.esbirka_openapi import definition


@pytest.fixture(scope="module")
def site():
    return EsbirkaSite(SAMPLE_CORPUS, FileDigests(), today=lambda: date(2026, 12, 1))


def answer(site, method: str, path: str, query: str = "", body: bytes = b""):
    """The mirror's answer to one request, checked against the definition."""
    response = site.handle(method, API_PREFIX + path.split("?")[0], API_PREFIX + path, query, {}, body)
    url = f"http://mirror{API_PREFIX}{path}" + (f"?{query}" if query else "")
    operation = definition().check_response(method, url, response.status, response.body, response.content_type)
    return operation, response


def stale(url: str) -> str:
    return quote(url, safe="")


@pytest.mark.slow
def test_every_answer_the_spider_reads_is_the_definitions(site):
    operations = set()
    operation, roky = answer(site, "POST", "/chronologicke-rejstriky/roky")
    operations.add(operation)
    years = [y["rok"] for y in json.loads(roky.body)["seznam"] if not y["deaktivovano"]]
    assert {1918, 1993, 2009, 2012, 2024, 2025} <= set(years)
    listed = []
    for year in years:
        operation, response = answer(
            site, "POST", "/chronologicke-rejstriky/dokumenty-sbirky-po-mesicich", body=b"%d" % year
        )
        operations.add(operation)
        for month in json.loads(response.body)["dokumentySbirkyVMesici"]:
            for collection in month["sbirkyDokumentuSbirky"]:
                listed += [act["staleUrl"] for act in collection["dokumentySbirkyRejstrikInfo"]]
    assert len(listed) == len(set(listed)) == 63  # every act of the corpus with a document
    operation, feed = answer(site, "GET", "/dokumenty-sbirky/zmeny-zneni", "start=0&pocet=500")
    operations.add(operation)
    versions = json.loads(feed.body)["seznamZneniPravnichPredpisu"]
    for act in listed + ["/sb/2019/110"]:
        for sub in ("", "/odkazy-ke-stazeni", "/historie"):
            operation, response = answer(site, "GET", f"/dokumenty-sbirky/{stale(act)}{sub}")
            assert response.status == 200, (act, sub)
            operations.add(operation)
        operation, page = answer(site, "GET", f"/dokumenty-sbirky/{stale(act)}/fragmenty", "cisloStranky=0")
        operations.add(operation)
        for number in range(1, json.loads(page.body)["pocetStranek"]):
            answer(site, "GET", f"/dokumenty-sbirky/{stale(act)}/fragmenty", f"cisloStranky={number}")
    for version in versions:  # each version's own detail and fragments, as the feed names them
        answer(site, "GET", f"/dokumenty-sbirky/{stale(version['staleUrl'])}")
        answer(site, "GET", f"/dokumenty-sbirky/{stale(version['staleUrl'])}/fragmenty", "cisloStranky=0")
    links = json.loads(answer(site, "GET", f"/dokumenty-sbirky/{stale('/sb/2024/90')}/odkazy-ke-stazeni")[1].body)
    link = links["overeneZneni"]["odkazPdf"]
    operation, pdf = answer(site, "GET", f"/souborove-dokumenty/{link['dokumentId']}/ORIGINAL/STAHNI/x.pdf")
    assert pdf.status == 200
    operations.add(operation)
    # errors are Chyby
    for method, path, query in (
        ("GET", f"/dokumenty-sbirky/{stale('/sb/2024/90')}/fragmenty", "cisloStranky=9"),
        ("GET", f"/dokumenty-sbirky/{stale('/sb/1999/1')}", ""),
        ("GET", "/dokumenty-sbirky/zmeny-zneni", "pocet=0"),
    ):
        assert answer(site, method, path, query)[1].status in (400, 404)
    assert operations == {
        "vypisRoky",
        "vypisDokumentySbirkyPoMesicich",
        "vypisNovaZmenenaZneniPravnichPredpisu",
        "vypisDetailDokumentuSbirky",
        "vypisOdkazyKeStazeniZneni",
        "vypisHistorii",
        "vypisFragmenty",
        "vypisObsahSouborovehoDokumentu",
    }


@pytest.mark.parametrize(
    ("schema", "payload", "problem"),
    [
        # a field the definition does not have (the mirror's former DOCX link)
        ("OdkazyKeStazeniZneni", {"informativniZneniDocx": {"dokumentId": 1}}, "informativniZneniDocx"),
        # ZaznamHistorie has no eli, even though the detail has
        ("Historie", {"historie": [{"staleUrl": "/sb/2024/1/2024-01-01", "eli": "/eli/cz/sb/2024/1"}]}, "eli"),
        ("FragmentSeznam", {"seznam": [], "pocetStranek": -1}, "minimum"),
        ("FragmentSeznam", {"seznam": [{"id": 0}], "pocetStranek": 1}, "minimum"),
        ("DokumentySbirkyPoMesicich", {"dokumentySbirkyVMesici": [{"mesic": "leden"}]}, "integer"),
        ("SeznamZneniPravnichPredpisu", {"seznamZneniPravnichPredpisu": [{"rok": 1800}]}, "minimum"),
        ("DokumentSbirkyDetail", {"typZneni": "PLATNE"}, "is not one of"),
        ("DokumentSbirkyDetail", {"datumCasVyhlaseni": "16. 4. 2024"}, "date-time"),
    ],
)
def test_the_checker_rejects_what_the_definition_does_not_allow(schema, payload, problem):
    errors = list(definition().validator({"$ref": f"#/components/schemas/{schema}"}).iter_errors(payload))
    assert errors and any(problem in error.message or problem in str(error) for error in errors)
