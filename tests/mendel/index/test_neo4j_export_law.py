"""The law in time exported to a real Bolt server (ArcadeDB, tests/support/bolt_server.py): the acts 176/2025 and
573/2025 Sb. crawled from the mirror with their versions, provisions and e-Sbírka references, the citator
built over them, and the three Cypher queries docs/law.md shows run against the result."""

from __future__ import annotations

import re
import time

import psycopg
import pytest

from mendel.citator import build as citator
from mendel.core.config import PROJECT_ROOT
from mendel.index.neo4j_export import Neo4jSettings, connect, count_graph, export_graph
from mendel.index.neo4j_law import law_graph
from mendel.index.neo4j_schema import RELATIONSHIP_STATEMENTS
from mendel.law.domain_graph import load_domain_graph
from tests.support.bolt_server import PASSWORD
from tests.support.law import crawled_database

ACT = "/eli/cz/sb/2025/573"
CRAWLS = [("esbirka", {"MENDEL_ESBIRKA_YEARS": "2025", "MENDEL_ESBIRKA_ACTS": "/sb/2025/176,/sb/2025/573"})]


def documented_queries() -> dict[str, str]:
    """The Cypher blocks of the graph section of docs/law.md, by the bold line above each."""
    text = (PROJECT_ROOT / "docs" / "law.md").read_text(encoding="utf-8")
    section = text.split("## The law as a graph (Cypher)", 1)[1].split("\n## ", 1)[0]
    return {
        name.strip(): query.strip()
        for name, query in re.findall(r"^\*\*(.+?)\*\*[^\n]*\n+```cypher\n(.+?)```", section, flags=re.S | re.M)
    }


@pytest.fixture(scope="module")
def law(pg_server_url, tmp_path_factory) -> dict:
    url = crawled_database(pg_server_url, tmp_path_factory.mktemp("neo4j-law-home"), CRAWLS)
    with psycopg.connect(url, autocommit=True) as conn:
        citator.build(conn)
        return law_graph(conn)


@pytest.fixture(scope="module")
def exported(bolt_server, law):
    driver = connect(Neo4jSettings(url=bolt_server["url"], user="root", password=PASSWORD))
    with driver.session() as session:
        session.run("MATCH (n) DETACH DELETE n").consume()
    started = time.monotonic()
    result = export_graph(driver, {"nodes": [], "edges": []}, load_domain_graph(), batch_size=200, law=law)
    print(f"\nlaw graph: {result['nodes']} {result['relationships']} in {time.monotonic() - started:.1f} s")
    yield driver, result
    driver.close()


@pytest.mark.e2e
def test_law_graph_is_written_whole_and_idempotently(exported, law):
    driver, first = exported
    for label, rows in law["nodes"].items():
        assert first["nodes"][label] == len(rows) > 0
    for key in ("HAS_VERSION", "HAS_PROVISION", "CITES"):
        assert len(law["relationships"][key]) > 0
    stored = count_graph(driver)
    again = export_graph(driver, {"nodes": [], "edges": []}, load_domain_graph(), law=law)
    assert again["pruned"] == {"nodes": 0, "relationships": 0}
    assert count_graph(driver) == stored
    assert stored["nodes"]["Version"] == len(law["nodes"]["Version"])
    assert stored["relationships"]["HAS_PROVISION"] == len(law["nodes"]["Provision"])


@pytest.mark.e2e
def test_the_three_documented_queries(exported):
    driver, _ = exported
    queries = documented_queries()
    assert len(queries) == 3, queries
    cites, amended, chain = queries.values()
    with driver.session() as session:
        wording = session.run(chain, act="573/2025 Sb.", provision="§ 4 písm. c)").data()
        changes = session.run(amended, act="573/2025 Sb.").data()
        citing = session.run(cites, act="262/2006 Sb.", provision="§ 189").data()
        citing_act = session.run(cites, act="262/2006 Sb.", provision="").data()
    print("\nwording chain:", wording, "\namended:", changes, "\ncites:", citing)
    assert [(w["version"], w["effective_from"], w["effective_to"]) for w in wording] == [
        (f"{ACT}/2026-01-01", "2026-01-01", "2026-05-31"),
        (f"{ACT}/2026-06-01", "2026-06-01", "2026-09-30"),
        (f"{ACT}/2026-10-01", "2026-10-01", None),
    ]
    assert [w["text"] for w in wording] == [
        "c) 34,10 Kč za 1 litr motorové nafty,",
        "c) 44,50 Kč za 1 litr motorové nafty,",
        "c) 44,50 Kč za 1 litr motorové nafty,",
    ]
    # the mirror names the amending act of the 2026-10-01 version only (the 2026-06-01 one lists none)
    assert changes == [
        {
            "amending_act": "175/2026 Sb.",
            "change": "AMENDS",
            "version": f"{ACT}/2026-10-01",
            "effective_from": "2026-10-01",
        }
    ]
    # e-Sbírka's references of 573/2025 Sb.: § 189 odst. 1 of the zákoník práce rolls up to § 189 (not to § 18)
    assert citing == [
        {
            "citing": "573/2025 Sb.",
            "title": citing[0]["title"],
            "kind": citing[0]["kind"],
            "published": citing[0]["published"],
            "provision": "§ 189 odst. 1",
            "citations": 1,
        }
    ]
    assert citing[0]["title"] and citing[0]["kind"] and citing[0]["published"]
    assert ("573/2025 Sb.", "§ 189 odst. 1") in {(c["citing"], c["provision"]) for c in citing_act}
    with driver.session() as session:
        assert session.run(cites, act="262/2006 Sb.", provision="§ 18").data() == []
        assert [(c["citing"], c["provision"]) for c in session.run(cites, act="89/2012 Sb.", provision="§ 2239")] == [
            ("176/2025 Sb.", "§ 2239")
        ]
        # a cited act that is not stored is still a node to ask about
        assert (
            session.run("MATCH (d:Document {citation: $c}) RETURN d.stored AS s", c="262/2006 Sb.").single()["s"]
            is False
        )


def test_cites_statement_merges_per_provision():
    assert "MERGE (a)-[e:CITES {provision: r.provision}]->(b)" in RELATIONSHIP_STATEMENTS["CITES"]
