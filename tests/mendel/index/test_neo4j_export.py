"""Neo4j export against a real Bolt server: ArcadeDB (``arcadedb-embedded``: bundled JRE, Bolt plugin reporting
Neo4j 5.26 compatibility) started in a subprocess on free loopback ports, once for the session
(tests/support/bolt_server.py)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip(
    "arcadedb_embedded", reason="the Bolt test server comes with the test extra: pip install -e .[test]"
)
neo4j = pytest.importorskip("neo4j")

from mendel.index.neo4j_export import Neo4jSettings, connect, count_graph, export_graph, neo4j_settings  # noqa: E402
from mendel.index.neo4j_schema import CONSTRAINT_STATEMENTS, NODE_STATEMENTS, RELATIONSHIP_STATEMENTS  # noqa: E402
from mendel.law.domain_graph import load_domain_graph  # noqa: E402
from tests.support.bolt_server import PASSWORD, STARTUP_TIMEOUT_S  # noqa: E402


@pytest.fixture(scope="module")
def module_driver(bolt_server):
    settings = Neo4jSettings(url=bolt_server["url"], user="root", password=PASSWORD)
    driver = connect(settings)
    yield driver
    driver.close()


@pytest.fixture
def driver(module_driver):
    """The module's driver over an emptied database."""
    with module_driver.session() as session:
        session.run("MATCH (n) DETACH DELETE n").consume()
    return module_driver


@pytest.fixture(scope="module")
def domain():
    return load_domain_graph()


def _graph() -> dict:
    """The shape build_graph writes to graph.json, with real-looking ids."""
    ids = [
        "LAW_REF:89/2012 Sb. § 2079",
        "LAW_REF:89/2012 Sb. § 2099",
        "LAW_REF:262/2006 Sb. § 52",
        "LAW_REF:563/1991 Sb. § 24 odst. 3",
        "LAW_REF:26/2000 Sb.",  # an act the domain graph does not hold
        "DECISION_REF:IV. ÚS 2265/13",
        "INSTITUTION:Česká národní banka",
        "INSTITUTION:Krajský soud v Brně",
    ]
    nodes = []
    for eid in ids:
        label, norm = eid.split(":", 1)
        act = norm.split(" §")[0] if label == "LAW_REF" else None
        eli = f"/eli/cz/sb/{act.split('/')[1].split()[0]}/{act.split('/')[0]}" if act else None
        nodes.append({"id": eid, "label": label, "norm": norm, "eli": eli, "chunks": 1})
    edges = [
        {"source": ids[0], "target": ids[1], "weight": 2.0},
        {"source": ids[0], "target": ids[6], "weight": 0.5},
        {"source": ids[2], "target": ids[3], "weight": 1.5},
        {"source": ids[5], "target": ids[7], "weight": 1.0},
    ]
    chunk_entities = {
        "c1": sorted([ids[0], ids[1], ids[6]]),
        "c2": sorted([ids[2], ids[3]]),
        "c3": sorted([ids[5], ids[7]]),
        "c4": [ids[4]],
    }
    return {"nodes": nodes, "edges": edges, "chunk_entities": chunk_entities}


def _expected_relationships(graph: dict, domain) -> dict:
    return {
        "CO_OCCURS": len(graph["edges"]),
        "MENTIONS": sum(len(v) for v in graph["chunk_entities"].values()),
        "GOVERNS": len(domain.edges_of("governs")),
        "SUPERVISES": len(domain.edges_of("supervises")),
        "PART_OF": len(domain.edges_of("part_of")),
        "AMENDS": len(domain.edges_of("amends")),
        "HAS_VERSION": 0,
        "HAS_PROVISION": 0,
        "CITES": 0,
        "REPEALS": 0,
    }


def test_server_speaks_neo4j_5(module_driver, bolt_server):
    info = module_driver.get_server_info()
    assert "Neo4j/5" in info.agent
    assert bolt_server["startup_s"] < STARTUP_TIMEOUT_S
    print(f"\nBolt server: {info.agent}, protocol {info.protocol_version}, started in {bolt_server['startup_s']:.1f} s")


def test_export_counts_match_input_and_are_idempotent(driver, domain):
    graph = _graph()
    first = export_graph(driver, graph, domain, batch_size=3)
    expected_nodes = {
        "Entity": 8,
        "Chunk": 4,
        "Domain": len(domain.of_type("domain")),
        "Institution": len(domain.of_type("institution")),
        "Act": len(domain.of_type("act")),
        "Document": 0,
        "Version": 0,
        "Provision": 0,
    }  # no law given (tests/mendel/index/test_neo4j_export_law.py)
    expected_rels = _expected_relationships(graph, domain)
    # LAW_REF of 89/2012 (x2), 262/2006, 563/1991 reach act nodes, 26/2000 is not one; ČNB and
    # Krajský soud v Brně (→ krajské a okresní soudy) are institutions
    expected_rels["REFERS_TO"] = 6
    assert first["nodes"] == expected_nodes
    assert first["relationships"] == expected_rels
    assert first["pruned"] == {"nodes": 0, "relationships": 0}
    stored = count_graph(driver)
    assert stored == {"nodes": expected_nodes, "relationships": expected_rels}

    second = export_graph(driver, graph, domain, batch_size=500)
    assert count_graph(driver) == stored
    assert second["nodes"] == first["nodes"] and second["relationships"] == first["relationships"]
    assert second["pruned"] == {"nodes": 0, "relationships": 0}
    with driver.session() as session:
        record = session.run(
            "MATCH (a:Entity {id: $a})-[e:CO_OCCURS]->(b:Entity {id: $b}) RETURN e.weight AS w, count(e) AS n",
            a="LAW_REF:89/2012 Sb. § 2079",
            b="LAW_REF:89/2012 Sb. § 2099",
        ).single()
        assert (record["w"], record["n"]) == (2.0, 1)
        act = session.run(
            "MATCH (a:Act {id: 'act:89/2012'}) RETURN a.citation AS c, a.eli AS e, a.aliases AS al"
        ).single()
        assert (act["c"], act["e"]) == ("89/2012 Sb.", "/eli/cz/sb/2012/89")
        assert "NOZ" in act["al"]


def test_changed_graph_is_mirrored(driver, domain):
    graph = _graph()
    export_graph(driver, graph, domain)
    smaller = _graph()
    gone = "INSTITUTION:Krajský soud v Brně"
    smaller["nodes"] = [n for n in smaller["nodes"] if n["id"] != gone]
    smaller["edges"] = [e for e in smaller["edges"] if gone not in (e["source"], e["target"])]
    smaller["edges"][0]["weight"] = 3.0
    del smaller["chunk_entities"]["c3"]
    result = export_graph(driver, smaller, domain)
    # the entity and chunk c3, and their edges: a CO_OCCURS, a REFERS_TO and c3's two MENTIONS
    assert result["pruned"] == {"nodes": 2, "relationships": 4}
    stored = count_graph(driver)
    assert stored["nodes"]["Entity"] == 7 and stored["nodes"]["Chunk"] == 3
    assert stored["relationships"]["CO_OCCURS"] == 3
    # only co-occurrences of weight >= 1: the 0.5 edge (document-level only) goes, its nodes stay
    result = export_graph(driver, smaller, domain, min_weight=1.0)
    assert result["skipped"]["below_min_weight"] == 1
    assert result["pruned"] == {"nodes": 0, "relationships": 1}
    assert count_graph(driver)["relationships"]["CO_OCCURS"] == 2
    with driver.session() as session:
        assert (
            session.run(
                "MATCH (:Entity {id: $a})-[e:CO_OCCURS]->() RETURN max(e.weight) AS w", a="LAW_REF:89/2012 Sb. § 2079"
            ).single()["w"]
            == 3.0
        )


def test_path_queries(driver, domain):
    export_graph(driver, _graph(), domain)
    with driver.session() as session:
        # entity -CO_OCCURS- entity -REFERS_TO-> act -GOVERNS-> domain
        rows = session.run(
            "MATCH p = (x:Entity {id: $x})-[:CO_OCCURS]-(y:Entity)-[:REFERS_TO]->(a:Act)-[:GOVERNS]->(d:Domain)"
            " RETURN y.id AS y, a.citation AS act, d.id AS domain, length(p) AS hops ORDER BY domain",
            x="LAW_REF:563/1991 Sb. § 24 odst. 3",
        ).data()
        assert {(r["y"], r["act"], r["hops"]) for r in rows} == {("LAW_REF:262/2006 Sb. § 52", "262/2006 Sb.", 3)}
        # the labour code governs labour law and its topics (zkušební doba, dovolená, …)
        assert {"domain:pracovni-pravo", "domain:zkusebni-doba"} <= {r["domain"] for r in rows}
        # act -GOVERNS-> domain -PART_OF-> domain, and who supervises it
        rows = session.run(
            "MATCH (a:Act {citation: $c})-[:GOVERNS]->(d:Domain)-[:PART_OF]->(p:Domain)"
            " RETURN d.id AS d, p.id AS p ORDER BY d, p",
            c="89/2012 Sb.",
        ).data()
        assert {"d": "domain:kupni-smlouva", "p": "domain:obcanske-pravo"} in rows
        rows = session.run(
            "MATCH (i:Institution)-[:SUPERVISES]->(d:Domain {id: 'domain:bankovnictvi'}) RETURN i.name AS name"
        ).data()
        assert rows == [{"name": "Česká národní banka"}]
        # chunk -MENTIONS-> entity -REFERS_TO-> institution
        rows = session.run(
            "MATCH (c:Chunk)-[:MENTIONS]->(:Entity)-[:REFERS_TO]->(i:Institution {id: 'inst:cnb'}) RETURN c.id AS chunk"
        ).data()
        assert rows == [{"chunk": "c1"}]


HOSTILE = [
    'it\'s "quoted" and \\backslashed\\',
    "'); DROP DATABASE mendel; //",
    "}) MATCH (n) DETACH DELETE n //",
    '"}) WITH 1 AS x MATCH (n) DETACH DELETE n RETURN 1 AS c //',
    "$rows ${stamp} `backtick` {id: 'x'}",
    "čeština ÚS 2265/13 § 2079 — emoji 🙂 and \u200b zero width",
]


def test_hostile_strings_are_stored_verbatim(driver, domain):
    graph = _graph()
    for i, text in enumerate(HOSTILE):
        graph["nodes"].append({"id": f"LAW_REF:{text}", "label": "LAW_REF", "norm": text, "eli": text, "chunks": i})
        graph["chunk_entities"][f"chunk {text}"] = [f"LAW_REF:{text}"]
    graph["edges"].append({"source": f"LAW_REF:{HOSTILE[1]}", "target": f"LAW_REF:{HOSTILE[2]}", "weight": 1.0})
    # NUL bytes in a value are removed; the rest of the value survives
    graph["nodes"].append({"id": "LAW_REF:nul", "label": "LAW_REF", "norm": "a\x00b", "eli": None, "chunks": 1})
    result = export_graph(driver, graph, domain)
    assert result["cleaned_values"] == 1
    with driver.session() as session:
        stored = {
            r["id"]: r["norm"]
            for r in session.run("MATCH (n:Entity) WHERE n.id STARTS WITH 'LAW_REF:' RETURN n.id AS id, n.norm AS norm")
        }
        for text in HOSTILE:
            assert stored[f"LAW_REF:{text}"] == text
        assert stored["LAW_REF:nul"] == "ab"
        chunks = {r["id"] for r in session.run("MATCH (c:Chunk) RETURN c.id AS id")}
        assert {f"chunk {t}" for t in HOSTILE} <= chunks
        # nothing was dropped or deleted by any of them
    counts = count_graph(driver)
    assert counts["nodes"]["Entity"] == 8 + len(HOSTILE) + 1
    assert counts["nodes"]["Act"] == len(domain.of_type("act"))
    assert counts["relationships"]["CO_OCCURS"] == 5


@pytest.mark.parametrize("bad_id", ["LAW_REF:a\x00b", "LAW_REF:\ud800", "", None])
def test_unstorable_ids_are_rejected_before_writing(driver, domain, bad_id):
    graph = _graph()
    graph["nodes"].append({"id": bad_id, "label": "LAW_REF", "norm": "x", "eli": None, "chunks": 1})
    with pytest.raises(ValueError, match="id"):
        export_graph(driver, graph, domain)
    assert count_graph(driver)["nodes"]["Entity"] == 0  # rejected before any write


def test_statements_are_constant_and_parameterised():
    statements = [*CONSTRAINT_STATEMENTS.values(), *NODE_STATEMENTS.values(), *RELATIONSHIP_STATEMENTS.values()]
    for statement in statements:
        assert "apoc" not in statement.lower()
        assert "'" not in statement and '"' not in statement  # no literal values at all
    for statement in [*NODE_STATEMENTS.values(), *RELATIONSHIP_STATEMENTS.values()]:
        assert statement.startswith("UNWIND $rows AS r MERGE") or statement.startswith("UNWIND $rows AS r MATCH")
    assert all("IF NOT EXISTS" in s for s in CONSTRAINT_STATEMENTS.values())


def test_constraints_exist_and_hold(driver, domain):
    export_graph(driver, _graph(), domain)
    with driver.session() as session:
        constraints = session.run("SHOW CONSTRAINTS").data()
        with pytest.raises(neo4j.exceptions.Neo4jError):
            session.run("CREATE (n:Entity {id: $id})", id="LAW_REF:89/2012 Sb. § 2079").consume()
    assert {c["name"] for c in constraints} >= {
        "mendel_entity_id",
        "mendel_chunk_id",
        "mendel_act_id",
        "mendel_domain_id",
        "mendel_institution_id",
    }


@pytest.mark.slow
def test_larger_graph_in_batches(driver, domain):
    """2,000 entities, 6,000 co-occurrences, 1,000 chunks: counts and timing at the default batch size."""
    n_entities, n_chunks = 2000, 1000
    ids = [f"LAW_REF:89/2012 Sb. § {i}" for i in range(n_entities)]
    graph = {
        "nodes": [
            {"id": eid, "label": "LAW_REF", "norm": eid[8:], "eli": "/eli/cz/sb/2012/89", "chunks": 1} for eid in ids
        ],
        "edges": [
            {"source": ids[i], "target": ids[(i * 7 + j) % n_entities], "weight": 1.0}
            for i in range(n_entities)
            for j in (1, 2, 3)
            if i != (i * 7 + j) % n_entities
        ],
        "chunk_entities": {f"chunk-{c}": sorted({ids[c], ids[(c * 3) % n_entities]}) for c in range(n_chunks)},
    }
    pairs = {}
    for e in graph["edges"]:
        pairs.setdefault((e["source"], e["target"]), e)
    graph["edges"] = list(pairs.values())
    started = time.monotonic()
    result = export_graph(driver, graph, domain)
    seconds = time.monotonic() - started
    assert result["nodes"]["Entity"] == n_entities and result["nodes"]["Chunk"] == n_chunks
    assert result["relationships"]["CO_OCCURS"] == len(graph["edges"])
    assert result["relationships"]["REFERS_TO"] == n_entities
    stored = count_graph(driver)
    assert stored["relationships"]["CO_OCCURS"] == len(graph["edges"])
    assert stored["relationships"]["MENTIONS"] == sum(len(v) for v in graph["chunk_entities"].values())
    print(
        f"\nexported {sum(result['nodes'].values())} nodes, {sum(result['relationships'].values())} relationships"
        f" in {result['batches']} batches, {seconds:.1f} s"
    )


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv("MENDEL_NEO4J_URL", "bolt://db.example:7687")
    monkeypatch.setenv("MENDEL_NEO4J_USER", "mendel")
    monkeypatch.setenv("MENDEL_NEO4J_PASSWORD", "s3cret")
    monkeypatch.delenv("MENDEL_NEO4J_DATABASE", raising=False)
    settings = neo4j_settings()
    assert (settings.url, settings.user, settings.password, settings.database) == (
        "bolt://db.example:7687",
        "mendel",
        "s3cret",
        None,
    )
    assert settings.configured and "s3cret" not in repr(settings)
    assert not neo4j_settings({}).configured
    with pytest.raises(RuntimeError, match="MENDEL_NEO4J_URL"):
        connect(neo4j_settings({}))


def test_bad_batch_size(module_driver, domain):
    with pytest.raises(ValueError, match="batch_size"):
        export_graph(module_driver, _graph(), domain, batch_size=0)
