"""The e-Sbírka spider's fragments: every ``/fragmenty?cisloStranky=N`` page read (more than one page for a long
act), one act version assembled with e-Sbírka's cross-references, and a re-crawl that the mirror answers 304."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest
import requests

from mendel.core.config import SAMPLE_CORPUS
from mendel.core.rawstore import RawStore
from mendel.law import act_versions
from mirror.server import MirrorThread
from tests.support.crawl import crawl_runner, only

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
    first = requests.get(f"{base_url}{API}/{stale}/fragmenty", params={"cisloStranky": 0}, timeout=60).json()
    rest = [
        requests.get(f"{base_url}{API}/{stale}/fragmenty", params={"cisloStranky": n}, timeout=60).json()
        for n in range(1, first["pocetStranek"])
    ]
    return [first, *rest]


def version_requests(log) -> list[str]:
    """The versions part of a crawl's requests: feed, history and fragment pages (path with the page)."""
    return [p for _, p, _ in log if "/zmeny-zneni" in p or "/historie" in p or "/fragmenty" in p]


@pytest.mark.e2e
def test_fragments_are_assembled_into_act_versions_with_their_cross_references_then_304(crawl, site):
    first = crawl("esbirka", "fr-1", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(first, stored=2)
    assert first["act_versions_stored"] == 2

    weapons = pages(site.base_url, "%2Fsb%2F2024%2F90%2F2026-01-01")
    assert len(weapons) == 2 and len(weapons[0]["seznam"]) == 1000  # 1,000 fragments a page
    fragments = [f for page in weapons for f in page["seznam"]]
    links = [(f["id"], link) for f in fragments for link in f["odkazyZFragmentu"]]
    assert links
    with psycopg.connect(crawl.database_url) as conn:
        versions = {
            row[0]: row[1:]
            for row in conn.execute(
                "SELECT doc_id, version, fragment_count, reference_count, sha256, page_etags, citation, effective_from,"
                " version_eli FROM act_versions"
            )
        }
        references = conn.execute(
            "SELECT odkaz_id, fragment_id, target_eli, target_citation FROM act_references"
            " WHERE doc_id = '/eli/cz/sb/2024/90' ORDER BY odkaz_id"
        ).fetchall()
        provisions = dict(
            conn.execute("SELECT provision_id, text FROM provisions WHERE doc_id = '/eli/cz/sb/2024/90'").fetchall()
        )
        graph_edges = act_versions.current_references(conn)
    assert set(versions) == {"/eli/cz/sb/2024/90", "/eli/cz/sb/2024/87"}
    version, count, ref_count, digest, etags, citation, effective, version_eli = versions["/eli/cz/sb/2024/90"]
    # one known wording, one version: the act's own text, in force from 1. 1. 2026
    assert (version, count, ref_count, citation) == ("2026-01-01", len(fragments), len(links), "90/2024 Sb.")
    assert str(effective) == "2026-01-01" and len(etags) == 2 and version_eli == "/eli/cz/sb/2024/90/2026-01-01"
    assert provisions["§ 1 odst. 1"] == (
        "(1) Právo nabývat, držet a nosit zbraně je zaručeno za podmínek stanovených tímto zákonem."
    )
    # Every link of every page, with the act it cites resolved (e.g. the former weapons act 119/2002 Sb.).
    assert [(r[0], r[1]) for r in references] == sorted((link["odkazId"], fid) for fid, link in links)
    assert ("/eli/cz/sb/2002/119", "119/2002 Sb.") in {(r[2], r[3]) for r in references}
    assert {e["source_eli"] for e in graph_edges} >= {"/eli/cz/sb/2024/90"}
    assert ("90/2024 Sb.", "119/2002 Sb.") in {(e["source_norm"], e["target_norm"]) for e in graph_edges}
    stored = json.loads(RawStore(crawl.home / "raw").get(digest))
    assert [f["id"] for f in stored["fragments"]] == [f["id"] for f in fragments]
    assert stored["eli"] == "/eli/cz/sb/2024/90" and stored["citation"] == "90/2024 Sb."

    # Nothing changed: the versions part of the crawl is the change feed alone, and nothing is stored.
    before = len(site.request_log)
    again = crawl("esbirka", "fr-2", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(again, unchanged=2)
    assert not {k for k in again if k.startswith("act_versions_")}
    requested = version_requests(site.request_log[before:])
    assert len(requested) == 1 and "/zmeny-zneni" in requested[0] and "datumCasOdberuOd" in requested[0]

    # Without the feed position every version is listed again: asked for conditionally, all pages answer 304.
    with psycopg.connect(crawl.database_url) as conn:
        conn.execute("DELETE FROM change_feeds")
    before = len(site.request_log)
    resync = crawl("esbirka", "fr-3", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    assert resync["act_versions_unchanged"] == 2 and "act_versions_stored" not in resync
    fragment_answers = [s for _, p, s in site.request_log[before:] if "/fragmenty" in p]
    assert fragment_answers == [304, 304, 304]  # 90/2024: two pages, 87/2024: one

    # The same text cut into other pages is the same version: fetched afresh, assembled, not stored again.
    site.server.esbirka.fragment_page_size = 600
    with psycopg.connect(crawl.database_url) as conn:
        conn.execute("DELETE FROM change_feeds")
    repaged = crawl("esbirka", "fr-4", MENDEL_ESBIRKA_YEARS="2024", MENDEL_ESBIRKA_ACTS=ACTS)
    only(repaged, unchanged=2)
    assert repaged["act_versions_unchanged"] == 2
    with psycopg.connect(crawl.database_url) as conn:
        etags = conn.execute("SELECT page_etags FROM act_versions WHERE doc_id = '/eli/cz/sb/2024/90'").fetchone()[0]
    assert len(etags) == 3  # 1,470 fragments in pages of 600


def corpus_with_versions(root: Path, versions: list[str]) -> Path:
    """The sample corpus seen through links, with only ``versions`` of esbirka/versions in a folder of its own."""
    root.mkdir()
    for entry in SAMPLE_CORPUS.iterdir():
        if entry.name != "esbirka":
            (root / entry.name).symlink_to(entry)
    (root / "esbirka").mkdir()
    for entry in (SAMPLE_CORPUS / "esbirka").iterdir():
        if entry.name != "versions":
            (root / "esbirka" / entry.name).symlink_to(entry)
    (root / "esbirka" / "versions").mkdir()
    for name in versions:
        shutil.copyfile(SAMPLE_CORPUS / "esbirka" / "versions" / name, root / "esbirka" / "versions" / name)
    return root


@pytest.mark.e2e
def test_a_newly_published_version_is_all_the_next_crawl_fetches(tmp_path, fresh_db, monkeypatch):
    corpus = corpus_with_versions(tmp_path / "corpus", ["573-2025__2026-06-01.md"])
    acts = {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/573"}
    with MirrorThread(corpus) as before_amendment:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, before_amendment.base_url)
        first = crawl("esbirka", "v-1", **acts)
    assert first["act_versions_stored"] == 2
    with psycopg.connect(fresh_db) as conn:
        assert conn.execute(
            "SELECT version, effective_from::text, effective_to::text FROM act_versions ORDER BY version"
        ).fetchall() == [("2026-01-01", "2026-01-01", "2026-05-31"), ("2026-06-01", "2026-06-01", None)]
    # 175/2026 Sb. is published: the October version appears in the feed, after the position taken last time.
    shutil.copyfile(
        SAMPLE_CORPUS / "esbirka" / "versions" / "573-2025__2026-10-01.md",
        corpus / "esbirka" / "versions" / "573-2025__2026-10-01.md",
    )
    with MirrorThread(corpus) as after_amendment:
        crawl = crawl_runner(monkeypatch, tmp_path / "home", fresh_db, after_amendment.base_url)
        second = crawl("esbirka", "v-2", **acts)
        fetched = version_requests(after_amendment.request_log)
    assert second["act_versions_stored"] == 1 and "act_versions_unchanged" not in second
    assert [p.split("?")[0] for p in fetched] == [
        f"{API}/zmeny-zneni",
        f"{API}/%2Fsb%2F2025%2F573/historie",
        f"{API}/%2Fsb%2F2025%2F573%2F2026-10-01/fragmenty",
    ]
    with psycopg.connect(fresh_db) as conn:
        rows = conn.execute(
            "SELECT version, effective_from::text, effective_to::text, amended_by, version_eli"
            " FROM act_versions ORDER BY version"
        ).fetchall()
        changed = conn.execute(
            "SELECT n.provision_id FROM provisions n JOIN provisions o ON o.doc_id = n.doc_id"
            " AND o.provision_id = n.provision_id AND o.version = '2026-06-01'"
            " WHERE n.version = '2026-10-01' AND n.wording_sha <> o.wording_sha ORDER BY 1"
        ).fetchall()
    assert rows == [
        ("2026-01-01", "2026-01-01", "2026-05-31", [], "/eli/cz/sb/2025/573/2026-01-01"),
        ("2026-06-01", "2026-06-01", "2026-09-30", [], "/eli/cz/sb/2025/573/2026-06-01"),  # ended by the new one
        (
            "2026-10-01",
            "2026-10-01",
            None,
            [{"citation": "175/2026 Sb.", "eli": "/eli/cz/sb/2026/175"}],
            "/eli/cz/sb/2025/573/2026-10-01",
        ),
    ]
    assert changed == [("§ 4",), ("§ 4 písm. a)",)]


def test_assemble_and_reference_rows():
    detail = {
        "staleUrl": "/sb/2024/87",
        "zkracenaCitace": "87/2024 Sb.",
        "nazev": "Ústavní zákon",
        "typZneni": "VYHLASENE",
        "datumCasVyhlaseni": "2024-04-16T00:00:00+02:00",
        "datumUcinnostiZneniOd": "2026-01-01",
    }
    page = {
        "pocetStranek": 1,
        "seznam": [
            {
                "id": 5,
                "eli": "/eli/cz/sb/2024/87/0000-00-00/dokument/norma/cl_1",
                "staleUrl": "/sb/2024/87/0000-00-00#cl_1",
                "kodTypuFragmentu": "Clanek",
                "hloubka": 0,
                "xhtml": '<var>Čl. I</var> Ústavní zákon č. <a data-odkaz-id="7" href="#">1/1993 Sb.</a>',
                "zkracenaCitace": "čl. I ústavního zákona č. 87/2024 Sb.",
                "odkazyZFragmentu": [
                    {"odkazId": 7, "kodTypuVazbyOdkazu": "CITACE", "cil": {"staleUrl": "/sb/1993/1#cl_5-odst_2"}}
                ],
            }
        ],
    }
    record = act_versions.assemble(detail, [page])
    assert record["version"] == "0000-00-00" and record["staleUrl"] == "/sb/2024/87/0000-00-00"
    assert record["announced"] == "2024-04-16" and record["effectiveFrom"] == "2026-01-01"
    assert record["fragments"][0]["text"] == "Čl. I Ústavní zákon č. 1/1993 Sb."
    [ref] = record["references"]
    assert (ref["targetEli"], ref["targetCitation"], ref["targetProvision"]) == (
        "/eli/cz/sb/1993/1",
        "1/1993 Sb.",
        "cl_5-odst_2",
    )
    assert act_versions.sha256(record) == act_versions.sha256(act_versions.assemble(detail, [page]))
    for bad in ({"seznam": "x", "pocetStranek": 1}, {"seznam": []}, {"seznam": [], "pocetStranek": True}, []):
        with pytest.raises(act_versions.FragmentPageError):
            act_versions.check_page(bad)
    assert act_versions.parse_stale_url("/sb/2012/89/2026-01-01#par_2079").version == "2026-01-01"
    assert act_versions.parse_stale_url("https://example.org/x") is None
    assert act_versions.provision_from_anchor("par_12-odst_3-pism_a") == "§ 12 odst. 3 písm. a)"
    assert act_versions.provision_from_anchor("cast_1-hlava_2-cl_5") == "čl. 5"
    assert act_versions.provision_from_anchor("cast_1-hlava_2") == ""
