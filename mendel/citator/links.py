"""Citations that are not NER mentions, kept in ``citation_links``: e-Sbírka's own cross-references (the
``odkazyZFragmentu`` of each act's latest version, with the citing provision's wording as the sentence), the AMENDS
/ REPEALS relations read from amending acts (naming the version of the amended act they produced when a stored
version lists the amending act among its ``novely``), the references each line of a court record without
decision text names, and the provisions a decision's own metadata lists (mendel.citator.court_links)."""

from __future__ import annotations

import psycopg

from mendel.citator.citing_passages import clip
from mendel.citator.court_links import court_metadata_links
from mendel.citator.targets import Target, decision_target, law_target
from mendel.law.identifiers import parse_citation
from mendel.law.provision_tree import provision_from_anchor
from mendel.records.citation_records import CITATION_RECORD


def build_links(conn: psycopg.Connection) -> dict:
    """``citation_links`` anew from e-Sbírka's references, the AMENDS / REPEALS relations, the citation records and
    the courts' metadata; returns the count of each (and how the courts' and the recogniser's witnesses agree)."""
    counts = {"odkaz": 0, "amends": 0, "repeals": 0, "record": 0}
    rows: list[tuple] = []
    # e-Sbírka's odkazyZFragmentu of each act's latest version, with the citing provision's wording
    for doc_id, version, _kind, citation, anchor, text in conn.execute(
        "WITH latest AS (SELECT DISTINCT ON (doc_id) doc_id, version FROM act_versions"
        "  ORDER BY doc_id, effective_from DESC NULLS LAST, version DESC),"
        " fragments AS (SELECT p.doc_id, p.version, coalesce(p.heading || ' ', '') || p.text AS text,"
        "  unnest(p.fragment_ids) AS fragment_id FROM provisions p JOIN latest USING (doc_id, version))"
        " SELECT r.doc_id, r.version, r.kind, r.target_citation, r.target_provision, f.text"
        " FROM act_references r JOIN latest USING (doc_id, version)"
        " LEFT JOIN fragments f ON f.doc_id = r.doc_id AND f.version = r.version AND f.fragment_id = r.fragment_id"
        " WHERE r.target_citation IS NOT NULL ORDER BY r.doc_id, r.odkaz_id"
    ):
        from mendel.citator.wording import provision_key

        rows.append(
            (
                "odkaz",
                "act",
                citation,
                provision_key(provision_from_anchor(anchor)),
                doc_id,
                version,
                None,
                None,
                clip(text),
                None,
            )
        )
        counts["odkaz"] += 1
    # AMENDS / REPEALS: the amending act's statement; the version it produced where a stored version names it
    produced = {}
    for doc_id, version, amended_by in conn.execute(
        "SELECT doc_id, version, amended_by FROM act_versions WHERE jsonb_array_length(amended_by) > 0"
    ):
        for amending in amended_by:
            produced[(doc_id, amending.get("citation"))] = version
    for kind, subject, object_norm, page_no, evidence, citing_doc in conn.execute(
        "SELECT r.kind, r.subject_norm, r.object_norm, r.page_no, r.evidence, v.doc_id FROM relations r"
        " JOIN document_versions v ON v.version_id = r.version_id"
        " JOIN documents d ON d.doc_id = v.doc_id AND d.current_version_id = v.version_id"
        " WHERE r.kind IN ('AMENDS', 'REPEALS')"
    ):
        target = law_target(object_norm)
        if target is None:
            continue
        act = parse_citation(target.key)
        version = produced.get((act.eli, subject)) if act else None
        rows.append(
            (
                kind.lower(),
                "act",
                target.key,
                target.provision,
                citing_doc,
                None,
                version,
                page_no,
                clip(evidence),
                None,
            )
        )
        counts[kind.lower()] += 1
    # citation records: the decisions and acts their lines name (not the record's own file number), each once per
    # record, with the shortest line naming it as the sentence
    from mendel.ner import recognise

    records = conn.execute(
        "SELECT d.doc_id, d.citation, p.page_no, p.text FROM documents d"
        " JOIN pages p ON p.version_id = d.current_version_id"
        " WHERE d.doc_type = %s AND d.status = 'active' ORDER BY d.doc_id, p.page_no",
        (CITATION_RECORD,),
    ).fetchall()
    lines = [
        (doc_id, own, page_no, line.strip())
        for doc_id, own, page_no, text in records
        for line in text.splitlines()
        if line.strip()
    ]
    named: dict[tuple, tuple] = {}
    for (doc_id, own, page_no, line), entities in zip(lines, recognise([line for *_, line in lines])):
        own_keys = {k.lower() for k in (decision_target(own or "") or Target("decision", "")).keys} | {doc_id.lower()}
        for entity in entities:
            target = (
                decision_target(entity.norm)
                if entity.label == "DECISION_REF"
                else law_target(entity.norm)
                if entity.label == "LAW_REF"
                else None
            )
            if target is None or target.key.lower() in own_keys:
                continue
            key = (doc_id, target.kind, target.key, target.provision)
            if key not in named or len(line) < len(named[key][1]):
                named[key] = (page_no, line, entity.text)
    for (doc_id, kind, target_key, provision), (page_no, line, surface) in named.items():
        rows.append(("record", kind, target_key, provision, doc_id, None, None, page_no, clip(line), surface))
        counts["record"] += 1
    # the court's own witness: the provisions each decision's metadata lists (mendel.citator.court_links)
    metadata_rows, metadata_counts = court_metadata_links(conn)
    rows += metadata_rows
    counts.update(metadata_counts)
    with conn.transaction():
        conn.execute("DELETE FROM citation_links")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO citation_links (origin, target_kind, target_key, target_provision, citing_doc_id,"
                " citing_version, produces_version, page, sentence, surface) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
                " %s, %s)",
                rows,
            )
    return counts
