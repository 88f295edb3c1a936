"""The recognition stage: entities and their mentions in every passage not yet recognised, and the AMENDS /
REPEALS relations of the versions those passages belong to; a failure quarantines one chunk or one version.

Many passages are recognised in worker processes, one per core (the spaCy pipeline is single-threaded Python),
batch after batch in order, while this process writes the batches already done."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import psycopg

from mendel.core import stage_versions
from mendel.core.process_death import arm_parent_death_signal
from mendel.crawl import crawlstate
from mendel.extract.model import configured_workers

NER_WORKERS_ENV = "MENDEL_NER_WORKERS"
# below this many passages one process is faster: a worker costs ~3 CPU-s to start (spaCy, the pipeline) and the
# recogniser does ~1,300 passages a CPU-second, so the pool pays only for several seconds of work a core
# (benchmarks/bench_ner.py --pool: on the loaded machine it lost at 9,530 and at 28,590 passages)
POOL_MIN_CHUNKS = 20_000


@dataclass(frozen=True)
class RecognitionFailure:
    """A passage the recogniser failed on, as it crosses from a worker process (any exception becomes this)."""

    kind: str
    message: str


def recognise_batch(batch: list[tuple[str, str | None]]) -> list:
    """Entities of each (text, default act), or a :class:`RecognitionFailure` for a text the recogniser fails on."""
    from mendel.ner import recognise  # spaCy (~2 s to import): only when there is something to recognise

    texts, acts = [text for text, _ in batch], [act for _, act in batch]
    try:
        return recognise(texts, default_act=acts)
    except Exception:  # a recogniser bug must cost one chunk, not the night's run: find it
        found = []
        for text, act in zip(texts, acts):
            try:
                found.append(recognise([text], default_act=act)[0])
            except Exception as exc:
                found.append(RecognitionFailure(exc.__class__.__name__, str(exc)))
        return found


def recognised_batches(batches: list[list[tuple[str, str | None]]], workers: int | None = None) -> Iterator[list]:
    """:func:`recognise_batch` of each batch, in order: in ``MENDEL_NER_WORKERS`` worker processes (default one per
    core; started fresh, "spawn": the caller holds a database connection) when there are enough passages, else
    here."""
    workers = configured_workers(NER_WORKERS_ENV) if workers is None else workers
    if workers < 2 or len(batches) < 2 or sum(len(b) for b in batches) < POOL_MIN_CHUNKS:
        yield from (recognise_batch(batch) for batch in batches)
        return
    with ProcessPoolExecutor(
        max_workers=min(workers, len(batches)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=arm_parent_death_signal,  # a run killed outright leaves no worker behind
        initargs=(signal.SIGKILL,),
    ) as pool:
        yield from pool.map(recognise_batch, batches)


def recognise_pending(conn: psycopg.Connection, batch_size: int = 512, workers: int | None = None) -> dict:
    """Entities (``mendel.ner.recognise``, ``batch_size`` chunks at a time, in worker processes when there are
    many: :func:`recognised_batches`) for chunks not yet processed; a bare § in a law resolves to that law."""
    from mendel.ner.rules import eli_for, split_law_ref_norm

    # Called once the gate passed: passages another ner version recognised lose their mentions and come back here.
    reprocessed = stage_versions.reprocess_ner(conn)
    ner_version = stage_versions.version("ner")
    rows = conn.execute(
        "SELECT c.chunk_id, c.text, d.source, d.citation, c.version_id FROM chunks c JOIN documents d USING (doc_id)"
        " WHERE c.ner_done_at IS NULL ORDER BY c.doc_id, c.seq"
    ).fetchall()
    stats = {
        "chunks": 0,
        "mentions": 0,
        "quarantined": 0,
        "by_label": {},
        "relations": 0,
        "stage_version": ner_version,
        **reprocessed,
    }
    # amending-act relations need the whole text (a point's act is named pages before it): read per version
    relation_versions = {(version_id, source, citation) for _, _, source, citation, version_id in rows if citation}
    stale_relations = set(stage_versions.reprocess_relations(conn)) - relation_versions
    stats["relations_reprocessed_versions"] = len(stale_relations)
    stats["relations"] = _relations_for_versions(conn, relation_versions | stale_relations, stats)
    batches = [rows[first : first + batch_size] for first in range(0, len(rows), batch_size)]
    inputs = [
        [(text, citation if source == "esbirka" else None) for _, text, source, citation, _ in batch]
        for batch in batches
    ]
    for batch, found in zip(batches, recognised_batches(inputs, workers)):
        entity_rows: dict[str, tuple] = {}
        mention_rows, done, failed = [], [], []
        for (chunk_id_, _, source, _, _), entities in zip(batch, found):
            if isinstance(entities, RecognitionFailure):
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
                    reason=f"recogniser failed: {error.kind}: {error.message}",
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
