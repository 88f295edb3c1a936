"""Relations are typed by the subject document's kind: only an act AMENDS or REPEALS. A court decision quoting
amending language (its citation a file number) yields no relation rows and no LAW_REF:<file number> node."""

from __future__ import annotations

import psycopg

from mendel.index.entity_graph import aggregate, document_contributions, document_entity
from mendel.ner.relations import extract_relations
from mendel.nightly import chunk_stage, index_stage, recognise_stage
from tests.support.index import add_act, pages_text

DECISION_ID = "ECLI:CZ:NS:2025:29.ND.461.2025.1"
FILE_NUMBER = "29 Nd 461/2025"


def test_decision_relations_make_no_edges_and_no_law_ref_node():
    decision = document_entity(DECISION_ID, "decision", FILE_NUMBER)
    rows = [("REPEALS", FILE_NUMBER, "40/2009 Sb."), ("AMENDS", FILE_NUMBER, "89/2012 Sb. § 2079")]
    found = document_contributions(decision, [{"LAW_REF:40/2009 Sb."}], rows)
    assert not {kind for kind, _, _ in found} & {"AMENDS", "REPEALS"}
    graph = aggregate([(DECISION_ID, kind, s, t, n) for (kind, s, t), n in found.items()])
    assert f"LAW_REF:{FILE_NUMBER}" not in {n["id"] for n in graph.nodes}
    # an act's own rows still count; another subject in an act's rows does not
    act = document_entity("/eli/cz/sb/2025/285", "law", "285/2025 Sb.")
    found = document_contributions(
        act, [], [("REPEALS", "285/2025 Sb.", "40/2009 Sb."), ("REPEALS", "286/2025 Sb.", "23/2002 Sb.")]
    )
    assert {(k, s, t) for k, s, t in found if k == "REPEALS"} == {("REPEALS", act, "LAW_REF:40/2009 Sb.")}


def test_only_an_act_citation_is_a_subject():
    text = pages_text("285-2025", (17,))  # the closing "Zrušují se:" list of 285/2025 Sb.
    assert extract_relations(text, "285/2025 Sb.")
    assert extract_relations(text, FILE_NUMBER) == []
    assert extract_relations(text, "Pl. ÚS 19/13") == []


def test_decision_with_amending_language_stores_no_relations(fresh_db, tmp_path):
    text = pages_text("285-2025", (17,))
    with psycopg.connect(fresh_db) as conn:
        version = add_act(conn, DECISION_ID, [text], FILE_NUMBER)
        conn.execute("UPDATE documents SET source = 'nsoud', doc_type = 'decision' WHERE doc_id = %s", (DECISION_ID,))
        act_version = add_act(conn, "/eli/cz/sb/2025/285", [text], "285/2025 Sb.")
        conn.execute("UPDATE documents SET doc_type = 'law' WHERE doc_id = '/eli/cz/sb/2025/285'")
        conn.commit()
        chunk_stage.chunk_pending(conn)
        recognise_stage.recognise_pending(conn)
        by_version = dict(conn.execute("SELECT version_id, count(*) FROM relations GROUP BY 1").fetchall())
        assert by_version.get(version) is None and by_version[act_version] > 0
        index_stage.build_graph(conn, tmp_path / "graph")
        nodes = {n for (n,) in conn.execute("SELECT entity_id FROM graph_nodes")}
        assert f"LAW_REF:{FILE_NUMBER}" not in nodes and "LAW_REF:285/2025 Sb." in nodes
        assert (
            conn.execute(
                "SELECT count(*) FROM graph_edges WHERE type = 'REPEALS' AND source = %s", ("LAW_REF:285/2025 Sb.",)
            ).fetchone()[0]
            > 0
        )
