"""The publish stage: the built index parts (every layer's segments with their chunk table, and the graph) and the
documents' metadata, itself in segments (mendel.index.document_segments), hard-linked into a new bundle published
atomically; a night writes what changed, not the corpus (mendel.index.segments)."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg

from mendel.core import stage_versions
from mendel.crawl import last_good
from mendel.crawl.boards import notice_links, placing
from mendel.index import bundle, document_segments, segments
from mendel.index.layout import WORDINGS_PART
from mendel.records.court_decisions import document_courts
from mendel.records.grounding import record_grounding


def _complete(part_dir: Path) -> Path:
    # Every index build writes build_info.json last: a part without it is what a killed build left.
    if not (part_dir / bundle.BUILD_INFO).exists():
        raise bundle.BundleError(f"{part_dir} is not completely built (an interrupted build?); rebuild it first")
    return part_dir


def _live_stages(bundles_dir: Path, live: str | None) -> dict | None:
    try:
        return bundle.read_manifest(Path(bundles_dir) / live).get("stages") if live else None
    except bundle.BundleError:
        return None


# A document's summary is its L1 chunk's, for the documents whose chunks the index holds (mendel.index.corpus).
_SUMMARIES = (
    "SELECT c.doc_id, coalesce(c.summary, '') FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
    " AND coalesce(d.served_version_id, d.current_version_id) = c.version_id"
    " WHERE d.status = 'active' AND d.doc_type IS DISTINCT FROM 'citation_record' AND c.layer = 1"
)


def publish_bundle(conn: psycopg.Connection, build_dir: Path, bundles_dir: Path, model: str, keep: int = 3) -> dict:
    """Copy the built indexes and every layer's chunk table into a new bundle, then publish it atomically
    (layout: mendel.index.bundle); when the live bundle already is the built parts' files, made by the same stage
    versions, nothing is staged and it stays live."""
    summaries = dict(conn.execute(_SUMMARIES))
    # sha256 + content_type: the served version's original in the raw store (served by the API): the current
    # one, or the last good one while the current is quarantined (the document says so: last_good_version).
    places = placing.document_places(conn)  # a notice board's documents carry its kraj / okres / obec
    # a record document names its record and sources; a notice attachment its notice and board; a notice its
    # attachments
    grounding = {
        **record_grounding(conn),
        **notice_links.attachment_notices(conn),
        **notice_links.notice_attachment_lists(conn),
    }
    held = last_good.last_good_marks(conn)
    courts = document_courts(conn)  # a decision's court, its level and canonical file number
    documents = [
        bundle.document_record(row, summaries.get(row[0], ""), places, grounding, held, courts)
        for row in conn.execute(
            "SELECT d.doc_id, d.title, d.source, d.url, d.citation, d.doc_type, d.published, v.sha256,"
            " v.content_type FROM documents d LEFT JOIN document_versions v"
            " ON v.version_id = coalesce(d.served_version_id, d.current_version_id) WHERE d.status = 'active' ORDER BY d.doc_id"
        )
    ]
    # the documents' metadata in segments beside the indexes': a night writes the documents that changed
    built_documents = bundle.documents_part_path(build_dir)
    document_info = document_segments.update(built_documents, documents)
    # a bundle's directory -> the built part it links: every file of a built part is written once and replaced,
    # never changed, so a link is a copy
    parts = {}
    for layer in (3, 2, 1):
        for part in bundle.LAYER_PARTS if layer != 3 else (*bundle.LAYER_PARTS, bundle.GRAPH_PART):
            parts[str(bundle.part_path(Path(), part, layer))] = bundle.part_path(build_dir, part, layer)
    parts[str(bundle.documents_part_path(Path()))] = built_documents
    wordings = Path(build_dir) / WORDINGS_PART
    if (wordings / bundle.BUILD_INFO).exists():  # the provisions' lay wordings' vectors (the lay list's)
        parts[WORDINGS_PART] = wordings
    stages = stage_versions.bundle_versions(conn, model)
    result = {
        "documents": len(documents),
        "documents_written": document_info["written_rows"],
        "documents_deleted": document_info["deleted_rows"],
    }
    previous = bundle.current_version(bundles_dir)
    live = Path(bundles_dir) / previous if previous else None
    # the live bundle is these very files, made by these stage versions: it was checked when published, as it
    # stands (bundle.check_layers); staging it again would only move every file's ctime. (A part a killed build
    # left lacks a file the bundle lists: it is never the live bundle's, and is refused below.)
    if live is not None and _live_stages(bundles_dir, previous) == stages and bundle.holds_parts(live, parts):
        bundle.sweep_abandoned(Path(bundles_dir))  # what killed publishers left, as staging_dir does
        counts = bundle.read_manifest(live)["counts"]
        return {
            "version": previous,
            "path": str(live),
            **result,
            "chunks": counts["chunks"],
            "sections": counts["sections"],
            "published": False,
            "bytes_written": document_info["bytes_written"],
            "files_linked": 0,
        }
    staging = bundle.staging_dir(bundles_dir)
    copied = {"linked": 0, "copied": 0, "copied_bytes": 0}
    try:
        for inside, source in parts.items():
            for key, value in segments.link_tree(_complete(source), staging / inside).items():
                copied[key] += value
        layers = bundle.check_layers(staging)  # every index part names the same chunks as its chunk table
        manifest = {
            "model": model,
            "counts": {
                "documents": len(documents),
                "chunks": layers["3"]["chunks"],
                "sections": layers.get("2", {}).get("chunks", 0),
                "document_chunks": layers.get("1", {}).get("chunks", 0),
            },
            "layers": layers,
            "stages": stages,
        }
        previous = bundle.current_version(bundles_dir)
        # the same files made by other stage versions are a new bundle too: the manifest says what made it
        report: dict = {}
        path = bundle.publish(
            staging,
            bundles_dir,
            manifest,
            keep=keep,
            skip_unchanged=_live_stages(bundles_dir, previous) == manifest["stages"],
            report=report,
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {
        "version": path.name,
        "path": str(path),
        **result,
        "chunks": manifest["counts"]["chunks"],
        "sections": manifest["counts"]["sections"],
        "published": path.name != previous,
        # the bundle's own files, and the documents' segments and tombstones written into the build directory (the
        # bundle links them, so the publish's report counts them as linked)
        "bytes_written": (report.get("bytes_written", 0) if path.name != previous else 0)
        + document_info["bytes_written"],
        "files_linked": copied["linked"],
    }
