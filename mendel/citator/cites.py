"""What cites a provision, an act, a court file number or an ECLI: every document and passage, grouped by the
family of the citing source (acts, decisions, notices, other), newest first, each with the citing sentence, its
page and date — read from the index the nightly build keeps (:mod:`mendel.citator.build`). A citation of ``§ 2
odst. 1`` also cites ``§ 2`` and the act; a file number stands for the ECLIs of the stored decisions that carry it."""

from __future__ import annotations

import psycopg
from psycopg import sql

from mendel.citator.citing_passages import page_of, passages_of, sentence_around
from mendel.citator.targets import Target, older_code_target, parse_target
from mendel.law.courts import LEVEL_LABELS, level_rank
from mendel.records.citation_records import CITATION_RECORD

FAMILIES = ("acts", "decisions", "notices", "other")


def _match_sql(target: Target, table: str) -> tuple[sql.Composed, list]:
    """WHERE clause matching the target (and, for a provision, everything below it)."""
    clause = "lower({t}.target_key) = ANY(%s) AND {t}.target_kind = %s"
    params: list = [[k.lower() for k in target.keys], target.kind]
    if target.provision:
        clause += " AND ({t}.target_provision = %s OR {t}.target_provision LIKE %s)"
        params += [target.provision, target.provision.replace("%", r"\%").replace("_", r"\_") + " %"]
    return sql.SQL(clause).format(t=sql.Identifier(table)), params


def _expand_decision_keys(conn: psycopg.Connection, target: Target, stored: list[dict]) -> Target:
    """A decision's keys with the ECLIs the ``stored`` decisions of that file number carry, and their file number."""
    keys = list(target.keys)
    for doc in stored:
        doc_id, citation = doc["doc_id"], doc["citation"]
        for key in (doc_id if doc_id.upper().startswith("ECLI:") else None, citation):
            if key and key.lower() not in {k.lower() for k in keys}:
                keys.append(key)
    # the key as citations spell it (an ECLI gives the register in capitals: 31 ND 200/2012 is 31 Nd 200/2012)
    spelled = conn.execute(
        "SELECT target_key FROM citation_targets WHERE lower(target_key) = %s LIMIT 1", (target.key.lower(),)
    ).fetchone()
    return Target(target.kind, spelled[0] if spelled else target.key, target.provision, tuple(keys))


STORED_TEXT_KINDS = {"act": ("law", "law_consolidated"), "decision": ("decision", CITATION_RECORD)}


def stored_documents(conn: psycopg.Connection, target: Target) -> list[dict]:
    """The collection's own documents of what ``target`` names (an act's texts, a decision or its citation record):
    whether the cited thing itself is here, beside who cites it."""
    keys = [k.lower() for k in target.keys]
    rows = conn.execute(
        "SELECT doc_id, title, doc_type, citation FROM documents WHERE doc_type = ANY(%s)"
        " AND (lower(citation) = ANY(%s) OR lower(doc_id) = ANY(%s)) ORDER BY doc_type, doc_id",
        (list(STORED_TEXT_KINDS[target.kind]), keys, keys),
    ).fetchall()
    return [
        {"doc_id": doc_id, "title": title, "kind": doc_type, "citation": citation, "text": doc_type != CITATION_RECORD}
        for doc_id, title, doc_type, citation in rows
    ]


def cites(conn: psycopg.Connection, ref: str, limit: int = 20, cut: bool = False) -> dict:
    """Everything citing ``ref``: ``{status, target, total_documents, total_citations, families: {acts|decisions|
    notices|other: {documents, citations, items: [{doc_id, title, citation, kind, date, citations, passages:
    [{sentence, page, cited, origins}]}]}}}``. Counts are every citing document and citation (``citation_totals``);
    each family lists its newest ``limit`` documents (``citation_index``), each with at most PASSAGES_PER_DOCUMENT
    passages (the same sentence on the same page once, with every way it was found): those the index holds ready
    for the document (``citation_index.passages``), cut on the call (:func:`_fill_passages`) for a document the
    index cannot answer alone — listed under two key forms of the target (a decision's file number and an ECLI
    that names none), or indexed before the passages were — or for every document with ``cut``."""
    target = parse_target(ref)
    if target is None:
        return {"ref": ref, "status": "not_a_reference", "message": f"{ref!r} names no act, provision or decision."}
    stored = stored_documents(conn, target)  # the cited act's or decision's own documents, under the keys asked
    if target.kind == "decision":
        target = _expand_decision_keys(conn, target, stored)
    keys = sorted({k.lower() for k in target.keys})
    scope = target.provision
    families = {name: {"documents": 0, "citations": 0, "items": []} for name in FAMILIES}
    # one statement: the totals per family, then the newest documents of each family and key form with their
    # ready passages (an ordered index range each; an empty family costs a probe). Planned for its values, never
    # prepared: a generic plan (chosen after a few runs of a prepared statement) cannot range-scan a provision's
    # LIKE prefix nor size the arrays, and at 1M passages cost ~100 ms of server CPU a call instead of ~10.
    parts = [
        sql.SQL(
            "SELECT 'total' AS row, family, NULL AS doc_id, NULL::date AS published,"
            " sum(documents)::int AS documents, sum(citations)::int AS citations, NULL::text[] AS samples,"
            " NULL::jsonb AS passages FROM citation_totals"
            " WHERE target_kind = %s AND key_folded = ANY(%s) AND scope = %s GROUP BY family"
        )
    ]
    params: list = [target.kind, keys, scope]
    for family in FAMILIES:
        for key in keys:
            parts.append(
                sql.SQL(
                    "(SELECT 'document', family, doc_id, published, NULL, citations, sample_chunks,"
                    " passages"
                    " FROM citation_index WHERE key_folded = %s AND scope = %s AND family = %s"
                    " AND target_kind = %s"
                    " ORDER BY published DESC NULLS LAST, doc_id DESC LIMIT %s)"
                )
            )
            params += [key, scope, family, target.kind, limit]
    ranked = conn.execute(
        sql.SQL(
            "WITH found AS ({found}) SELECT f.row, f.family, f.doc_id, f.published, f.documents,"
            " f.citations, f.samples, f.passages, d.title, d.citation, d.doc_type, d.source, d.current_version_id"
            " FROM found f LEFT JOIN documents d ON d.doc_id = f.doc_id"
        ).format(found=sql.SQL(" UNION ALL ").join(parts)),
        params,
        prepare=False,
    ).fetchall()
    merged: dict[str, list] = {}
    about: dict[str, tuple] = {}
    for row, family, doc_id, published, documents, count, samples, ready, *info in ranked:
        if row == "total":
            families[family]["documents"], families[family]["citations"] = documents, count
            continue
        about[doc_id] = tuple(info)
        known = merged.get(doc_id)
        if known is None:
            merged[doc_id] = [family, doc_id, published, count, list(samples), None if cut else ready]
        else:  # listed under another key form too: its passages are those of both, cut on the call
            known[3] += count
            known[4] += [s for s in samples if s not in known[4]]
            known[5] = None
    families_with = [name for name, counts in families.items() if counts["documents"]]
    listed: dict[str, dict] = {}
    samples: dict[str, list[str]] = {}
    for family in families_with:
        rows = sorted(
            (r for r in merged.values() if r[0] == family), key=lambda r: (r[2] is not None, r[2], r[1]), reverse=True
        )[:limit]
        for _, doc_id, published, count, chunk_ids, ready in rows:
            title, citation, doc_type, source, version_id = about.get(doc_id, (None,) * 5)
            doc = {
                "doc_id": doc_id,
                "title": title,
                "citation": citation,
                "kind": doc_type,
                "source": source,
                "date": published.isoformat() if published else None,
                "citations": count,
                "passages": [],
                "_version": version_id,
            }
            families[family]["items"].append(doc)
            listed[doc_id] = doc
            samples[doc_id] = chunk_ids
            if ready is not None:
                doc["passages"] = _ready(ready)
    if len(keys) > 1 and listed:
        # a document indexed under two key forms but listed under one (the other's newest did not reach it)
        for (doc_id,) in conn.execute(
            "SELECT doc_id FROM citation_index WHERE target_kind = %s AND key_folded = ANY(%s) AND scope = %s"
            " AND doc_id = ANY(%s) GROUP BY doc_id HAVING count(*) > 1",
            (target.kind, keys, scope, list(listed)),
            prepare=False,
        ):
            merged[doc_id][5] = None
    _fill_passages(conn, target, {d: doc for d, doc in listed.items() if merged[d][5] is None}, samples)
    for doc in listed.values():
        doc.pop("_version")
    _group_by_court_level(conn, families["decisions"], listed)
    total = sum(f["citations"] for f in families.values())
    documents = sum(f["documents"] for f in families.values())
    older = _older_code(conn, ref, target)
    return {
        "ref": ref,
        "status": "found" if total else "none",
        "target": {
            "kind": target.kind,
            "key": target.key,
            "provision": target.provision or None,
            "label": target.label,
            "matched_as": list(target.keys),
            "stored": stored,
        },
        "total_documents": documents,
        "total_citations": total,
        "families": families,
        "message": (
            f"{target.label}: cited {total} time(s) in {documents} document(s)"
            if total
            else f"{target.label}: no stored document cites it"
        )
        + (older["message"] if older else ""),
        **({"older_code": older} if older else {}),
    }


def _older_code(conn: psycopg.Connection, ref: str, target: Target) -> dict | None:
    """Where ``ref`` names a code by a form the code it replaced went by too ("tr. zák."): that code's same
    provision and how many documents cite it, so that the decisions of before the change are not silently
    elsewhere."""
    from mendel.ner.dated_wording import successions

    older = older_code_target(ref, target)
    if older is None:
        return None
    documents, citations = conn.execute(
        "SELECT coalesce(sum(documents), 0)::int, coalesce(sum(citations), 0)::int FROM citation_totals"
        " WHERE target_kind = 'act' AND key_folded = %s AND scope = %s",
        (older.key.lower(), older.provision),
    ).fetchone()
    effective = successions()[target.key].effective
    return {
        "key": older.key,
        "provision": older.provision or None,
        "label": older.label,
        "before": effective.isoformat(),
        "documents": documents,
        "citations": citations,
        "message": f"; the same words name {older.label} in decisions of before {effective.isoformat()}:"
        f" cited {citations} time(s) in {documents} document(s)",
    }


def _fill_passages(
    conn: psycopg.Connection, target: Target, listed: dict[str, dict], samples: dict[str, list[str]]
) -> None:
    """The citing passages of the listed documents cut on the call (what the index holds ready, for the documents
    it cannot answer alone: see :func:`cites`): the sentence around each mention in their sampled passages
    (``citation_index.sample_chunks``, read by primary key), and each link's own sentence (its page found in the
    document's text when the link does not say)."""
    for doc in listed.values():
        doc["passages"] = []
    if not listed:
        return
    # one statement: the mentions in the sampled passages (by primary key; materialised first, or a decision cited
    # 100k times is joined through all its mentions), those of the target, their passages' text, then the links;
    # never prepared (see cites)
    mention, mention_params = _match_sql(target, "t")
    link, link_params = _match_sql(target, "l")
    chunk_ids = [chunk_id for doc_id in listed for chunk_id in samples.get(doc_id, [])]
    rows = conn.execute(
        sql.SQL(
            "WITH sampled AS MATERIALIZED (SELECT chunk_id, entity_id, start_char, end_char FROM mentions"
            "  WHERE chunk_id = ANY(%s)),"
            " cited AS MATERIALIZED (SELECT m.chunk_id, m.start_char, m.end_char, t.target_key, t.target_provision"
            "  FROM sampled m JOIN citation_targets t ON t.entity_id = m.entity_id WHERE {mention})"
            " SELECT c.doc_id, 'mention', c.page_start, c.text, s.start_char, s.end_char, s.target_key, s.target_provision,"
            " NULL, c.seq FROM cited s JOIN chunks c ON c.chunk_id = s.chunk_id"
            " UNION ALL SELECT l.citing_doc_id, l.origin, l.page, l.sentence, NULL, NULL, l.target_key, l.target_provision,"
            " l.produces_version, NULL FROM citation_links l WHERE l.citing_doc_id = ANY(%s) AND {link}"
        ).format(mention=mention, link=link),
        [chunk_ids] + mention_params + [list(listed)] + link_params,
        prepare=False,
    ).fetchall()
    hits: dict[str, list] = {}
    for doc_id, origin, page, text, start, end, key, provision, produces, seq in rows:
        sentence = sentence_around(text, start, end) if origin == "mention" else text  # a link: its own sentence
        hits.setdefault(doc_id, []).append((page, start, origin, sentence, key, provision, produces, seq))
    pages_of: dict[int, list] = {}
    for doc_id, found in hits.items():
        version = listed[doc_id]["_version"]
        listed[doc_id]["passages"] = passages_of(found, lambda s, v=version: page_of(conn, v, s, pages_of))


def _group_by_court_level(conn: psycopg.Connection, decisions: dict, listed: dict[str, dict]) -> None:
    """Each listed decision with its court and level (court_decisions), and the family's ``by_court_level``: the
    levels highest first (Ústavní soud, the supreme courts, high, regional, district; then decisions whose court is
    not known), each with its decisions newest first."""
    ids = [doc["doc_id"] for doc in decisions["items"]]
    courts = dict.fromkeys(ids, (None, None))
    if ids:
        courts.update(
            (doc_id, (court, level))
            for doc_id, court, level in conn.execute(
                "SELECT doc_id, court, court_level FROM court_decisions WHERE doc_id = ANY(%s)", (ids,)
            )
        )
    groups: dict[str | None, list[dict]] = {}
    for doc in decisions["items"]:
        doc["court"], doc["court_level"] = courts[doc["doc_id"]]
        groups.setdefault(doc["court_level"], []).append(doc)
    decisions["by_court_level"] = [
        {
            "court_level": level,
            "label": LEVEL_LABELS.get(level, "soud neuveden"),
            "documents": len(docs),
            "items": sorted(docs, key=lambda d: (d["date"] or "", d["doc_id"]), reverse=True),
        }
        for level, docs in sorted(groups.items(), key=lambda item: level_rank(item[0]))
    ]


# Who found a citation, as an answer names it (a passage's ``origins``).
WITNESSES = {
    "mention": "recogniser",
    "court_metadata": "court metadata",
    "odkaz": "e-Sbírka",
    "record": "citation record",
    "amends": "amending act",
    "repeals": "repealing act",
}


def _ready(stored: list[dict]) -> list[dict]:
    """Passages as the index holds them (jsonb orders an object's keys its own way) in the answer's key order."""
    return [
        {
            "sentence": p["sentence"],
            "page": p["page"],
            "cited": p["cited"],
            "origins": p["origins"],
            **({"produces_version": p["produces_version"]} if "produces_version" in p else {}),
        }
        for p in stored
    ]


def _stored_line(target: dict) -> str:
    stored = target.get("stored") or []
    texts = [d for d in stored if d["text"]]
    if texts:
        return "in the collection: " + "; ".join(f"{d['title'] or d['doc_id']} ({d['doc_id']})" for d in texts)
    return "in the collection: a citation record only, not its text" if stored else "not in the collection itself"


def describe(answer: dict) -> str:
    """The answer as text for a terminal: decisions grouped by court level, each passage with its witnesses."""
    lines = [answer["message"], _stored_line(answer.get("target") or {})]
    for name, family in (answer.get("families") or {}).items():
        if not family["documents"]:
            continue
        lines.append(f"\n{name}: {family['documents']} document(s), {family['citations']} citation(s)")
        groups = family.get("by_court_level") or [{"label": None, "items": family["items"]}]
        for group in groups:
            indent = "  "
            if group["label"]:
                lines.append(f"  {group['label']} ({group['documents']})")
                indent = "    "
            for doc in group["items"]:
                court = f"  {doc['court']}" if doc.get("court") else ""
                lines.append(
                    f"{indent}{doc['date'] or '????-??-??'}  {doc['citation'] or doc['doc_id']}{court}"
                    f"  {(doc['title'] or '')[:70] if not court else ''}".rstrip()
                )
                for passage in doc["passages"][:3]:
                    page = f"p. {passage['page']}" if passage["page"] else "p. ?"
                    witnesses = ", ".join(WITNESSES.get(o, o) for o in passage["origins"])
                    lines.append(
                        f"{indent}    {page} [{', '.join(passage['cited'])}] ({witnesses}) {passage['sentence'] or ''}"[
                            :240
                        ]
                    )
                if len(doc["passages"]) > 3:
                    lines.append(f"{indent}    … {len(doc['passages']) - 3} more")
    return "\n".join(lines)
