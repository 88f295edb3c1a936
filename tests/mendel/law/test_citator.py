"""The citator over the bundled corpus, crawled from the mirror and processed as the nightly run does: acts
120/2025, 270/2025 and 573/2025 Sb. (text, versions, e-Sbírka references), the Nejvyšší soud decisions published
in spring 2026 and a week of Ústavní soud citation records (NALUS, no decision text)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from mendel.citator import build as citator
from mendel.citator.cites import _fill_passages, _ready, cites
from mendel.citator.citing_passages import PASSAGES_PER_DOCUMENT
from mendel.citator.targets import Target
from mendel.core.config import PROJECT_ROOT
from serving.web.law_routes import law_router
from tests.support.law import cited_database

pytestmark = pytest.mark.e2e

CRAWLS = [
    ("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/120,/sb/2025/270,/sb/2025/573"}),
    ("nsoud", {"MENDEL_NSOUD_FROM": "2026-05-01", "MENDEL_NSOUD_TO": "2026-06-30"}),
    ("nalus", {"MENDEL_NALUS_FROM": "2018-09-18", "MENDEL_NALUS_TO": "2018-09-30", "MENDEL_NALUS_DOCKETS": ""}),
]


@pytest.fixture(scope="module")
def database(pg_server_url, tmp_path_factory) -> str:
    return cited_database(pg_server_url, tmp_path_factory.mktemp("citator-home"), CRAWLS)


@pytest.fixture
def conn(database):
    with psycopg.connect(database, autocommit=True) as connection:
        yield connection


def listed(answer: dict, family: str) -> dict[str, dict]:
    return {doc["citation"] or doc["doc_id"]: doc for doc in answer["families"][family]["items"]}


def test_a_provision_cited_by_acts_and_decisions_lists_both(conn):
    # § 140 trestního zákoníku: 270/2025 Sb. names it ("vraždy (§ 140 trestního zákoníku)"), 3 Tdo 289/2026
    # cites § 140 odst. 2 — which rolls up to § 140.
    answer = cites(conn, "§ 140 trestního zákoníku")
    assert answer["target"]["key"] == "40/2009 Sb." and answer["target"]["provision"] == "§ 140"
    acts, decisions = listed(answer, "acts"), listed(answer, "decisions")
    assert "270/2025 Sb." in acts and "3 Tdo 289/2026" in decisions
    decision = decisions["3 Tdo 289/2026"]
    assert any("§ 140 odst. 2 40/2009 Sb." in p["cited"] for p in decision["passages"])
    assert all(p["sentence"] and p["page"] for d in (acts["270/2025 Sb."], decision) for p in d["passages"])
    assert any("140" in p["sentence"] for p in acts["270/2025 Sb."]["passages"])
    assert decision["date"] == "2026-04-28"
    # newest first within a family
    dates = [d["date"] for d in answer["families"]["decisions"]["items"]]
    assert dates == sorted(dates, reverse=True)


class _RolledBack(Exception):
    pass


def test_an_act_is_not_cited_by_its_own_e_sbirka_record(conn):
    # an act's metadata record links to the act it renders (origin 'record'); the citator must not count it
    record_doc, other_doc = "act-metadata:/eli/cz/sb/2025/573/test", "act-metadata:/eli/cz/sb/2025/270/test"
    with pytest.raises(_RolledBack), conn.transaction():
        for doc_id, stale in ((record_doc, "/sb/2025/573"), (other_doc, "/sb/2025/270")):
            conn.execute(
                "INSERT INTO documents (doc_id, source, url, title, doc_type) VALUES (%s, 'esbirka', %s, 'údaje',"
                " 'act_metadata')",
                (doc_id, f"https://example.invalid{stale}"),
            )
            conn.execute(
                "INSERT INTO record_documents (doc_id, kind, record) VALUES (%s, 'act_metadata', %s)",
                (doc_id, f"esbirka:{stale}"),
            )
            conn.execute(
                "INSERT INTO citation_links (origin, target_kind, target_key, citing_doc_id, sentence)"
                " VALUES ('record', 'act', '573/2025 Sb.', %s, 'mění zákon č. 573/2025 Sb.')",
                (doc_id,),
            )
        citator.build_index(conn)
        citing = {d["doc_id"] for f in cites(conn, "573/2025 Sb.")["families"].values() for d in f["items"]}
        assert record_doc not in citing and other_doc in citing  # another act's record may well cite it
        raise _RolledBack
    citator.build(conn)  # the module's index as it was, its fingerprint recorded again


def test_sub_provision_citations_roll_up_to_the_section_and_the_act(conn):
    exact = cites(conn, "§ 140 odst. 2 trestního zákoníku")
    section = cites(conn, "§ 140 trestního zákoníku")
    act = cites(conn, "zákon č. 40/2009 Sb.")
    assert "3 Tdo 289/2026" in listed(exact, "decisions")
    assert "270/2025 Sb." not in listed(exact, "acts")  # § 140 itself is not § 140 odst. 2
    assert exact["total_citations"] < section["total_citations"] < act["total_citations"]
    assert set(listed(section, "decisions")) <= set(listed(act, "decisions"))
    assert set(listed(section, "acts")) <= set(listed(act, "acts"))


def test_an_ecli_and_its_file_number_give_the_same_list(conn):
    by_number = cites(conn, "III. ÚS 3425/16")
    by_ecli = cites(conn, "ECLI:CZ:US:2017:3.US.3425.16.1")
    assert by_number["total_citations"] >= 2
    assert by_number["families"] == by_ecli["families"]
    assert {"20 Cdo 3327/2025", "27 Cdo 2965/2025"} <= set(listed(by_number, "decisions"))
    # the Ústavní soud writes its years in two digits: IV. US 729/2000 is III. ÚS 729/00
    four_digits, two_digits = cites(conn, "III. US 729/2000"), cites(conn, "III. ÚS 729/00")
    assert four_digits["target"]["key"] == "III. ÚS 729/00" and four_digits["families"] == two_digits["families"]
    assert "22 Cdo 1021/2026" in listed(two_digits, "decisions")
    # a Nejvyšší soud ECLI names the file number with its register in capitals
    nd_number, nd_ecli = cites(conn, "31 Nd 200/2012"), cites(conn, "ECLI:CZ:NS:2012:31.ND.200.2012.1")
    assert nd_number["total_documents"] >= 2 and nd_number["families"] == nd_ecli["families"]


def test_a_page_is_the_newest_documents_of_each_family_and_the_counts_do_not_depend_on_it(conn):
    # the act cited by the most documents of one family
    key, family = conn.execute(
        "SELECT key_folded, family FROM citation_totals WHERE target_kind = 'act'"
        " AND scope = '' AND key_folded LIKE '%/% sb.'"
        " ORDER BY documents DESC, key_folded LIMIT 1"
    ).fetchone()
    ref = "zákon č. " + key.replace(" sb.", " Sb.")
    whole = cites(conn, ref, limit=1000)
    assert whole["families"][family]["documents"] >= 2
    items = whole["families"][family]["items"]
    assert len(items) == whole["families"][family]["documents"]  # everything when the limit allows it
    assert [(d["date"] is not None, d["date"], d["doc_id"]) for d in items] == sorted(
        ((d["date"] is not None, d["date"], d["doc_id"]) for d in items), reverse=True
    )
    for limit in (1, 2):
        page = cites(conn, ref, limit=limit)
        for name, counts in page["families"].items():
            # the counts are every citing document and citation whatever the page; the page is the head of the list
            assert (counts["documents"], counts["citations"]) == (
                whole["families"][name]["documents"],
                whole["families"][name]["citations"],
            )
            assert counts["items"] == whole["families"][name]["items"][:limit]
        assert (page["total_documents"], page["total_citations"]) == (
            whole["total_documents"],
            whole["total_citations"],
        )
    assert all(len(d["passages"]) <= PASSAGES_PER_DOCUMENT for d in items)
    assert cites(conn, ref, limit=2) == cites(conn, ref, limit=2)


def test_citation_records_and_e_sbirka_references_feed_the_citator(conn):
    record = conn.execute("SELECT target_key FROM citation_links WHERE origin = 'record' LIMIT 1").fetchone()
    assert record is not None, "the NALUS records name no decision"
    answer = cites(conn, record[0])
    records = [d for d in answer["families"]["decisions"]["items"] if d["kind"] == "citation_record"]
    assert records and all("record" in p["origins"] for d in records for p in d["passages"])
    # 573/2025 Sb. cites § 189 odst. 1 zákoníku práce in its preamble: an odkazyZFragmentu link of e-Sbírka
    odkaz = cites(conn, "§ 189 zákona č. 262/2006 Sb.")
    vyhlaska = listed(odkaz, "acts")["573/2025 Sb."]
    assert any("odkaz" in p["origins"] or "mention" in p["origins"] for p in vyhlaska["passages"])
    assert conn.execute("SELECT count(*) FROM citation_links WHERE origin = 'odkaz'").fetchone()[0] > 0


def test_cli_and_api(database, tmp_path):
    env = {**os.environ, "MENDEL_DATABASE_URL": database, "MENDEL_HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "cites", "§ 140 trestního zákoníku", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    answer = json.loads(run.stdout)
    assert "3 Tdo 289/2026" in listed(answer, "decisions")
    text = subprocess.run(
        [sys.executable, "-m", "cli.main", "cites", "III. ÚS 3425/16"],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=180,
    )
    assert text.returncode == 0 and "decisions:" in text.stdout and "20 Cdo 3327/2025" in text.stdout
    app = FastAPI()
    app.include_router(law_router(database))
    client = TestClient(app)
    body = client.get("/citations", params={"ref": "§ 140 trestního zákoníku", "limit": 1}).json()
    assert len(body["families"]["decisions"]["items"]) == 1 and body["families"]["decisions"]["documents"] >= 1
    assert client.get("/citations", params={"ref": "nic"}).status_code == 400


def test_nightly_assets_for_versions_and_citations(database, tmp_path):
    from dagster import materialize

    from assets.law.assets import citations, law_versions
    from orchestration.definitions import defs
    from orchestration.resources import MendelResource

    graph = defs.resolve_asset_graph()
    parents = {
        key.to_user_string(): {p.to_user_string() for p in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }
    assert parents["law_versions"] == {"esbirka_documents"}
    assert parents["citations"] == {"legal_entities", "law_versions"}
    result = materialize(
        [law_versions, citations], resources={"mendel": MendelResource(home=str(tmp_path), database_url=database)}
    )
    assert result.success
    versions = result.asset_materializations_for_node("law_versions")[0].metadata
    built = result.asset_materializations_for_node("citations")[0].metadata
    assert versions["versions"].value == 5 and versions["acts"].value == 3  # 573/2025 in three, 120 and 270 in one
    assert versions["versions_with_amending_act"].value == 1
    assert versions["provisions_changed_by_a_later_version"].value == 4  # § 4 and c), then § 4 and a)
    assert built["new_targets"].value == 0 and built["links_record"].value > 0 and built["targets"].value > 0


def test_the_passages_held_ready_are_those_cut_on_the_call(conn):
    # citation_index.passages (built with the index) against the passages a query cut from the passages' text on
    # every call before: every row of the index, i.e. every cited item, scope and citing document of the corpus
    rows = conn.execute(
        "SELECT i.target_kind, i.key_folded, i.scope, i.doc_id, i.sample_chunks, i.passages, d.current_version_id"
        " FROM citation_index i JOIN documents d USING (doc_id) ORDER BY 1, 2, 3, 4"
    ).fetchall()
    assert len(rows) > 100 and all(row[5] is not None for row in rows)
    by_target: dict[tuple, list] = {}
    for kind, key, scope, *rest in rows:
        by_target.setdefault((kind, key, scope), []).append(rest)
    shown = 0
    for (kind, key, scope), docs in by_target.items():
        listed = {doc_id: {"_version": version, "passages": []} for doc_id, _, _, version in docs}
        _fill_passages(
            conn, Target(kind, key, scope, (key,)), listed, {doc_id: samples for doc_id, samples, _, _ in docs}
        )
        for doc_id, _, ready, _ in docs:
            assert _ready(ready) == listed[doc_id]["passages"], (kind, key, scope, doc_id)
            shown += len(ready)
    origins = {origin for *_, ready, _ in rows for p in ready for origin in p["origins"]}
    assert shown and {"mention", "odkaz", "record"} <= origins  # and pages found for links naming none
    # whole answers: ready, and cut on the call, the same (JSON text included: the keys in the same order)
    for ref in (
        "§ 140 trestního zákoníku",
        "zákon č. 40/2009 Sb.",
        "III. ÚS 3425/16",
        "ECLI:CZ:US:2017:3.US.3425.16.1",
        "31 Nd 200/2012",
        "ECLI:CZ:NS:2012:31.ND.200.2012.1",
        "§ 189 zákona č. 262/2006 Sb.",
    ):
        ready, cut = cites(conn, ref, limit=50), cites(conn, ref, limit=50, cut=True)
        assert json.dumps(ready, ensure_ascii=False) == json.dumps(cut, ensure_ascii=False), ref


def _built(conn) -> dict:
    """Every row of the citator's built tables (in a stable order; a link without its serial id)."""
    return {
        table: sorted(
            json.dumps(row, sort_keys=True) for (row,) in conn.execute(f"SELECT to_jsonb(t) - 'link_id' FROM {table} t")
        )
        for table in ("citation_links", "citation_index", "citation_totals")
    }


def test_a_build_with_nothing_changed_is_kept_and_any_change_builds_it_again(conn):
    before = _built(conn)
    kept = citator.build(conn)
    assert kept["rebuilt"] is False and kept["index_rows"] > 0 and _built(conn) == before
    # a row it reads written again (the same values, a new row version): built again, to the same tables
    conn.execute("UPDATE act_references SET kind = kind WHERE odkaz_id = (SELECT min(odkaz_id) FROM act_references)")
    assert citator.build(conn)["rebuilt"] is True and _built(conn) == before
    assert citator.build(conn)["rebuilt"] is False
    # a night with nothing new (documents seen again by a crawl, a chunk's other columns written) keeps it; a
    # document's values changed do not
    conn.execute("UPDATE documents SET last_seen = now()")
    conn.execute("UPDATE chunks SET lexemes = lexemes, embedding = embedding")
    # nor do e-Sbírka's act versions confirmed unchanged (a night re-checking every act), nor documents marked for
    # the index steps (a chunk stage's writes move documents.changed_txid)
    conn.execute("UPDATE act_versions SET checked_at = now(), page_etags = page_etags")
    conn.execute("UPDATE documents SET changed_txid = txid_current()")
    assert citator.build(conn)["rebuilt"] is False
    doc_id, title = conn.execute("SELECT doc_id, title FROM documents ORDER BY doc_id LIMIT 1").fetchone()
    conn.execute("UPDATE documents SET title = 'x' WHERE doc_id = %s", (doc_id,))
    assert citator.build(conn)["rebuilt"] is True
    conn.execute("UPDATE documents SET title = %s WHERE doc_id = %s", (title, doc_id))
    assert citator.build(conn)["rebuilt"] is True and _built(conn) == before
    conn.execute("DELETE FROM citation_totals")  # what it wrote, changed behind its back: built again
    assert citator.build(conn)["rebuilt"] is True and _built(conn) == before
    assert citator.build(conn, force=True)["rebuilt"] is True and _built(conn) == before
