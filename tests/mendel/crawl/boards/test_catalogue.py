"""NKOD on the mirror as the register needs it: the SPARQL query the register crawl pages through answers with every
board the mirror serves, in the real records' DCAT shape; one board a dataset, its preferred distribution."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from mendel.core.config import KADAN_FEED_URL
from mendel.crawl.boards.catalogue import OFN_BOARDS, boards_from_bindings, nkod_query
from mirror.nkod import parse_query

KADAN_DATASET = "https://data.gov.cz/zdroj/datové-sady/00261912/uredni-deska"


def sparql(base_url: str, query: str, accept: str = "application/sparql-results+json") -> tuple[int, str, str]:
    url = f"{base_url}/sparql?{urllib.parse.urlencode({'query': query})}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept})) as response:
            return response.status, response.headers["Content-Type"], response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode("utf-8")


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
