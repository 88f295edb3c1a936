"""The publish stage: the built indexes, every layer's chunk table and the documents' metadata copied into a new
bundle, published atomically."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg

from mendel.core import stage_versions
from mendel.crawl import last_good
from mendel.crawl.boards import notice_links, placing
from mendel.index import bundle
from mendel.index.corpus import LAYERS, load_layer
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


def publish_bundle(conn: psycopg.Connection, build_dir: Path, bundles_dir: Path, model: str, keep: int = 3) -> dict:
    """Copy the built indexes and every layer's chunk table into a new bundle, then publish it atomically
    (layout: mendel.index.bundle)."""
    records = {layer: load_layer(conn, layer) for layer in LAYERS}
    staging = bundle.staging_dir(bundles_dir)
    try:
        for part in (*bundle.LAYER_PARTS, bundle.GRAPH_PART):
            shutil.copytree(_complete(bundle.part_path(build_dir, part)), bundle.part_path(staging, part))
        for layer in (1, 2):
            for part in bundle.LAYER_PARTS:
                shutil.copytree(
                    _complete(bundle.part_path(build_dir, part, layer)), bundle.part_path(staging, part, layer)
                )
        for layer, rows in records.items():
            bundle.write_chunks(bundle.layer_path(staging, layer), (r.bundle_row() for r in rows))
        summaries = {r.doc_id: r.summary for r in records[1]}
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
            {
                "doc_id": d,
                "title": t,
                "source": s,
                "url": u,
                "citation": c,
                "doc_type": k,
                "published": p.isoformat() if p else None,
                "summary": summaries.get(d, ""),
                "sha256": h,
                "content_type": m,
                **places.get(d, {}),
                **grounding.get(d, {}),
                **held.get(d, {}),
                **courts.get(d, {}),
            }
            for d, t, s, u, c, k, p, h, m in conn.execute(
                "SELECT d.doc_id, d.title, d.source, d.url, d.citation, d.doc_type, d.published, v.sha256,"
                " v.content_type FROM documents d LEFT JOIN document_versions v"
                " ON v.version_id = coalesce(d.served_version_id, d.current_version_id) WHERE d.status = 'active' ORDER BY d.doc_id"
            )
        ]
        bundle.documents_path(staging).write_text(json.dumps(documents, ensure_ascii=False, indent=1))
        layers = bundle.check_layers(staging)  # every index part names the same chunks as its chunk table
        manifest = {
            "model": model,
            "counts": {
                "documents": len(documents),
                "chunks": len(records[3]),
                "sections": len(records[2]),
                "document_chunks": len(records[1]),
            },
            "layers": layers,
            "stages": stage_versions.bundle_versions(conn, model),
        }
        previous = bundle.current_version(bundles_dir)
        # the same files made by other stage versions are a new bundle too: the manifest says what made it
        path = bundle.publish(
            staging,
            bundles_dir,
            manifest,
            keep=keep,
            skip_unchanged=_live_stages(bundles_dir, previous) == manifest["stages"],
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {
        "version": path.name,
        "path": str(path),
        "documents": len(documents),
        "chunks": len(records[3]),
        "sections": len(records[2]),
        "published": path.name != previous,
    }
