"""The entity graph: co-occurrence edges strengthen when they repeat, typed edges (PART_OF, REFERS_TO, AMENDS,
REPEALS), query co-activation, and the PostgreSQL copy kept in step document by document."""

from __future__ import annotations

import json

import psycopg
import pytest

from mendel.index.entity_graph import DOCUMENT_WEIGHT, aggregate, document_contributions, document_entity
from mendel.nightly import chunk_stage, index_stage
from tests.support.index import add_document, ns_decisions

PROVISION = "LAW_REF:89/2012 Sb. § 2079"
CODE = "LAW_REF:40/2009 Sb."
COURT = "INSTITUTION:Nejvyšší soud"


def rows(doc_id: str, contributions: dict) -> list[tuple]:
    return [(doc_id, kind, source, target, count) for (kind, source, target), count in contributions.items()]


def edge(graph, a: str, b: str) -> dict:
    a, b = min(a, b), max(a, b)
    return next(e for e in graph.edges if (e["source"], e["target"]) == (a, b))


def test_cooccurrence_edges_strengthen_when_they_repeat():
    first = document_contributions("DOCUMENT:d1", [{PROVISION, CODE}, {PROVISION, CODE}, {PROVISION, COURT}])
    assert first[("CO_CHUNK", min(PROVISION, CODE), max(PROVISION, CODE))] == 2
    assert first[("MENTIONED", PROVISION, "")] == 3
    one = aggregate(rows("d1", first))
    assert edge(one, PROVISION, CODE)["weight"] == 2 + DOCUMENT_WEIGHT
    assert edge(one, PROVISION, COURT)["weight"] == 1 + DOCUMENT_WEIGHT
    # A second document repeats the pair once in a chunk: one more chunk, one more document.
    second = document_contributions("DOCUMENT:d2", [{CODE, PROVISION}, {COURT}])
    two = aggregate(rows("d1", first) + rows("d2", second))
    repeated = edge(two, PROVISION, CODE)
    assert (repeated["chunks"], repeated["documents"]) == (3, 2)
    assert repeated["weight"] == 3 + 2 * DOCUMENT_WEIGHT > edge(one, PROVISION, CODE)["weight"]
    nodes = {n["id"]: n for n in two.nodes}
    assert (nodes[PROVISION]["chunks"], nodes[PROVISION]["documents"]) == (4, 2)
    assert nodes[COURT]["chunks"] == 2


def test_typed_edges():
    own_act = document_entity("/eli/cz/sb/2012/89", "law", "89/2012 Sb.")
    assert own_act == "LAW_REF:89/2012 Sb."
    assert (
        document_entity("ECLI:CZ:NS:2026:20.ND.234.2026.1", "decision", "20 Nd 234/2026")
        == "DECISION_REF:20 Nd 234/2026"
    )
    assert document_entity("kadan-1", "notice", None) == "DOCUMENT:kadan-1"
    found = document_contributions(
        own_act,
        [{PROVISION, CODE}, {CODE}],
        [
            ("AMENDS", "89/2012 Sb.", "40/2009 Sb. § 12"),
            ("REPEALS", "89/2012 Sb.", "40/1964 Sb."),
            ("AMENDS", "89/2012 Sb.", "40/2009 Sb. § 12"),
        ],
    )
    assert found[("PART_OF", PROVISION, own_act)] == 1  # provision -> its act
    assert ("REFERS_TO", own_act, PROVISION) not in found  # its own provision is not a citation
    assert found[("REFERS_TO", own_act, CODE)] == 2  # cited in two chunks
    assert found[("AMENDS", own_act, "LAW_REF:40/2009 Sb. § 12")] == 2
    assert found[("REPEALS", own_act, "LAW_REF:40/1964 Sb.")] == 1
    graph = aggregate(rows("d", found))
    nodes = {n["id"]: n for n in graph.nodes}
    # Endpoints no chunk names are nodes too, with their ELI derived from the citation.
    assert nodes["LAW_REF:40/1964 Sb."]["chunks"] == 0 and nodes["LAW_REF:40/1964 Sb."]["eli"] == "/eli/cz/sb/1964/40"
    assert {(r["type"], r["source"], r["target"]) for r in graph.relations} >= {
        ("PART_OF", PROVISION, own_act),
        ("REFERS_TO", own_act, CODE),
        ("REPEALS", own_act, "LAW_REF:40/1964 Sb."),
    }


def test_query_coactivation_adds_to_entity_edges():
    from mendel.index.entity_graph import QUERY_WEIGHT_MAX_SHARE

    base = rows("d1", document_contributions(None, [{PROVISION, CODE}, {COURT}]))
    graph = aggregate(
        base,
        query_edges=[
            ("40/2009 Sb.", "89/2012 Sb. § 2079", 0.5),  # bare norms
            (CODE, COURT, 0.25),  # entity ids
            ("1/1993 Sb.", CODE, 9.0),
        ],
    )  # unknown: ignored
    assert edge(graph, PROVISION, CODE)["queries"] == 0.5
    assert edge(graph, PROVISION, CODE)["weight"] == 1 + DOCUMENT_WEIGHT + 0.5
    assert edge(graph, CODE, COURT) == {
        "source": min(CODE, COURT),
        "target": max(CODE, COURT),
        "weight": 0.5 + 0.25,
        "chunks": 0.0,
        "documents": 1.0,
        "queries": 0.25,
    }
    assert all("1/1993" not in e["source"] + e["target"] for e in graph.edges)
    # what queries add is capped at a share of the heaviest data edge (here 1 chunk + 1 document = 1.5)
    flooded = aggregate(base, query_edges=[(CODE, COURT, 300.0)])
    assert edge(flooded, CODE, COURT)["queries"] == QUERY_WEIGHT_MAX_SHARE * (1 + DOCUMENT_WEIGHT)


# --- PostgreSQL: contributions per document, kept in step -----------------------------------------------------

AGREED_RELATIONS = """CREATE TABLE IF NOT EXISTS relations (relation_id bigserial PRIMARY KEY,
    version_id bigint REFERENCES document_versions ON DELETE CASCADE, kind text CHECK (kind IN ('AMENDS','REPEALS')),
    subject_norm text NOT NULL, object_norm text NOT NULL, page_no int, char_start int, char_end int, evidence text)"""
AGREED_QUERY_EDGES = """CREATE TABLE IF NOT EXISTS query_entity_edges (a text, b text, weight double precision,
    updated_at timestamptz, PRIMARY KEY (a, b))"""


def mention(conn, doc_id: str, seq: int, *entity_ids: str) -> None:
    (chunk_id,) = conn.execute(
        "SELECT c.chunk_id FROM chunks c JOIN documents d ON d.current_version_id = c.version_id"
        " WHERE c.doc_id = %s AND c.layer = 3 AND c.seq = %s",
        (doc_id, seq),
    ).fetchone()
    for i, entity_id in enumerate(entity_ids):
        label, norm = entity_id.split(":", 1)
        conn.execute(
            "INSERT INTO entities (entity_id, label, norm) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            (entity_id, label, norm),
        )
        conn.execute(
            "INSERT INTO mentions (chunk_id, entity_id, start_char, end_char, surface) VALUES (%s, %s, %s, %s, 'x')",
            (chunk_id, entity_id, i, i + 1),
        )


def pg_edges(conn) -> dict[tuple[str, str, str], tuple]:
    return {
        (t, s, d): (w, c, n, q)
        for s, d, t, w, c, n, q in conn.execute(
            "SELECT source, target, type, weight, chunks, documents, queries FROM graph_edges"
        )
    }


@pytest.fixture
def graph_db(fresh_db):
    decisions = ns_decisions()[:3]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        conn.execute(AGREED_RELATIONS)
        conn.execute(AGREED_QUERY_EDGES)
        for r in decisions:
            add_document(conn, r["ecli"], [r["full_text"][:1500]], title=r["title"], citation=r["case_number"])
        chunk_stage.chunk_pending(conn)  # no NER: the tests write the mentions they need
    return fresh_db, [r["ecli"] for r in decisions], [r["case_number"] for r in decisions]


def test_postgres_graph_follows_documents(graph_db, tmp_path):
    url, (d1, d2, d3), (c1, _, _) = graph_db
    out = tmp_path / "graph"
    pair = ("CO_OCCURS", min(PROVISION, CODE), max(PROVISION, CODE))
    with psycopg.connect(url, autocommit=True) as conn:
        mention(conn, d1, 0, PROVISION, CODE)
        mention(conn, d1, 1, PROVISION, CODE)
        version_1 = conn.execute("SELECT current_version_id FROM documents WHERE doc_id = %s", (d1,)).fetchone()[0]
        conn.execute(
            "INSERT INTO relations (version_id, kind, subject_norm, object_norm) VALUES (%s, 'AMENDS', %s, %s)",
            (version_1, "89/2012 Sb.", "40/2009 Sb. § 12"),
        )
        conn.execute(
            "INSERT INTO query_entity_edges (a, b, weight, updated_at) VALUES (%s, %s, 0.25, now())",
            ("40/2009 Sb.", "89/2012 Sb. § 2079"),
        )
        first = index_stage.build_graph(conn, out)
        assert first["documents_updated"] == 3 and first["rebuilt"]
        edges = pg_edges(conn)
        assert edges[pair] == (2 + DOCUMENT_WEIGHT + 0.25, 2, 1, 0.25)
        # d1 is a decision: a relation row on its version amends nothing (only an act's own rows do)
        assert ("AMENDS", "LAW_REF:89/2012 Sb.", "LAW_REF:40/2009 Sb. § 12") not in edges
        assert edges[("PART_OF", PROVISION, "LAW_REF:89/2012 Sb.")][0] == 2
        assert edges[("REFERS_TO", f"DECISION_REF:{c1}", CODE)][0] == 2
        bundle_graph = json.loads((out / "graph.json").read_text())
        assert {e["source"] + e["target"]: e["weight"] for e in bundle_graph["edges"]}[pair[1] + pair[2]] == 2.75

        # Nothing changed: nothing recomputed, the files stay.
        again = index_stage.build_graph(conn, out)
        assert again["documents_updated"] == 0 and not again["rebuilt"]

        # The pair repeats in another document: only that document is recomputed, the edge strengthens.
        mention(conn, d2, 0, CODE, PROVISION, COURT)
        grown = index_stage.build_graph(conn, out)
        assert grown["documents_updated"] == 1 and grown["contribution_rows_written"] > 0
        assert pg_edges(conn)[pair] == (3 + 2 * DOCUMENT_WEIGHT + 0.25, 3, 2, 0.25)

        # Withdrawn: its contributions go; an entity it alone supported goes, shared ones stay.
        conn.execute("UPDATE documents SET status = 'withdrawn' WHERE doc_id = %s", (d2,))
        shrunk = index_stage.build_graph(conn, out)
        assert shrunk["documents_removed"] == 1
        assert pg_edges(conn)[pair] == (2 + DOCUMENT_WEIGHT + 0.25, 2, 1, 0.25)
        nodes = dict(conn.execute("SELECT entity_id, chunks FROM graph_nodes").fetchall())
        assert COURT not in nodes and nodes[PROVISION] == 2 and nodes[CODE] == 2
        assert conn.execute("SELECT count(*) FROM graph_contributions WHERE doc_id = %s", (d2,)).fetchone()[0] == 0
