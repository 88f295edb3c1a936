"""Search in force, on the real versions of vyhláška 573/2025 Sb. crawled from the mirror: the promulgated PDF (in
force 1. 1. – 31. 5. 2026, § 4 písm. a) benzin 95 34,70 Kč), the consolidated version of 1. 6. 2026 (§ 4 písm. c)
34,10 -> 44,50 Kč) and that of 1. 10. 2026 (§ 4 písm. a) 34,70 -> 41,80 Kč). The consolidated versions become
passages of the act, one per §; a search on a date serves the version in force then, ``version=promulgated`` the
PDF. The index is built as the nightly builds it, first without the 1. 10. 2026 version, then with it: only the
provision it changed is chunked and embedded again. Dates are passed explicitly (never the wall clock)."""

from __future__ import annotations

import json
from datetime import date

import psycopg
import pytest
from fastapi.testclient import TestClient

from serving.ranking.search import Searcher
from serving.web.api import create_app
from tests.support.law import (
    ACT,
    AFTER_ALL,
    BEFORE_AMENDMENTS,
    LATEST,
    QUERY,
    crawled_database,
    provision_of,
    section_4,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def searcher(indexed):
    return Searcher(indexed["path"], embedder=indexed["embedder"])


def test_every_act_passage_carries_its_version(indexed):
    chunks = indexed["chunks"]
    assert chunks and all(c.get("version_kind") in ("promulgated", "consolidated") for c in chunks)
    pdf = [c for c in chunks if c["version_kind"] == "promulgated"]
    consolidated = [c for c in chunks if c["version_kind"] == "consolidated"]
    assert {(c["version_eli"], c["valid_from"], c["valid_to"]) for c in pdf} == {
        (f"{ACT}/2026-01-01", "2026-01-01", "2026-05-31")
    }
    # one passage per § of each wording: § 1–§ 6 of 1. 6. 2026, and the § 4 that 1. 10. 2026 changed
    assert sorted(c["provision"] for c in consolidated) == ["§ 1", "§ 2", "§ 3", "§ 4", "§ 4", "§ 5", "§ 6"]
    wordings = {c["version_eli"]: c for c in consolidated if c["provision"] == "§ 4"}
    june, october = wordings[f"{ACT}/2026-06-01"], wordings[f"{ACT}/{LATEST}"]
    assert "a) 34,70 Kč" in june["text"] and "c) 44,50 Kč" in june["text"]
    assert "a) 41,80 Kč" in october["text"] and "c) 44,50 Kč" in october["text"]
    assert (june["valid_from"], june["valid_to"], october["valid_from"], october["valid_to"]) == (
        "2026-06-01",
        "2026-09-30",
        "2026-10-01",
        None,
    )
    # the wording is the crawl's own, never made up: every line of the passage is a stored provision's
    assert "34,10" not in june["text"] and "34,70" not in october["text"]
    # grounded in the promulgated PDF's page where § 4 stands (the PDF's own § 4 chunk)
    pdf_4 = next(c for c in pdf if provision_of(c["section"]) == "§ 4")
    assert june["page_start"] == october["page_start"] == pdf_4["page_start"] == 3
    assert june["page_of"] == october["page_of"] == "promulgated"
    unchanged = next(c for c in consolidated if c["provision"] == "§ 1")
    assert [v[0] for v in unchanged["versions"]] == [f"{ACT}/2026-06-01", f"{ACT}/{LATEST}"]


def test_a_new_version_chunks_and_embeds_only_the_changed_provision(indexed):
    first, second = indexed["first"], indexed["second"]
    assert indexed["changed"] == 1  # the 1. 10. 2026 version changed § 4 only (letter a)
    assert first["chunks"]["act_passages_new"] == 6
    assert second["chunks"]["act_passages_new"] == indexed["changed"]
    assert second["chunks"]["act_passages_unchanged"] == 6 and second["chunks"]["act_passages_removed"] == 0
    assert second["embed"]["chunks"] == indexed["changed"]
    assert len(indexed["embedded_second"]) == 1 and "41,80" in indexed["embedded_second"][0]


def test_default_search_serves_the_version_in_force(searcher):
    hits = searcher.search(QUERY, k=10, at=AFTER_ALL)
    found = section_4(hits)
    assert found and "a) 41,80 Kč" in found[0].text
    assert (found[0].version_eli, found[0].version_kind, found[0].valid_from, found[0].valid_to, found[0].status) == (
        f"{ACT}/{LATEST}",
        "consolidated",
        LATEST,
        None,
        "in_force",
    )
    assert found[0].page == 3 and found[0].page_of == "promulgated"
    # neither the promulgated § 4 nor the 1. 6. 2026 one: superseded
    assert not any("34,70" in h.text for h in hits if h.doc_id == ACT)
    assert all(h.status == "in_force" for h in hits if h.doc_id == ACT)


def test_an_earlier_date_serves_the_wording_then(searcher):
    march = section_4(searcher.search(QUERY, k=10, at=BEFORE_AMENDMENTS))
    assert march and "34,70 Kč" in march[0].text and not any("41,80" in h.text or "44,50" in h.text for h in march)
    assert (march[0].version_eli, march[0].version_kind, march[0].status) == (
        f"{ACT}/2026-01-01",
        "promulgated",
        "in_force",
    )
    july = section_4(searcher.search(QUERY, k=10, at=date(2026, 7, 1)))
    assert july and "a) 34,70 Kč" in july[0].text and "c) 44,50 Kč" in july[0].text
    assert (july[0].version_eli, july[0].valid_from, july[0].valid_to) == (
        f"{ACT}/2026-06-01",
        "2026-06-01",
        "2026-09-30",
    )


def test_before_the_act_takes_effect_its_first_version_is_marked(searcher):
    hits = section_4(searcher.search(QUERY, k=10, at=date(2025, 12, 20)))
    assert hits and "34,70 Kč" in hits[0].text
    assert (hits[0].version_kind, hits[0].status) == ("promulgated", "not_yet_in_force")


def test_before_the_earliest_version_of_an_act_stored_in_later_wordings_only_nothing_is_said_in_force(
    searcher, monkeypatch
):
    # the act's stored document a consolidated wording, not its promulgated text: it may well have been in force
    # on the date, in a wording the collection does not hold
    document = searcher.documents[hit_act(searcher)]
    monkeypatch.setitem(document, "doc_type", "law_consolidated")
    hits = section_4(searcher.search(QUERY, k=10, at=date(2025, 12, 20)))
    assert hits and hits[0].status == "before_stored_versions"
    assert section_4(searcher.search(QUERY, k=10, at=date(2026, 3, 1)))[0].status == "in_force"


def hit_act(searcher) -> str:
    return section_4(searcher.search(QUERY, k=10, at=date(2026, 3, 1)))[0].doc_id


def test_version_promulgated_returns_the_pdf_passage_with_its_page(searcher):
    hits = searcher.search(QUERY, k=10, at=AFTER_ALL, version="promulgated")
    act_hits = [h for h in hits if h.doc_id == ACT]
    assert act_hits and all(h.version_kind == "promulgated" for h in act_hits)
    found = section_4(hits)
    assert found and "34,70 Kč" in found[0].text and found[0].page == 3 and found[0].page_of is None
    assert (found[0].version_eli, found[0].status) == (f"{ACT}/2026-01-01", "superseded")
    with pytest.raises(ValueError):
        searcher.search(QUERY, at=AFTER_ALL, version="latest")


def test_the_api_applies_at_and_version(indexed):
    api = TestClient(create_app(indexed["home"] / "bundles", embedder=indexed["embedder"], reload_interval=0))

    def section_4_of(params) -> tuple[dict, dict]:
        body = api.get("/search", params={"q": QUERY, "k": 10, **params}).json()
        return body, next(r for r in body["results"] if r["doc_id"] == ACT and provision_of(r["section"]) == "§ 4")

    body, hit = section_4_of({"at": AFTER_ALL.isoformat()})
    assert body["at"] == AFTER_ALL.isoformat() and body["not_applied"] == []
    assert "41,80" in hit["text"] and hit["version_eli"] == f"{ACT}/{LATEST}" and hit["status"] == "in_force"
    body, hit = section_4_of({"at": BEFORE_AMENDMENTS.isoformat()})
    assert "34,70" in hit["text"] and (hit["valid_from"], hit["valid_to"]) == ("2026-01-01", "2026-05-31")
    body, hit = section_4_of({"at": AFTER_ALL.isoformat(), "version": "promulgated"})
    assert body["version"] == "promulgated" and hit["version_kind"] == "promulgated" and hit["page"] == 3
    assert api.get("/search", params={"q": QUERY, "version": "newest"}).status_code == 422


def test_the_cli_applies_at(indexed, monkeypatch, capsys):
    import cli.search
    import mendel.index.embed
    from cli.main import main

    monkeypatch.setenv("MENDEL_HOME", str(indexed["home"]))
    monkeypatch.delenv(cli.search.API_URL_ENV, raising=False)
    monkeypatch.setattr(mendel.index.embed, "get_embedder", lambda name=None: indexed["embedder"])
    answers = {}
    for day in (BEFORE_AMENDMENTS, AFTER_ALL):
        assert main(["search", QUERY, "--local", "--json", "-k", "10", "--at", day.isoformat()]) == 0
        body = json.loads(capsys.readouterr().out)
        answers[day] = next(r for r in body["results"] if r["doc_id"] == ACT and provision_of(r["section"]) == "§ 4")
    assert "34,70" in answers[BEFORE_AMENDMENTS]["text"] and "41,80" in answers[AFTER_ALL]["text"]
    assert main(["search", QUERY, "--local", "-k", "3", "--at", AFTER_ALL.isoformat()]) == 0
    assert f"version {ACT}/{LATEST} (consolidated, {LATEST} – …; in_force)" in capsys.readouterr().out


def test_an_act_known_only_from_sparql_has_its_version_list_and_no_text(pg_server_url, tmp_path):
    """110/2019 Sb.: the mirror has only its SPARQL metadata (one version ELI, .../2025-08-01); /historie lists that
    version, the crawl stores it as the act's only version with no fragments and no provisions, and no document."""
    from mendel.citator.wording import provision_at

    url = crawled_database(
        pg_server_url, tmp_path, [("esbirka", {"MENDEL_ESBIRKA_YEARS": "2019", "MENDEL_ESBIRKA_ACTS": "/sb/2019/110"})]
    )
    with psycopg.connect(url, autocommit=True) as conn:
        stored = conn.execute(
            "SELECT version, version_eli, effective_from, effective_to, fragment_count"
            " FROM act_versions WHERE doc_id = '/eli/cz/sb/2019/110'"
        ).fetchall()
        assert stored == [("2025-08-01", "/eli/cz/sb/2019/110/2025-08-01", date(2025, 8, 1), None, 0)]
        assert conn.execute("SELECT count(*) FROM provisions").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 0
        answer = provision_at(conn, "zákon č. 110/2019 Sb.", date(2026, 1, 1))
        assert answer["status"] == "no_text" and answer["version"]["eli"] == "/eli/cz/sb/2019/110/2025-08-01"
