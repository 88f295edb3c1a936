"""Invariant checks over the database, the raw store and the live bundle (``mendel doctor``, and the nightly's
``data_invariants`` asset check).

Each check is a plain function returning a :class:`Check`: its name, how many things it looked at, and the
problems it found, each naming the thing that is wrong. :func:`examine` runs them all:

- ``version_blobs``: every document version (and assembled act version) has its blob in the raw store, of the
  recorded size and, unless ``verify_hashes`` is off, with the sha256 it is stored under;
- ``orphan_blobs``: every blob in the raw store belongs to a document or act version;
- ``current_versions``: every document's current version is one of its own versions;
- ``chunks_current``: every chunk belongs to its document's current version of a live document, once that
  version has been chunked (or quarantined): nothing is left of a superseded or withdrawn version;
- ``bundle``: the live bundle (``CURRENT``) has its manifest, every file it lists with that checksum and no file
  it does not list, and every index part its build info (``build_info.json``) over the chunks of its layer;
- ``crawl_log``: every closed crawl run reconciles (discovered = stored + unchanged + quarantined + disallowed,
  nothing else logged), and every body logged as stored is a version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from mendel import crawlstate
from mendel.index import bundle
from mendel.rawstore import RawStore

SHOWN_PROBLEMS = 20  # per check; the count says how many there were
_HEX = frozenset("0123456789abcdef")


@dataclass
class Check:
    name: str
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict:
        return {"name": self.name, "ok": self.ok, "checked": self.checked, "problems": len(self.problems),
                "shown": self.problems[:SHOWN_PROBLEMS], **({"note": self.note} if self.note else {})}


@dataclass
class DoctorReport:
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def problems(self) -> list[str]:
        return [f"{c.name}: {p}" for c in self.checks for p in c.problems]

    def as_dict(self) -> dict:
        return {"ok": self.ok, "checks": [c.as_dict() for c in self.checks]}

    def format(self) -> str:
        lines = []
        for c in self.checks:
            found = f", {len(c.problems)} problem(s)" if c.problems else ""
            lines.append(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.checked} checked{found}"
                         + (f" ({c.note})" if c.note else ""))
            lines += [f"       {p}" for p in c.problems[:SHOWN_PROBLEMS]]
            if len(c.problems) > SHOWN_PROBLEMS:
                lines.append(f"       … and {len(c.problems) - SHOWN_PROBLEMS} more")
        lines.append("doctor: all invariants hold" if self.ok else f"doctor: {len(self.problems)} problem(s)")
        return "\n".join(lines)


def _file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _table_exists(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]


def _stored_versions(conn: psycopg.Connection) -> list[tuple[str, str, int | None]]:
    """(what, sha256, byte size or None) of every version whose body is in the raw store."""
    rows = [(f"{doc_id} version {version_id}", sha, size) for doc_id, version_id, sha, size in conn.execute(
        "SELECT doc_id, version_id, sha256, byte_size FROM document_versions ORDER BY version_id")]
    if _table_exists(conn, "act_versions"):
        rows += [(f"{doc_id} act version {version}", sha, None) for doc_id, version, sha in conn.execute(
            "SELECT doc_id, version, sha256 FROM act_versions ORDER BY doc_id, version")]
    return rows


def check_version_blobs(conn: psycopg.Connection, store: RawStore, verify_hashes: bool = True) -> Check:
    check = Check("version_blobs", note="" if verify_hashes else "sizes only, hashes not verified")
    for what, sha, size in _stored_versions(conn):
        check.checked += 1
        try:
            path = store.path_for(sha)
        except ValueError:
            check.problems.append(f"{what}: {sha!r} is not a sha256")
            continue
        if not path.is_file():
            check.problems.append(f"{what}: blob {sha} is missing from the raw store ({path})")
        elif size is not None and path.stat().st_size != size:
            check.problems.append(f"{what}: blob {sha} has {path.stat().st_size} bytes, the version says {size}")
        elif verify_hashes and _file_sha256(path) != sha:
            check.problems.append(f"{what}: blob {sha} does not hash to its name (corrupted)")
    return check


def _blobs(store: RawStore):
    root = Path(store.root)
    if not root.is_dir():
        return
    for path in sorted(root.glob("??/??/*")):
        if path.is_file() and len(path.name) == 64 and set(path.name) <= _HEX:
            yield path


def check_orphan_blobs(conn: psycopg.Connection, store: RawStore) -> Check:
    check = Check("orphan_blobs")
    known = {sha for _, sha, _ in _stored_versions(conn)}
    for path in _blobs(store):
        check.checked += 1
        if path.name not in known:
            check.problems.append(f"blob {path.name} belongs to no version ({path})")
    return check


def check_current_versions(conn: psycopg.Connection) -> Check:
    check = Check("current_versions")
    check.checked = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    for doc_id, version_id in conn.execute(
            "SELECT d.doc_id, d.current_version_id FROM documents d LEFT JOIN document_versions v"
            " ON v.version_id = d.current_version_id WHERE d.current_version_id IS NOT NULL"
            " AND (v.version_id IS NULL OR v.doc_id <> d.doc_id) ORDER BY d.doc_id"):
        check.problems.append(f"{doc_id}: current version {version_id} is not one of its versions")
    return check


def check_chunks_current(conn: psycopg.Connection) -> Check:
    check = Check("chunks_current")
    check.checked = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    quarantined = sql.SQL("EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = d.current_version_id)"
                          if _table_exists(conn, "quality_quarantine") else "false")
    for doc_id, version_id, n, why in conn.execute(sql.SQL(
            "SELECT c.doc_id, c.version_id, count(*), CASE"
            "  WHEN v.doc_id <> c.doc_id THEN 'its version belongs to ' || v.doc_id"
            "  WHEN d.status <> 'active' THEN 'the document is ' || d.status"
            "  WHEN {quarantined} THEN 'the current version is quarantined'"
            "  ELSE 'the current version is ' || d.current_version_id END"
            " FROM chunks c JOIN document_versions v ON v.version_id = c.version_id"
            " JOIN documents d ON d.doc_id = c.doc_id LEFT JOIN document_versions cur"
            " ON cur.version_id = d.current_version_id"
            " WHERE v.doc_id <> c.doc_id OR d.status <> 'active' OR"
            " ({quarantined} OR (c.version_id <> d.current_version_id AND cur.chunked_at IS NOT NULL))"
            " GROUP BY 1, 2, 4 ORDER BY 1, 2").format(quarantined=quarantined)):
        check.problems.append(f"{n} chunk(s) of {doc_id} version {version_id}: {why}")
    return check


def check_bundle(bundles_dir: Path) -> Check:
    check = Check("bundle")
    version = bundle.current_version(Path(bundles_dir))
    if version is None:
        check.note = f"no published bundle in {bundles_dir}"
        return check
    path = Path(bundles_dir) / version
    try:
        manifest = bundle.read_manifest(path)
    except (bundle.BundleError, json.JSONDecodeError) as exc:
        check.problems.append(f"bundle {version}: {exc}")
        return check
    listed = manifest.get("files") or {}
    if not listed:
        check.problems.append(f"bundle {version}: the manifest lists no files and no checksums")
    for name, digest in sorted(listed.items()):
        check.checked += 1
        file = path / name
        if not file.is_file():
            check.problems.append(f"bundle {version}: {name} is missing")
        elif _file_sha256(file) != digest:
            check.problems.append(f"bundle {version}: {name} does not match its checksum")
    present = {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and p.name != bundle.MANIFEST}
    for name in sorted(present - set(listed)):
        check.problems.append(f"bundle {version}: {name} is not in the manifest (no checksum)")
    for layer in (1, 2, 3):
        layer_dir = bundle.layer_path(path, layer)
        if layer != 3 and not layer_dir.exists():
            continue
        for part in (*bundle.LAYER_PARTS, *((bundle.GRAPH_PART,) if layer == 3 else ())):
            if not (layer_dir / part / bundle.BUILD_INFO).is_file():
                check.problems.append(f"bundle {version}: layer {layer} {part} has no {bundle.BUILD_INFO}")
    try:
        bundle.check_layers(path)
    except (bundle.BundleError, json.JSONDecodeError, KeyError) as exc:
        check.problems.append(f"bundle {version}: {exc}")
    return check


def check_crawl_log(conn: psycopg.Connection) -> Check:
    check = Check("crawl_log")
    for run_id, source in conn.execute("SELECT run_id, source FROM crawl_runs ORDER BY finished_at, run_id, source"):
        check.checked += 1
        counts = crawlstate.run_counts(conn, run_id, source)
        if not counts["reconciled"]:
            logged = {k: v for k, v in counts.items() if k not in ("discovered", "withdrawn", "reactivated",
                                                                  "reconciled")}
            check.problems.append(f"run {run_id} {source}: discovered {counts['discovered']} but logged "
                                  + ", ".join(f"{k} {v}" for k, v in logged.items()))
    act_versions = sql.SQL(" UNION SELECT sha256 FROM act_versions" if _table_exists(conn, "act_versions") else "")
    for source, url, sha in conn.execute(sql.SQL(
            "SELECT DISTINCT l.source, l.url, l.sha256 FROM crawl_log l WHERE l.outcome = 'stored'"
            " AND l.sha256 IS NOT NULL AND l.sha256 NOT IN (SELECT sha256 FROM document_versions{act_versions})"
            " ORDER BY 1, 2").format(act_versions=act_versions)):
        check.problems.append(f"{source} {url}: logged as stored ({sha}) but no version has that body")
    return check


def examine(conn: psycopg.Connection, store: RawStore, bundles_dir: Path, verify_hashes: bool = True) -> DoctorReport:
    """Every check, in order (see the module docstring)."""
    return DoctorReport([
        check_version_blobs(conn, store, verify_hashes),
        check_orphan_blobs(conn, store),
        check_current_versions(conn),
        check_chunks_current(conn),
        check_bundle(bundles_dir),
        check_crawl_log(conn),
    ])
