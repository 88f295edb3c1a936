"""The recognition stage: entities and their mentions in every passage not yet recognised, and the AMENDS /
REPEALS relations of the versions those passages belong to; a failure quarantines one chunk or one version."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import psycopg

from mendel.core import stage_versions
from mendel.crawl import crawlstate

if TYPE_CHECKING:
    from mendel.ner.document_acts import DocumentActs


def recognise_pending(conn: psycopg.Connection, batch_size: int = 512) -> dict:
    """Entities (``mendel.ner.recognise``, ``batch_size`` chunks at a time) for chunks not yet processed; a bare §
    in a law resolves to that law, and what a document defines for itself (``(dále jen „a. t.“)``) holds in its
    later passages of the same layer, whichever of them are pending (``read_ahead`` counts the passages recognised
    before that were read again for it). A night with nothing to recognise and no relations to make imports none of
    the recogniser's modules (~1 s)."""
    documents: dict[tuple, DocumentActs] = {}  # per version and layer, across batches

    def recognised(batch: list) -> list:
        """Each pending row's entities (or the exception that stopped it); None for a row recognised before, which
        is only read ahead (``mendel.ner.rules.read_ahead``) so the pending rows after it read as in one pass."""
        from mendel.ner import recognise  # spaCy (~2 s to import): only when there is something to recognise
        from mendel.ner.document_acts import DocumentActs
        from mendel.ner.rules import read_ahead

        found: list = []
        for pending, run in itertools.groupby(batch, key=lambda row: row[6]):
            run = list(run)
            own = [
                documents.setdefault((version, layer), DocumentActs(decided=decided))
                for _, _, _, _, version, layer, _, decided in run
            ]
            if not pending:
                for (_, text, *_), document in zip(run, own):
                    if isinstance(text, str) and text:  # as recognise: an empty text moves nothing on
                        read_ahead(text, document)
                found.extend([None] * len(run))
                continue
            texts = [text for _, text, *_ in run]
            acts = [citation if source == "esbirka" else None for _, _, source, citation, *_ in run]
            try:
                found.extend(recognise(texts, default_act=acts, documents=own))
            except Exception:  # a recogniser bug must cost one chunk, not the night's run: find it
                for text, act, document in zip(texts, acts, own):
                    try:
                        alone = DocumentActs(decided=document.decided)  # the date holds, the definitions are lost
                        found.append(recognise([text], default_act=act, documents=[alone])[0])
                    except Exception as exc:
                        found.append(exc)
        return found

    # Called once the gate passed: passages another ner version recognised lose their mentions and come back here.
    reprocessed = stage_versions.reprocess_ner(conn)
    ner_version = stage_versions.version("ner")
    # A passage reads the acts its document defined before it (``(dále jen „PokZ“)``): the passages of a version and
    # layer with any passage pending are read in order, those recognised before only read ahead, so a passage gets
    # the entities one pass over the whole document gives, whichever of its passages a night recognises again.
    rows = conn.execute(
        "SELECT c.chunk_id, c.text, d.source, d.citation, c.version_id, c.layer, c.ner_done_at IS NULL,"
        " CASE WHEN d.doc_type = 'decision' THEN d.published END"  # a court's date: the codes then in force
        " FROM chunks c JOIN documents d USING (doc_id)"
        " WHERE (c.version_id, c.layer) IN (SELECT version_id, layer FROM chunks WHERE ner_done_at IS NULL)"
        " ORDER BY c.doc_id, c.version_id, c.layer, c.seq"
    ).fetchall()
    stats = {
        "chunks": 0,
        "read_ahead": 0,
        "mentions": 0,
        "quarantined": 0,
        "by_label": {},
        "relations": 0,
        "stage_version": ner_version,
        **reprocessed,
    }
    # amending-act relations need the whole text (a point's act is named pages before it): read per version
    relation_versions = {
        (version_id, source, citation)
        for _, _, source, citation, version_id, _, pending, _ in rows
        if citation and pending
    }
    stale_relations = set(stage_versions.reprocess_relations(conn)) - relation_versions
    stats["relations_reprocessed_versions"] = len(stale_relations)
    stats["relations"] = _relations_for_versions(conn, relation_versions | stale_relations, stats)
    if rows:
        from mendel.ner.rules import eli_for, split_law_ref_norm
    for first in range(0, len(rows), batch_size):
        batch = rows[first : first + batch_size]
        entity_rows: dict[str, tuple] = {}
        mention_rows, done, failed = [], [], []
        for (chunk_id_, _, source, *_), entities in zip(batch, recognised(batch)):
            if entities is None:  # recognised before: read ahead only
                stats["read_ahead"] += 1
                continue
            if isinstance(entities, Exception):
                failed.append((chunk_id_, source, entities))
                continue
            for e in entities:
                if not e.norm:
                    continue
                entity_id = f"{e.label}:{e.norm}"
                if entity_id not in entity_rows:
                    act = split_law_ref_norm(e.norm)[0] if e.label == "LAW_REF" else None
                    entity_rows[entity_id] = (entity_id, e.label, e.norm, eli_for(act) if act else None)
                mention_rows.append((chunk_id_, entity_id, e.start, e.end, e.text))
                stats["mentions"] += 1
                stats["by_label"][e.label] = stats["by_label"].get(e.label, 0) + 1
            done.append(chunk_id_)
        # one transaction a batch (a statement a row cost ~100k round trips on the demo corpus); a batch that
        # does not commit is recognised again by the next run, its mentions inserted at most once
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO entities (entity_id, label, norm, eli) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (entity_id) DO NOTHING",
                sorted(entity_rows.values()),
            )
            cur.executemany(
                "INSERT INTO mentions (chunk_id, entity_id, start_char, end_char, surface)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                mention_rows,
            )
            for chunk_id_, source, error in failed:
                crawlstate.quarantine(
                    conn,
                    stage="ner",
                    source=source,
                    detail=f"chunk {chunk_id_}",
                    reason=f"recogniser failed: {error.__class__.__name__}: {error}",
                )
            cur.execute(
                "UPDATE chunks SET ner_done_at = now(), ner_version = %s WHERE chunk_id = ANY(%s)",
                (ner_version, done + [chunk_id_ for chunk_id_, _, _ in failed]),
            )
        stats["chunks"] += len(done)
        stats["quarantined"] += len(failed)
    return stats


def _relations_for_versions(conn: psycopg.Connection, versions: set, stats: dict) -> int:
    """AMENDS/REPEALS of each version whose chunks are being recognised (subject: the document's citation),
    replacing what an earlier run stored for it; offsets are mapped from the joined text to pages."""
    if not versions:
        return 0
    from mendel.ner.relations import extract_relations

    written = 0
    relations_version = stage_versions.version("relations")
    for version_id, source, citation in sorted(versions, key=lambda v: v[0]):
        pages = conn.execute(
            "SELECT page_no, text FROM pages WHERE version_id = %s ORDER BY page_no", (version_id,)
        ).fetchall()
        offsets, pos = [], 0
        for _, page_text in pages:
            offsets.append(pos)
            pos += len(page_text) + 2  # pages joined with a blank line, as ExtractedDocument.text does
        try:
            relations = extract_relations("\n\n".join(t for _, t in pages), citation)
        except Exception as exc:  # a bad document costs its relations, not the night's run
            with conn.transaction():
                crawlstate.quarantine(
                    conn,
                    stage="ner",
                    reason=f"relations failed: {exc.__class__.__name__}: {exc}",
                    source=source,
                    detail=f"version {version_id}",
                )
            stats["quarantined"] += 1
            continue
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("DELETE FROM relations WHERE version_id = %s", (version_id,))
            cur.execute(
                "UPDATE document_versions SET relations_version = %s WHERE version_id = %s",
                (relations_version, version_id),
            )
            for r in relations:
                index = max(i for i, start in enumerate(offsets) if start <= r.start)
                cur.execute(
                    "INSERT INTO relations (version_id, kind, subject_norm, object_norm, page_no, char_start,"
                    " char_end, evidence) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (
                        version_id,
                        r.kind,
                        r.subject_norm,
                        r.object_norm,
                        pages[index][0],
                        r.start - offsets[index],
                        r.end - offsets[index],
                        r.evidence,
                    ),
                )
        written += len(relations)
    return written
