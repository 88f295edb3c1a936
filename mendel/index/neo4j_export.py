"""Export the entity co-occurrence graph (``graph.json`` of the index stage), the domain graph and the law in time
to Neo4j, or any Bolt server that speaks Neo4j 5 Cypher (ArcadeDB's Bolt plugin is what the tests run against);
the graph is :mod:`mendel.index.neo4j_schema`.

Writes are idempotent: constraints first (``CREATE CONSTRAINT ... IF NOT EXISTS``), then batched
``UNWIND $rows AS r MERGE ...`` statements in managed write transactions. No APOC. Each export stamps what it
writes (``export_stamp``); with ``prune=True`` (default) nodes and relationships of the graph's labels and types
that the export did not write are deleted afterwards, so the database mirrors the input exactly.

Strings: a NUL byte or an unpaired surrogate in an id is rejected (``ValueError``, before anything is written);
in any other string value NUL bytes are removed and unpaired surrogates replaced by U+FFFD, and counted.
"""

from __future__ import annotations

import math
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

from mendel.index.neo4j_schema import (
    CHUNK,
    CONSTRAINT_STATEMENTS,
    COUNT_NODE_STATEMENTS,
    COUNT_RELATIONSHIP_STATEMENTS,
    DOCUMENT,
    ENTITY,
    LABEL_FOR_TYPE,
    NODE_LABELS,
    NODE_PROPERTIES,
    NODE_STATEMENTS,
    PROVISION,
    PRUNE_NODE_STATEMENTS,
    PRUNE_RELATIONSHIP_STATEMENTS,
    REL_MERGE_KEYS,
    REL_TYPE,
    RELATIONSHIP_STATEMENTS,
    RELATIONSHIPS,
    VERSION,
)
from mendel.law.domain_graph import DomainGraph

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
