"""The e-Sbírka spider's fragments: every ``/fragmenty?cisloStranky=N`` page read (more than one page for a long
act), one act version assembled with e-Sbírka's cross-references, and a re-crawl that the mirror answers 304."""

from __future__ import annotations

import json

import psycopg
import pytest
import requests

from mendel import act_versions
from mendel.config import SAMPLE_CORPUS
from mirror.server import MirrorThread
from mendel.rawstore import RawStore
from tests.crawl_support import crawl_runner, only

API = "/esel-esbir-daver/dokumenty-sbirky"
ACTS = "/sb/2024/90,/sb/2024/87"


@pytest.fixture
def site():
    with MirrorThread(SAMPLE_CORPUS) as running:  # its own mirror: the test re-pages it
        yield running


@pytest.fixture
def crawl(tmp_path, fresh_db, site, monkeypatch):
    return crawl_runner(monkeypatch, tmp_path, fresh_db, site.base_url)


def pages(base_url: str, stale: str) -> list[dict]:
    first = requests.get(f"{base_url}{API}/{stale}/fragmenty", params={"cisloStranky": 1}, timeout=60).json()
    rest = [requests.get(f"{base_url}{API}/{stale}/fragmenty", params={"cisloStranky": n}, timeout=60).json()
            for n in range(2, first["pocetStranek"] + 1)]
    return [first, *rest]


def test_fragments_are_assembled_into_act_versions_with_their_cross_references_then_304(crawl, site):
    first = crawl("esbirka", "fr-1", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(first, stored=2)
    assert first["act_versions_stored"] == 2

    weapons = pages(site.base_url, "%2Fsb%2F2024%2F90")
    assert len(weapons) == 2 and len(weapons[0]["seznam"]) == 1000  # 1,000 fragments a page
    fragments = [f for page in weapons for f in page["seznam"]]
    links = [(f["id"], link) for f in fragments for link in f["odkazyZFragmentu"]]
    assert links
    with psycopg.connect(crawl.database_url) as conn:
        versions = {row[0]: row[1:] for row in conn.execute(
            "SELECT doc_id, version, fragment_count, reference_count, sha256, page_etags, citation, effective_from"
            " FROM act_versions")}
        references = conn.execute(
            "SELECT odkaz_id, fragment_id, target_eli, target_citation FROM act_references"
            " WHERE doc_id = '/eli/cz/sb/2024/90' ORDER BY odkaz_id").fetchall()
        graph_edges = act_versions.current_references(conn)
    assert set(versions) == {"/eli/cz/sb/2024/90", "/eli/cz/sb/2024/87"}
    version, count, ref_count, digest, etags, citation, effective = versions["/eli/cz/sb/2024/90"]
    assert (version, count, ref_count, citation) == ("0000-00-00", len(fragments), len(links), "90/2024 Sb.")
    assert str(effective) == "2026-01-01" and len(etags) == 2
    # Every link of every page, with the act it cites resolved (e.g. the former weapons act 119/2002 Sb.).
    assert [(r[0], r[1]) for r in references] == sorted((link["odkazId"], fid) for fid, link in links)
    assert ("/eli/cz/sb/2002/119", "119/2002 Sb.") in {(r[2], r[3]) for r in references}
    assert {e["source_eli"] for e in graph_edges} >= {"/eli/cz/sb/2024/90"}
    assert ("90/2024 Sb.", "119/2002 Sb.") in {(e["source_norm"], e["target_norm"]) for e in graph_edges}
    stored = json.loads(RawStore(crawl.home / "raw").get(digest))
    assert [f["id"] for f in stored["fragments"]] == [f["id"] for f in fragments]
    assert stored["eli"] == "/eli/cz/sb/2024/90" and stored["citation"] == "90/2024 Sb."

    before = len(site.request_log)
    again = crawl("esbirka", "fr-2", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(again, unchanged=2)
    assert again["act_versions_unchanged"] == 2 and "act_versions_stored" not in again
    fragment_answers = [s for _, p, s in site.request_log[before:] if "/fragmenty" in p]
    assert fragment_answers == [304, 304, 304]  # 90/2024: two pages, 87/2024: one

    # The same text cut into other pages is the same version: fetched afresh, assembled, not stored again.
    site.server.esbirka.fragment_page_size = 600
    repaged = crawl("esbirka", "fr-3", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(repaged, unchanged=2)
    assert repaged["act_versions_unchanged"] == 2
    with psycopg.connect(crawl.database_url) as conn:
        etags = conn.execute("SELECT page_etags FROM act_versions WHERE doc_id = '/eli/cz/sb/2024/90'").fetchone()[0]
    assert len(etags) == 3  # 1,470 fragments in pages of 600


def test_assemble_and_reference_rows():
    detail = {"staleUrl": "/sb/2024/87", "zkracenaCitace": "87/2024 Sb.", "nazev": "Ústavní zákon",
              "typZneni": "VYHLASENE", "datumCasVyhlaseni": "2024-04-16T00:00:00+02:00",
              "datumUcinnostiZneniOd": "2026-01-01"}
    page = {"pocetStranek": 1, "seznam": [
        {"id": 5, "eli": "/eli/cz/sb/2024/87/0000-00-00/dokument/norma/cl_1", "staleUrl": "/sb/2024/87/0000-00-00#cl_1",
         "kodTypuFragmentu": "Clanek", "hloubka": 0, "xhtml": "<var>Čl. I</var> Ústavní zákon č. "
         "<a data-odkaz-id=\"7\" href=\"#\">1/1993 Sb.</a>", "zkracenaCitace": "čl. I ústavního zákona č. 87/2024 Sb.",
         "odkazyZFragmentu": [{"odkazId": 7, "kodTypuVazbyOdkazu": "CITACE",
                               "cil": {"staleUrl": "/sb/1993/1#cl_5-odst_2"}}]}]}
    record = act_versions.assemble(detail, [page])
    assert record["version"] == "0000-00-00" and record["staleUrl"] == "/sb/2024/87/0000-00-00"
    assert record["announced"] == "2024-04-16" and record["effectiveFrom"] == "2026-01-01"
    assert record["fragments"][0]["text"] == "Čl. I Ústavní zákon č. 1/1993 Sb."
    [ref] = record["references"]
    assert (ref["targetEli"], ref["targetCitation"], ref["targetProvision"]) == ("/eli/cz/sb/1993/1", "1/1993 Sb.",
                                                                                 "cl_5-odst_2")
    assert act_versions.sha256(record) == act_versions.sha256(act_versions.assemble(detail, [page]))
    for bad in ({"seznam": "x", "pocetStranek": 1}, {"seznam": []}, {"seznam": [], "pocetStranek": True}, []):
        with pytest.raises(act_versions.FragmentPageError):
            act_versions.check_page(bad)
    assert act_versions.parse_stale_url("/sb/2012/89/2026-01-01#par_2079").version == "2026-01-01"
    assert act_versions.parse_stale_url("https://example.org/x") is None
    assert act_versions.provision_from_anchor("par_12-odst_3-pism_a") == "§ 12 odst. 3 písm. a)"
    assert act_versions.provision_from_anchor("cast_1-hlava_2-cl_5") == "čl. 5"
    assert act_versions.provision_from_anchor("cast_1-hlava_2") == ""
