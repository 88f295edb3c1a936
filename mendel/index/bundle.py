"""Versioned index bundles, published atomically: ``bundles/<version>/`` with its ``manifest.json``, and
``bundles/CURRENT`` naming the live version, replaced with ``os.replace`` once the bundle is complete, so readers
see the old bundle or the new one, never a partial one; the last ``keep`` versions stay. The layout of a bundle is
in docs/architecture.md; in every layer row i of the chunk table, of BM25 and of FAISS is the same chunk
(:func:`check_layers`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from mendel.index import segments
from mendel.index.layout import (  # noqa: F401 (re-exported: the bundle's names)
    BM25_INDEX,
    BM25_PART,
    BUILD_INFO,
    CHUNKS,
    CURRENT,
    DENSE_PART,
    DOCUMENTS,
    DOCUMENTS_PART,
    FAISS_INDEX,
    GRAPH_FILE,
    GRAPH_PART,
    IDS,
    LAYER_PARTS,
    LAYERS_DIR,
    MANIFEST,
)


class BundleError(Exception):
    pass


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def new_version() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def _known_checksums(staging: Path, bundles_dir: Path) -> dict[str, str]:
    """Checksums known without reading a file: every segment's own (recorded when it was written) and those of the
    live bundle's files that the staging directory holds as hard links of the same file."""
    known = {}
    for meta in staging.rglob(f"{segments.SEGMENTS_DIR}/*/{segments.SEGMENT_META}"):
        folder = meta.parent.relative_to(staging)
        files = json.loads(meta.read_text()).get("files", {})
        known.update({str(folder / name): digest for name, digest in files.items()})
    try:
        live = current_bundle(bundles_dir) if current_version(bundles_dir) else None
        listed = read_manifest(live).get("files", {}) if live else {}
    except BundleError:
        live, listed = None, {}
    for name, digest in listed.items():
        if name in known:
            continue
        try:
            mine, theirs = (staging / name).stat(), (live / name).stat()
        except FileNotFoundError:
            continue
        if (mine.st_ino, mine.st_dev) == (theirs.st_ino, theirs.st_dev):
            known[name] = digest
    return known


def publish(
    staging: Path,
    bundles_dir: Path,
    manifest: dict,
    keep: int = 3,
    skip_unchanged: bool = False,
    report: dict | None = None,
) -> Path:
    """Move a fully written staging directory into ``bundles_dir`` and make it CURRENT.

    With ``skip_unchanged``, a staging directory whose files equal the current bundle's is dropped and the
    current bundle returned: serving has nothing to reload. ``report``, when given, receives what publishing
    wrote: ``bytes_written`` (files of the staging directory that are not hard links of files written before,
    and the manifest) and ``files_linked``."""
    bundles_dir.mkdir(parents=True, exist_ok=True)
    version = manifest.get("version") or new_version()
    files = sorted(p for p in staging.rglob("*") if p.is_file() and p.name != MANIFEST)
    known = _known_checksums(staging, bundles_dir)
    checksums = {}
    written = linked = 0
    for p in files:
        name = str(p.relative_to(staging))
        checksums[name] = known.get(name) or _sha256(p)
        st = p.stat()
        if st.st_nlink > 1:
            linked += 1
        else:
            written += st.st_size
    if skip_unchanged and current_version(bundles_dir):
        try:
            live = current_bundle(bundles_dir)
            if read_manifest(live).get("files") == checksums:
                shutil.rmtree(staging, ignore_errors=True)
                return live
        except BundleError:
            pass  # no readable current bundle: publish
    manifest = {
        **manifest,
        "version": version,
        "created": datetime.now(timezone.utc).isoformat(),
        "files": checksums,
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2), encoding="utf-8")
    if report is not None:
        report.update({"bytes_written": written + (staging / MANIFEST).stat().st_size, "files_linked": linked})
    target = bundles_dir / version
    if target.exists():
        raise BundleError(f"bundle {version} already exists")
    os.replace(staging, target)
    fd, tmp = tempfile.mkstemp(dir=bundles_dir, prefix=f".current-{_owner()}-")
    with os.fdopen(fd, "w") as handle:
        handle.write(version + "\n")
    os.replace(tmp, bundles_dir / CURRENT)
    prune(bundles_dir, keep)
    return target


def holds_parts(bundle_path: Path, parts: dict[str, Path]) -> bool:
    """Whether the bundle at ``bundle_path`` is exactly ``parts`` (directory in a bundle -> the directory its files
    are linked from, as :func:`publish`'s staging links them): every file of every part is the bundle's file of
    that name, the same file (inode), and the bundle lists no other file. Files are never changed in place, so such
    a bundle is what publishing the parts would make; a night finding it stages nothing, as linking and unlinking a
    file moves its ctime, and with it every stat the doctor remembered the live bundle's verdict by."""
    try:
        listed = read_manifest(bundle_path).get("files") or {}
    except (BundleError, ValueError):
        return False
    found = 0
    for inside, source in parts.items():
        for folder, folders, names in os.walk(source):
            folders[:] = [f for f in folders if not segments.is_unfinished(f)]
            for name in names:
                if segments.is_unfinished(name):
                    continue
                file = Path(folder) / name
                listed_name = str(Path(inside) / file.relative_to(source))
                try:
                    mine, theirs = os.stat(file), os.stat(Path(bundle_path) / listed_name)
                except FileNotFoundError:
                    return False
                if listed_name not in listed or (mine.st_ino, mine.st_dev) != (theirs.st_ino, theirs.st_dev):
                    return False
                found += 1
    return found == len(listed)


def staging_dir(bundles_dir: Path) -> Path:
    bundles_dir.mkdir(parents=True, exist_ok=True)
    sweep_abandoned(bundles_dir)
    return Path(tempfile.mkdtemp(dir=bundles_dir, prefix=f".staging-{_owner()}-"))


def _owner() -> str:
    """This process, as named in its staging and CURRENT temp files: ``<host>.<pid>``."""
    return f"{socket.gethostname()}.{os.getpid()}"


def _process_gone(owner: str) -> bool:
    host, _, pid = owner.rpartition(".")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's, or an older name: not ours to judge
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # exists under another user
    return False


def sweep_abandoned(bundles_dir: Path) -> list[str]:
    """Remove what killed publishers left: staging directories and CURRENT temp files of processes of this host
    that no longer run, and pruned bundles whose deletion was cut short. Live publishers' files stay."""
    removed = []
    for entry in list(bundles_dir.iterdir()) if bundles_dir.exists() else []:
        name = entry.name
        prefix = next((p for p in (".staging-", ".current-", ".trash-") if name.startswith(p)), None)
        if prefix is None or (prefix != ".trash-" and not _process_gone(name[len(prefix) :].rsplit("-", 1)[0])):
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(name)
    return removed


def list_versions(bundles_dir: Path) -> list[str]:
    if not bundles_dir.exists():
        return []
    return sorted(
        p.name for p in bundles_dir.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).exists()
    )


def prune(bundles_dir: Path, keep: int) -> None:
    current = current_version(bundles_dir)
    for version in list_versions(bundles_dir)[:-keep]:
        if version != current:
            # Rename first (atomic) so a versioned directory is always complete, then delete at leisure.
            trash = bundles_dir / f".trash-{version}"
            try:
                os.replace(bundles_dir / version, trash)
            except FileNotFoundError:
                continue
            shutil.rmtree(trash, ignore_errors=True)


def current_version(bundles_dir: Path) -> str | None:
    try:
        return (bundles_dir / CURRENT).read_text().strip() or None
    except FileNotFoundError:
        return None


def current_bundle(bundles_dir: Path, verify: bool = False, attempts: int = 5) -> Path:
    for _ in range(attempts):
        version = current_version(bundles_dir)
        if version is None:
            raise BundleError(f"no published bundle in {bundles_dir}; run `mendel run` first")
        path = bundles_dir / version
        try:
            manifest = read_manifest(path)
            break
        except BundleError:
            # Pruned between reading CURRENT and opening it: newer bundles were published; look again.
            if current_version(bundles_dir) == version:
                raise
    else:
        raise BundleError(f"{bundles_dir}: bundles are being replaced faster than they can be opened")
    if verify:
        for name, digest in manifest["files"].items():
            if _sha256(path / name) != digest:
                raise BundleError(f"bundle {version}: checksum mismatch for {name}")
    return path


def read_manifest(path: Path) -> dict:
    try:
        return json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BundleError(f"{path} has no manifest; not a complete bundle") from exc


def layer_path(bundle_path: Path, layer: int) -> Path:
    """The directory holding layer ``layer``'s chunks.jsonl, bm25/ and dense/ (L3: the bundle itself)."""
    if layer not in (1, 2, 3):
        raise ValueError(f"layer must be 1, 2 or 3, not {layer!r}")
    return Path(bundle_path) if layer == 3 else Path(bundle_path) / LAYERS_DIR / f"L{layer}"


def part_path(root: Path, part: str, layer: int = 3) -> Path:
    """An index part's directory for a layer, in a bundle or the build directory (``bm25/``,
    ``layers/L2/dense/``)."""
    return layer_path(root, layer) / part


def documents_path(bundle_path: Path) -> Path:
    """A bundle's whole ``documents.json``, as bundles published before the documents' segments hold it."""
    return Path(bundle_path) / DOCUMENTS


def documents_part_path(root: Path) -> Path:
    """The documents' segments (mendel.index.document_segments), in a bundle or the build directory."""
    return Path(root) / DOCUMENTS_PART


def read_documents(bundle_path: Path) -> list[dict]:
    """Every document of a bundle by doc_id, as the publish recorded it (mendel.nightly.publish_stage): from its
    documents' segments, or from the whole ``documents.json`` of a bundle published before them. Every reader of
    a bundle's documents reads them here."""
    part = documents_part_path(bundle_path)
    if segments.is_segmented(part):
        from mendel.index.document_segments import read_documents as read_segments

        return read_segments(part)
    return json.loads(documents_path(bundle_path).read_text(encoding="utf-8"))


def document_record(row, summary: str, *extras: dict) -> dict:
    """A live document as a bundle records it: ``row`` is its (doc_id, title, source, url, citation, doc_type,
    published, sha256, content_type) — sha256 and content type those of the version it is served by —, then its
    summary and what each of ``extras`` (doc_id -> fields) holds for it."""
    doc_id, title, source, url, citation, doc_type, published, sha256, content_type = row
    record = {
        "doc_id": doc_id,
        "title": title,
        "source": source,
        "url": url,
        "citation": citation,
        "doc_type": doc_type,
        "published": published.isoformat() if published else None,
        "summary": summary,
        "sha256": sha256,
        "content_type": content_type,
    }
    for extra in extras:
        record.update(extra.get(doc_id, {}))
    return record


def documents_by_id(bundle_path: Path) -> dict[str, dict]:
    return {d["doc_id"]: d for d in read_documents(bundle_path)}


def bm25_index_path(layer_dir: Path) -> Path:
    """What ``bm25s.BM25.load`` reads, in a layer's directory (``layer_path``; L3: the bundle itself)."""
    return Path(layer_dir) / BM25_PART / BM25_INDEX


def faiss_index_path(layer_dir: Path) -> Path:
    """What ``faiss.read_index`` reads, in a layer's directory (``layer_path``; L3: the bundle itself)."""
    return Path(layer_dir) / DENSE_PART / FAISS_INDEX


def graph_path(root: Path) -> Path:
    """The entity graph's ``graph.json`` (``mendel.index.entity_graph``)."""
    return Path(root) / GRAPH_PART / GRAPH_FILE


def write_chunks(directory: Path, rows) -> int:
    """Write ``rows`` (dicts) as ``directory/chunks.jsonl``; returns how many."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    count = 0
    with (directory / CHUNKS).open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def layer_exists(root: Path, layer: int) -> bool:
    """Layer ``layer`` is in ``root`` (a bundle or build directory): its chunk table, whole or in segments."""
    path = layer_path(root, layer)
    return (path / CHUNKS).exists() or segments.is_segmented(path / BM25_PART)


def layer_rows(root: Path, layer: int = 3):
    """The chunk rows of a layer in serving order (row i is the chunk at row i of its BM25 and FAISS), from a
    bundle's segments or its whole ``chunks.jsonl``."""
    path = layer_path(root, layer)
    if segments.is_segmented(path / BM25_PART):
        from mendel.index.segment_bm25 import layer_rows as segment_rows

        yield from segment_rows(path / BM25_PART)
        return
    with (path / CHUNKS).open(encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def _layer_entry(staging: Path, layer: int) -> dict:
    """One layer's manifest entry, checking its parts name the same chunks in the same order."""
    path = layer_path(staging, layer)
    entry: dict = {"path": str(path.relative_to(staging))}
    read: dict[str, list[str]] = {}  # part -> its chunk ids, each part read once
    if segments.is_segmented(path / BM25_PART):
        chunk_ids = read[BM25_PART] = segments.part_chunk_ids(path / BM25_PART)  # BM25's segments hold the table
        entry["segmented"] = True
    else:
        with (path / CHUNKS).open(encoding="utf-8") as handle:
            chunk_ids = [json.loads(line)["chunk_id"] for line in handle]
    entry["chunks"] = len(chunk_ids)
    for part in LAYER_PARTS:
        part_dir = path / part
        try:
            ids = read[part] if part in read else segments.part_chunk_ids(part_dir)
        except (FileNotFoundError, segments.SegmentError) as exc:
            raise BundleError(f"layer {layer}: {part} index is missing") from exc
        if ids != chunk_ids:
            raise BundleError(
                f"layer {layer}: the {part} index was built from other chunks than its chunk table; rebuild before "
                "publishing"
            )
        try:
            info = json.loads((part_dir / BUILD_INFO).read_text())
        except FileNotFoundError:
            info = {}
        entry.update({k: info[k] for k in ("index_type", "vocabulary") if k in info})
        if segments.is_segmented(part_dir):
            state = segments.PartState.read(part_dir)
            entry[f"{part}_segments"] = len(state.segments)
            entry[f"{part}_deleted_rows"] = sum(len(state.deleted_rows(s)) for s in state.segments)
            if part == DENSE_PART:
                entry["index_type"] = ",".join(sorted({s.meta["index_type"] for s in state.segments})) or "flat"
    return entry


def check_layers(staging: Path) -> dict:
    """Every layer present in ``staging`` has its chunk table, BM25 and FAISS parts over the same chunk ids in
    the same order, and the graph is there; returns the manifest's ``layers`` entry. Raises BundleError
    otherwise (a build killed half-way leaves a part without its files: it must be rebuilt, not published)."""
    if not graph_path(staging).is_file():
        raise BundleError("the graph part is missing (graph/graph.json): rebuild the graph before publishing")
    layers = {}
    for layer in (1, 2, 3):
        if not layer_exists(staging, layer):
            if layer == 3:
                raise BundleError(f"{staging} has no {CHUNKS}")
            continue
        layers[str(layer)] = _layer_entry(staging, layer)
    return layers
