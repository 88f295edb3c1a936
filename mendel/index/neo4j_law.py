"""The law in time as rows of the Neo4j graph (:mod:`mendel.index.neo4j_schema`), read from PostgreSQL: the stored
documents, the act versions and their provisions, and the citator's CITES / AMENDS / REPEALS."""

from __future__ import annotations

from mendel.index.neo4j_schema import DOCUMENT, PROVISION, VERSION
from mendel.law.identifiers import parse_citation


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
