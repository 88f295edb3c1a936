"""Export the entity co-occurrence graph (``graph.json`` of ``mendel.nightly.index_stage.build_graph``) and the domain graph to
Neo4j, or any Bolt server that speaks Neo4j 5 Cypher (ArcadeDB's Bolt plugin is what the tests run against).

Model (every node keyed by a canonical ``id`` with a uniqueness constraint):

    (:Entity {id, label, norm, eli, chunks})      id = "LAW_REF:89/2012 Sb. § 2079", "INSTITUTION:Česká národní banka"
    (:Chunk {id})                                  chunk id of the bundle
    (:Domain|:Institution|:Act {id, name, aliases, vocabulary[, citation, eli, title]})   from domain.yaml

    (:Entity)-[:CO_OCCURS {weight}]->(:Entity)     source < target, as in graph.json
    (:Chunk)-[:MENTIONS]->(:Entity)
    (:Act)-[:GOVERNS]->(:Domain)   (:Institution)-[:SUPERVISES]->(:Domain)   (:Domain)-[:PART_OF]->(:Domain)
    (:Act)-[:AMENDS]->(:Act)
    (:Entity)-[:REFERS_TO]->(:Act)            a LAW_REF whose act (by ELI or citation) is a domain-graph act
    (:Entity)-[:REFERS_TO]->(:Institution)    an INSTITUTION whose norm is an institution's name or alias

The law in time (``law_graph`` reads it from PostgreSQL: documents, ``act_versions``, ``provisions``, the citator):

    (:Document {id, title, source, citation, published, kind, stored})   id = doc_id; a cited or amending act or
                                               decision that is not stored is a Document with stored = false
    (:Version {id, doc_id, version, eli, effective_from, effective_to, number})      id = the version ELI
    (:Provision {id, provision, version, doc_id, effective_from, effective_to, heading, text, seq})
                                               provision = "§ 4 písm. a)" (stable between versions), id = version#provision
    (:Document)-[:HAS_VERSION]->(:Version)-[:HAS_PROVISION]->(:Provision)
    (:Document)-[:CITES {provision, citations}]->(:Document)      one per cited provision ('' = the act itself)
    (:Document)-[:AMENDS|REPEALS {version, effective_from}]->(:Document)    version: the ELI of the version it produced
Dates travel as ISO strings (they sort in time order).

Writes are idempotent: constraints first (``CREATE CONSTRAINT ... IF NOT EXISTS``), then batched
``UNWIND $rows AS r MERGE ...`` statements in managed write transactions. Every value travels as a parameter;
the only text put into Cypher is the fixed labels and relationship types above. No APOC. Each export stamps what
it writes (``export_stamp``); with ``prune=True`` (default) nodes and relationships of these labels and types
that the export did not write are deleted afterwards, so the database mirrors the input exactly.

Strings: a NUL byte or an unpaired surrogate in an id is rejected (``ValueError``, before anything is written);
in any other string value NUL bytes are removed and unpaired surrogates replaced by U+FFFD, and counted.
"""

from __future__ import annotations

import math
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

from mendel.law.domain_graph import DomainGraph
from mendel.law.identifiers import parse_citation

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


# --- connection settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Neo4jSettings:
    url: str | None
    user: str | None
    password: str | None = field(default=None, repr=False)
    database: str | None = None  # None: the server's default database

    @property
    def configured(self) -> bool:
        return bool(self.url)


def neo4j_settings(environ: dict[str, str] | None = None) -> Neo4jSettings:
    """``MENDEL_NEO4J_URL`` (``bolt://host:7687`` / ``neo4j://...``), ``MENDEL_NEO4J_USER``,
    ``MENDEL_NEO4J_PASSWORD`` (a secret) and the optional ``MENDEL_NEO4J_DATABASE``."""
    env = os.environ if environ is None else environ
    return Neo4jSettings(
        url=env.get("MENDEL_NEO4J_URL") or None,
        user=env.get("MENDEL_NEO4J_USER") or None,
        password=env.get("MENDEL_NEO4J_PASSWORD") or None,
        database=env.get("MENDEL_NEO4J_DATABASE") or None,
    )


def connect(settings: Neo4jSettings | None = None):
    """A ``neo4j.Driver`` for the configured server (connectivity verified)."""
    import neo4j

    settings = settings or neo4j_settings()
    if not settings.configured:
        raise RuntimeError("MENDEL_NEO4J_URL is not set")
    auth = (settings.user or "neo4j", settings.password or "") if settings.user or settings.password else None
    driver = neo4j.GraphDatabase.driver(settings.url, auth=auth)
    try:
        driver.verify_connectivity()
    except BaseException:
        driver.close()
        raise
    return driver


# --- input preparation -----------------------------------------------------------------------------------


class _Cleaner:
    def __init__(self) -> None:
        self.cleaned = 0

    def id(self, value: Any, what: str) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"{what}: id must be a non-empty string, not {value!r}")
        if "\x00" in value:
            raise ValueError(f"{what}: id {value!r} contains a NUL byte")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{what}: id {value!r} is not valid Unicode (unpaired surrogate)") from None
        return value

    def text(self, value: Any) -> str | None:
        if value is None:
            return None
        value = str(value)
        clean = value
        if "\x00" in clean:
            clean = clean.replace("\x00", "")
        if not _encodable(clean):
            clean = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in clean)
        if clean != value:
            self.cleaned += 1
        return clean

    def texts(self, values: Iterable[Any]) -> list[str]:
        return [self.text(v) for v in values]


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


LAW_LABELS = (DOCUMENT, VERSION, PROVISION)
LAW_RELATIONSHIPS = ("HAS_VERSION", "HAS_PROVISION", "CITES", "AMENDS_DOCUMENT", "REPEALS")


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def law_graph(conn) -> dict:
    """Documents, act versions, their provisions and the citator's CITES / AMENDS / REPEALS from PostgreSQL
    (a ``psycopg`` connection), as ``{"nodes": {label: rows}, "relationships": {key: rows}}`` for ``export_graph``.
    A cited or amending act or decision that is not stored becomes a Document with ``stored = False``, keyed by
    its ELI (acts) or its canonical file number (decisions)."""
    documents: dict[str, dict] = {}
    by_citation: dict[str, str] = {}
    for doc_id, title, source, citation, published, kind in conn.execute(
        "SELECT doc_id, title, source, citation, published, doc_type FROM documents WHERE status = 'active'"
        " ORDER BY doc_id"
    ):
        documents[doc_id] = {
            "id": doc_id,
            "title": title,
            "source": source,
            "citation": citation,
            "published": _iso(published),
            "kind": kind,
            "stored": True,
        }
        if citation:
            by_citation.setdefault(citation.casefold(), doc_id)

    def document_for(key: str, kind: str) -> str:
        """The stored document a citation names, or a placeholder Document for it."""
        if key.casefold() in by_citation:
            return by_citation[key.casefold()]
        act = parse_citation(key) if kind == "act" else None
        doc_id = act.eli if act else key
        documents.setdefault(
            doc_id,
            {
                "id": doc_id,
                "title": None,
                "source": None,
                "citation": key,
                "published": None,
                "kind": kind,
                "stored": False,
            },
        )
        return doc_id

    versions: dict[tuple[str, str], dict] = {}
    amended_by: list[tuple[str, dict, list]] = []
    for doc_id, version, eli, start, end, number, amending in conn.execute(
        "SELECT doc_id, version, version_eli, effective_from, effective_to, version_number, amended_by"
        " FROM act_versions WHERE version <> '0000-00-00' ORDER BY doc_id, effective_from NULLS FIRST, version"
    ):
        if doc_id not in documents:
            continue
        versions[(doc_id, version)] = {
            "id": eli or f"{doc_id}/{version}",
            "doc_id": doc_id,
            "version": version,
            "eli": eli,
            "effective_from": _iso(start),
            "effective_to": _iso(end),
            "number": number,
        }
        amended_by.append((doc_id, versions[(doc_id, version)], amending or []))
    provisions = []
    for doc_id, version, provision_id, heading, text, seq in conn.execute(
        "SELECT doc_id, version, provision_id, heading, text, seq FROM provisions ORDER BY doc_id, version, seq"
    ):
        owner = versions.get((doc_id, version))
        if owner is not None:
            provisions.append(
                {
                    "id": f"{owner['id']}#{provision_id}",
                    "provision": provision_id,
                    "version": owner["id"],
                    "doc_id": doc_id,
                    "effective_from": owner["effective_from"],
                    "effective_to": owner["effective_to"],
                    "heading": heading,
                    "text": text,
                    "seq": seq,
                }
            )

    # CITES: NER mentions (through citation_targets) and the citator's links other than amendments
    cites = []
    for citing, kind, key, provision, count in conn.execute(
        "WITH hits AS ("
        " SELECT c.doc_id AS citing, t.target_kind AS kind, t.target_key AS key, t.target_provision AS provision"
        " FROM citation_targets t JOIN mentions m ON m.entity_id = t.entity_id"
        " JOIN chunks c ON c.chunk_id = m.chunk_id AND c.layer = 3"
        " UNION ALL SELECT citing_doc_id, target_kind, target_key, target_provision FROM citation_links"
        " WHERE origin IN ('odkaz', 'record'))"
        " SELECT citing, kind, min(key), provision, count(*) FROM hits"
        " GROUP BY citing, kind, lower(key), provision ORDER BY 1, 3, 4"
    ):
        if citing not in documents:
            continue
        target = document_for(key, kind)
        if target != citing:
            cites.append({"source": citing, "target": target, "provision": provision, "citations": count})

    # AMENDS / REPEALS: the amending acts' statements and the amending acts each version names, keyed by the
    # version they produced ('' when not known)
    changes: dict[str, dict[tuple, dict]] = {"AMENDS_DOCUMENT": {}, "REPEALS": {}}
    for origin, citing, key, produced in conn.execute(
        "SELECT origin, citing_doc_id, target_key, produces_version FROM citation_links"
        " WHERE origin IN ('amends', 'repeals') ORDER BY link_id"
    ):
        target = document_for(key, "act")
        version = versions.get((target, produced)) if produced else None
        row = {
            "source": citing,
            "target": target,
            "version": version["id"] if version else "",
            "effective_from": version["effective_from"] if version else None,
        }
        if citing in documents and citing != target:
            changes["AMENDS_DOCUMENT" if origin == "amends" else "REPEALS"].setdefault(
                (citing, target, row["version"]), row
            )
    for doc_id, version, amending in amended_by:
        for act in amending:
            citation = act.get("citation") if isinstance(act, dict) else None
            if citation:
                source = document_for(citation, "act")
                changes["AMENDS_DOCUMENT"].setdefault(
                    (source, doc_id, version["id"]),
                    {
                        "source": source,
                        "target": doc_id,
                        "version": version["id"],
                        "effective_from": version["effective_from"],
                    },
                )
    # a statement whose version is unknown adds nothing where the same pair has a known one
    for rows in changes.values():
        known = {(s, t) for s, t, v in rows if v}
        for s, t, v in list(rows):
            if not v and (s, t) in known:
                del rows[(s, t, v)]

    return {
        "nodes": {DOCUMENT: list(documents.values()), VERSION: list(versions.values()), PROVISION: provisions},
        "relationships": {
            "HAS_VERSION": [{"source": v["doc_id"], "target": v["id"]} for v in versions.values()],
            "HAS_PROVISION": [{"source": p["version"], "target": p["id"]} for p in provisions],
            "CITES": cites,
            "AMENDS_DOCUMENT": list(changes["AMENDS_DOCUMENT"].values()),
            "REPEALS": list(changes["REPEALS"].values()),
        },
    }


def _prepare_law(law: dict, clean: "_Cleaner", nodes: dict, rels: dict) -> None:
    for label in LAW_LABELS:
        seen: set[str] = set()
        for raw in law.get("nodes", {}).get(label, []):
            nid = clean.id(raw.get("id"), label.lower())
            if nid in seen:
                raise ValueError(f"{label.lower()} {nid!r} is listed twice")
            seen.add(nid)
            row = {"id": nid}
            for prop in NODE_PROPERTIES[label]:
                value = raw.get(prop)
                row[prop] = clean.text(value) if isinstance(value, str) else value
            nodes[label].append(row)
    for key in LAW_RELATIONSHIPS:
        props = (*RELATIONSHIPS[key][2], *REL_MERGE_KEYS.get(key, ()))
        for raw in law.get("relationships", {}).get(key, []):
            row = {"source": clean.id(raw.get("source"), key), "target": clean.id(raw.get("target"), key)}
            for prop in props:
                value = raw.get(prop)
                row[prop] = clean.text(value) if isinstance(value, str) else value
            for prop in REL_MERGE_KEYS.get(key, ()):
                if row[prop] is None:
                    row[prop] = ""  # MERGE can't match on a null property
            rels[key].append(row)


def prepare(
    graph: dict,
    domain: DomainGraph,
    min_weight: float = 0.0,
    law: dict | None = None,
) -> tuple[dict[str, list[dict]], dict[str, list[dict]], dict]:
    """Rows for every node label and relationship statement, plus counts of what was skipped or cleaned.
    Raises ValueError for ids that can't be stored (NUL, unpaired surrogates, duplicates)."""
    clean = _Cleaner()
    nodes: dict[str, list[dict]] = {label: [] for label in NODE_LABELS}
    rels: dict[str, list[dict]] = {key: [] for key in RELATIONSHIPS}
    skipped = {"edges": 0, "mentions": 0, "below_min_weight": 0}

    entities: dict[str, dict] = {}
    for raw in graph.get("nodes", []):
        eid = clean.id(raw.get("id"), "entity")
        if eid in entities:
            raise ValueError(f"entity {eid!r} is listed twice")
        chunks = raw.get("chunks")
        entities[eid] = {
            "id": eid,
            "label": clean.text(raw.get("label")),
            "norm": clean.text(raw.get("norm")),
            "eli": clean.text(raw.get("eli")),
            "chunks": int(chunks) if chunks is not None else None,
        }
    nodes[ENTITY] = list(entities.values())

    seen_pairs: set[tuple[str, str]] = set()
    for raw in graph.get("edges", []):
        source, target = clean.id(raw.get("source"), "edge"), clean.id(raw.get("target"), "edge")
        weight = float(raw.get("weight", 1.0))
        if source not in entities or target not in entities or not math.isfinite(weight):
            skipped["edges"] += 1
            continue
        if (source, target) in seen_pairs:
            raise ValueError(f"edge {source!r} -> {target!r} is listed twice")
        seen_pairs.add((source, target))
        if weight < min_weight:
            skipped["below_min_weight"] += 1
            continue
        rels["CO_OCCURS"].append({"source": source, "target": target, "weight": weight})

    for chunk_id, members in (graph.get("chunk_entities") or {}).items():
        chunk_id = clean.id(chunk_id, "chunk")
        nodes[CHUNK].append({"id": chunk_id})
        for eid in dict.fromkeys(members):
            if clean.id(eid, f"chunk {chunk_id!r} entity") in entities:
                rels["MENTIONS"].append({"source": chunk_id, "target": eid})
            else:
                skipped["mentions"] += 1

    for node in domain.nodes.values():
        row = {
            "id": node.id,
            "name": clean.text(node.name),
            "aliases": clean.texts(node.aliases),
            "vocabulary": clean.texts(node.vocabulary),
        }
        if node.type == "act":
            row.update(citation=node.citation, eli=node.eli, title=node.title)
        nodes[LABEL_FOR_TYPE[node.type]].append(row)
    for edge in domain.edges:
        rels[edge.type.upper()].append({"source": edge.source, "target": edge.target})

    for entity in entities.values():
        if entity["label"] == "LAW_REF":
            act = (domain.act_for_eli(entity["eli"]) if entity["eli"] else None) or (
                domain.act_for_citation(entity["norm"]) if entity["norm"] else None
            )
            if act is not None:
                rels["REFERS_TO_ACT"].append({"source": entity["id"], "target": act.id})
        elif entity["label"] == "INSTITUTION" and entity["norm"]:
            institution = domain.institution_for_name(entity["norm"])
            if institution is not None:
                rels["REFERS_TO_INSTITUTION"].append({"source": entity["id"], "target": institution.id})
    if law:
        _prepare_law(law, clean, nodes, rels)
    return nodes, rels, {"skipped": skipped, "cleaned_values": clean.cleaned}


# --- export ---------------------------------------------------------------------------------------------


def _batches(rows: list[dict], size: int) -> Iterable[list[dict]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _write(tx, query: str, params: dict) -> int:
    record = tx.run(query, params).single()
    return int(record["c"]) if record is not None else 0


def _read(tx, query: str, params: dict) -> int:
    return _write(tx, query, params)


def ensure_constraints(session) -> None:
    for statement in CONSTRAINT_STATEMENTS.values():
        session.run(statement).consume()


def count_graph(driver, database: str | None = None) -> dict:
    """What the database holds now: nodes per label, relationships per type."""
    with driver.session(database=database) as session:
        return {
            "nodes": {label: session.execute_read(_read, q, {}) for label, q in COUNT_NODE_STATEMENTS.items()},
            "relationships": {
                rel: session.execute_read(_read, q, {}) for rel, q in COUNT_RELATIONSHIP_STATEMENTS.items()
            },
        }


def export_graph(
    driver,
    graph: dict,
    domain: DomainGraph,
    batch_size: int = 500,
    *,
    database: str | None = None,
    prune: bool = True,
    min_weight: float = 0.0,
    law: dict | None = None,
) -> dict:
    """Write the entity graph, the domain graph and the law in time (``law``, from :func:`law_graph`; without it
    Documents, Versions and Provisions are pruned like any node not written); returns counts of what was written (nodes per label,
    relationships per type, as confirmed by the server), pruned, skipped and cleaned, batches and seconds.

    ``min_weight`` leaves out co-occurrences lighter than it: ``build_graph`` gives 0.5 to a pair that only
    shares a document (most edges of a real run) and 1 per shared chunk, so ``min_weight=1`` keeps the pairs
    seen together in at least one chunk."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, not {batch_size!r}")
    started = time.monotonic()
    nodes, rels, notes = prepare(graph, domain, min_weight, law)  # before any write: bad ids fail here
    stamp = uuid.uuid4().hex
    written_nodes = {label: 0 for label in NODE_LABELS}
    written_rels: dict[str, int] = {}
    batches = 0
    with driver.session(database=database) as session:
        ensure_constraints(session)
        for label in NODE_LABELS:
            for rows in _batches(nodes[label], batch_size):
                written_nodes[label] += session.execute_write(
                    _write, NODE_STATEMENTS[label], {"rows": rows, "stamp": stamp}
                )
                batches += 1
        for key in RELATIONSHIPS:
            rel = REL_TYPE.get(key, key)
            written_rels.setdefault(rel, 0)
            for rows in _batches(rels[key], batch_size):
                written_rels[rel] += session.execute_write(
                    _write, RELATIONSHIP_STATEMENTS[key], {"rows": rows, "stamp": stamp}
                )
                batches += 1
        pruned = {"nodes": 0, "relationships": 0}
        if prune:
            # relationships first: a stale edge between two nodes that stay
            for query in PRUNE_RELATIONSHIP_STATEMENTS.values():
                pruned["relationships"] += _drain(session, query, stamp, batch_size)
            for query in PRUNE_NODE_STATEMENTS.values():
                pruned["nodes"] += _drain(session, query, stamp, batch_size)
    expected = {rel: 0 for rel in written_rels}
    for key, rows in rels.items():
        expected[REL_TYPE.get(key, key)] += len(rows)
    missing = {rel: expected[rel] - n for rel, n in written_rels.items() if n != expected[rel]}
    if missing:  # MATCH found no endpoint: another writer removed nodes while we ran
        raise RuntimeError(f"relationships not written (endpoint missing): {missing}")
    return {
        "nodes": written_nodes,
        "relationships": written_rels,
        "pruned": pruned,
        **notes,
        "batches": batches,
        "batch_size": batch_size,
        "stamp": stamp,
        "seconds": round(time.monotonic() - started, 3),
    }


def _drain(session, query: str, stamp: str, limit: int) -> int:
    total = 0
    while True:
        deleted = session.execute_write(_write, query, {"stamp": stamp, "limit": limit})
        total += deleted
        if deleted < limit:
            return total
