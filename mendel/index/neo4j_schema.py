"""The graph Mendel writes to Neo4j (or any Bolt server that speaks Neo4j 5 Cypher), and the fixed Cypher
statements that write, prune and count it. Every node is keyed by a canonical ``id`` with a uniqueness constraint:

* :Entity (``LAW_REF:89/2012 Sb. § 2079``) with CO_OCCURS {weight} between entities and MENTIONS from each :Chunk;
* :Domain, :Institution and :Act from the domain graph (GOVERNS, SUPERVISES, PART_OF, AMENDS), and REFERS_TO from a
  LAW_REF or INSTITUTION entity to the act or institution it names;
* the law in time (:mod:`mendel.index.neo4j_law`): :Document (``stored = false`` for a cited act or decision that
  is not stored) -HAS_VERSION-> :Version (id: the version ELI) -HAS_PROVISION-> :Provision (id:
  ``version#§ 4 písm. a)``), and CITES {provision, citations} / AMENDS / REPEALS {version, effective_from} between
  documents. Dates travel as ISO strings.

The only text put into Cypher is the fixed labels and relationship types below; every value travels as a parameter.
"""

from __future__ import annotations

import re

ENTITY, CHUNK, DOMAIN, INSTITUTION, ACT = "Entity", "Chunk", "Domain", "Institution", "Act"
DOCUMENT, VERSION, PROVISION = "Document", "Version", "Provision"
NODE_LABELS = (ENTITY, CHUNK, DOMAIN, INSTITUTION, ACT, DOCUMENT, VERSION, PROVISION)
LABEL_FOR_TYPE = {"domain": DOMAIN, "institution": INSTITUTION, "act": ACT}
# relationship type -> (source label, target label, properties besides the stamp)
RELATIONSHIPS = {
    "CO_OCCURS": (ENTITY, ENTITY, ("weight",)),
    "MENTIONS": (CHUNK, ENTITY, ()),
    "GOVERNS": (ACT, DOMAIN, ()),
    "SUPERVISES": (INSTITUTION, DOMAIN, ()),
    "PART_OF": (DOMAIN, DOMAIN, ()),
    "AMENDS": (ACT, ACT, ()),
    "REFERS_TO_ACT": (ENTITY, ACT, ()),
    "REFERS_TO_INSTITUTION": (ENTITY, INSTITUTION, ()),
    "HAS_VERSION": (DOCUMENT, VERSION, ()),
    "HAS_PROVISION": (VERSION, PROVISION, ()),
    "CITES": (DOCUMENT, DOCUMENT, ("citations",)),
    "AMENDS_DOCUMENT": (DOCUMENT, DOCUMENT, ("effective_from",)),
    "REPEALS": (DOCUMENT, DOCUMENT, ("effective_from",)),
}
# properties that tell apart several relationships of one type between the same two nodes (part of the MERGE)
REL_MERGE_KEYS = {"CITES": ("provision",), "AMENDS_DOCUMENT": ("version",), "REPEALS": ("version",)}
REL_TYPE = {
    "REFERS_TO_ACT": "REFERS_TO",
    "REFERS_TO_INSTITUTION": "REFERS_TO",
    "AMENDS_DOCUMENT": "AMENDS",
}  # statement key -> Cypher type
NODE_PROPERTIES = {
    ENTITY: ("label", "norm", "eli", "chunks"),
    CHUNK: (),
    DOMAIN: ("name", "aliases", "vocabulary"),
    INSTITUTION: ("name", "aliases", "vocabulary"),
    ACT: ("name", "aliases", "vocabulary", "citation", "eli", "title"),
    DOCUMENT: ("title", "source", "citation", "published", "kind", "stored"),
    VERSION: ("doc_id", "version", "eli", "effective_from", "effective_to", "number"),
    PROVISION: ("provision", "version", "doc_id", "effective_from", "effective_to", "heading", "text", "seq"),
}
STAMP = "export_stamp"


# --- the fixed statements ------------------------------------------------------------------------------
# Built once from the constant tables above: labels and types are never taken from data.


def _constraint(label: str) -> str:
    return f"CREATE CONSTRAINT mendel_{label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"


def _merge_nodes(label: str) -> str:
    sets = "".join(f"n.{p} = r.{p}, " for p in NODE_PROPERTIES[label])
    return f"UNWIND $rows AS r MERGE (n:{label} {{id: r.id}}) SET {sets}n.{STAMP} = $stamp RETURN count(n) AS c"


def _merge_relationships(key: str) -> str:
    source, target, props = RELATIONSHIPS[key]
    sets = "".join(f"e.{p} = r.{p}, " for p in props)
    keys = ", ".join(f"{p}: r.{p}" for p in REL_MERGE_KEYS.get(key, ()))
    return (
        f"UNWIND $rows AS r MATCH (a:{source} {{id: r.source}}) MATCH (b:{target} {{id: r.target}})"
        f" MERGE (a)-[e:{REL_TYPE.get(key, key)}{f' {{{keys}}}' if keys else ''}]->(b)"
        f" SET {sets}e.{STAMP} = $stamp RETURN count(e) AS c"
    )


def _check_identifiers() -> None:
    """Everything spliced into the statements is a plain identifier from the tables above (a safeguard for edits:
    a label or property name that is not must never reach Cypher text)."""
    names = [
        *NODE_LABELS,
        *RELATIONSHIPS,
        *REL_TYPE.values(),
        STAMP,
        *(p for props in NODE_PROPERTIES.values() for p in props),
        *(p for _, _, props in RELATIONSHIPS.values() for p in props),
        *(p for props in REL_MERGE_KEYS.values() for p in props),
    ]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n)]
    if bad:
        raise ValueError(f"not plain identifiers, refusing to build Cypher with them: {bad}")


_check_identifiers()
CONSTRAINT_STATEMENTS = {label: _constraint(label) for label in NODE_LABELS}
NODE_STATEMENTS = {label: _merge_nodes(label) for label in NODE_LABELS}
RELATIONSHIP_STATEMENTS = {key: _merge_relationships(key) for key in RELATIONSHIPS}
PRUNE_NODE_STATEMENTS = {
    label: f"MATCH (n:{label}) WHERE n.{STAMP} IS NULL OR n.{STAMP} <> $stamp"
    f" WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS c"
    for label in NODE_LABELS
}
PRUNE_RELATIONSHIP_STATEMENTS = {
    rel: f"MATCH ()-[e:{rel}]->() WHERE e.{STAMP} IS NULL OR e.{STAMP} <> $stamp"
    f" WITH e LIMIT $limit DELETE e RETURN count(*) AS c"
    for rel in sorted(set(REL_TYPE.get(k, k) for k in RELATIONSHIPS))
}
COUNT_NODE_STATEMENTS = {label: f"MATCH (n:{label}) RETURN count(n) AS c" for label in NODE_LABELS}
COUNT_RELATIONSHIP_STATEMENTS = {
    rel: f"MATCH ()-[e:{rel}]->() RETURN count(e) AS c" for rel in PRUNE_RELATIONSHIP_STATEMENTS
}
