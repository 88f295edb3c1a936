"""Invariant checks over the database, the raw store and the live bundle (``mendel doctor``, and the nightly's
``data_invariants`` asset check).

Each check is a plain function returning a :class:`Check`: its name, how many things it looked at, and the
problems it found, each naming the thing that is wrong. :func:`examine` runs them all:

- ``version_blobs``: every document version (and assembled act version) has its blob in the raw store, of the
  recorded size and, unless ``verify_hashes`` is off, with the sha256 it is stored under;
- ``orphan_blobs``: every blob in the raw store belongs to a document or act version;
- ``current_versions``: every document's current version is one of its own versions;
- ``chunks_current``: every chunk belongs to the served version of a live document (its current version, or its
  last good one while the current is quarantined), once that version has been chunked: nothing is left of a
  superseded, quarantined or withdrawn version;
- ``quarantine_open``: no open quality quarantine row whose document passes the hard checks now;
- ``bundle``: the live bundle (``CURRENT``) has its manifest, every file it lists with that checksum and no file
  it does not list, and every index part its build info (``build_info.json``) over the chunks of its layer;
- ``crawl_log``: every closed crawl run reconciles (discovered = stored + unchanged + quarantined + disallowed,
  nothing else logged), and every body logged as stored is a version.

Hashes are not computed again for a file that has not changed since it was hashed (:class:`HashCache`, table
``verified_files``): the same size, mtime, ctime and inode, hashed at least a few seconds after its last change, and
within the last week or two (a file is read again at least that often, so a disk returning other bytes under an
unchanged stat is still found). A live bundle whose files all have the stat they had when every bundle check last
passed is not read again either. ``rehash=True`` reads everything.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from mendel.core.rawstore import RawStore
from mendel.crawl import crawlstate
from mendel.index import bundle

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
        return {
            "name": self.name,
            "ok": self.ok,
            "checked": self.checked,
            "problems": len(self.problems),
            "shown": self.problems[:SHOWN_PROBLEMS],
            **({"note": self.note} if self.note else {}),
        }


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
            lines.append(
                f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.checked} checked{found}"
                + (f" ({c.note})" if c.note else "")
            )
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


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


# A file that changed this shortly before it was hashed is not remembered: a second change within the same tick of
# its timestamps could leave its stat as it was.
RACY_NS = 3_000_000_000
# A remembered hash is trusted for this long (spread up to twice that by path, so that the files hashed in one run
# are not all read again in one later run): then the file is read again.
TRUST_DAYS = 7
BUNDLE_OK = "bundle-ok:"


class HashCache:
    """The sha256 of files by path, computed once: a file whose size, mtime, ctime and inode are those it had when
    it was hashed is not read again. Every write to a file moves its ctime (which no one can set back) and a
    replaced file has another inode, so a changed file is always hashed again. ``trust=False`` (or a database
    without ``verified_files``): every file is read."""

    def __init__(self, conn: psycopg.Connection, trust: bool = True):
        self.conn = conn
        self.enabled = trust and _table_exists(conn, "verified_files")
        self.known: dict[str, tuple[str, tuple]] = {}
        self.fresh: dict[str, tuple] = {}
        if self.enabled:
            self.known = {
                path: (digest, (size, mtime, ctime, inode))
                for path, digest, size, mtime, ctime, inode in conn.execute(
                    "SELECT path, digest, size, mtime_ns, ctime_ns, inode FROM verified_files WHERE"
                    " verified_at > now() - make_interval(days => %s) * (1 + (hashtext(path) & 7) / 7.0)",
                    (TRUST_DAYS,),
                )
            }

    def digest(self, key: str, st: os.stat_result) -> str | None:
        """What was remembered for ``key`` with this stat, if anything."""
        known = self.known.get(key)
        return known[0] if known is not None and known[1] == _stat_key(st) else None

    def remember(self, key: str, digest: str, st: os.stat_result, started_ns: int, changed_ns: int | None = None):
        """Keep ``digest`` for ``key`` with the stat taken before ``started_ns``; not when what it covers changed
        (``changed_ns``: by default the file's own mtime or ctime) within RACY_NS of it."""
        changed = changed_ns if changed_ns is not None else max(st.st_mtime_ns, st.st_ctime_ns)
        if self.enabled and changed < started_ns - RACY_NS:
            self.fresh[key] = (key, digest, *_stat_key(st))

    def sha256(self, path: Path, st: os.stat_result) -> str:
        """The file's sha256 (``st``: its stat, taken just before)."""
        key = str(path)
        known = self.digest(key, st)
        if known is not None:
            return known
        started = time.time_ns()
        digest = _file_sha256(path)
        self.remember(key, digest, st, started)
        return digest

    def save(self) -> None:
        if not self.fresh:
            return
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO verified_files (path, digest, size, mtime_ns, ctime_ns, inode) VALUES (%s, %s, %s, %s,"
                " %s, %s) ON CONFLICT (path) DO UPDATE SET digest = EXCLUDED.digest, size = EXCLUDED.size,"
                " mtime_ns = EXCLUDED.mtime_ns, ctime_ns = EXCLUDED.ctime_ns, inode = EXCLUDED.inode,"
                " verified_at = now()",
                list(self.fresh.values()),
            )
        self.fresh.clear()


def _stat_file(path: Path) -> os.stat_result | None:
    """The stat of a regular file; None when there is none at ``path``."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _stored_versions(conn: psycopg.Connection) -> list[tuple[str, str, int | None]]:
    """(what, sha256, byte size or None) of every version whose body is in the raw store."""
    rows = [
        (f"{doc_id} version {version_id}", sha, size)
        for doc_id, version_id, sha, size in conn.execute(
            "SELECT doc_id, version_id, sha256, byte_size FROM document_versions ORDER BY version_id"
        )
    ]
    if _table_exists(conn, "act_versions"):
        rows += [
            (f"{doc_id} act version {version}", sha, None)
            for doc_id, version, sha in conn.execute(
                "SELECT doc_id, version, sha256 FROM act_versions ORDER BY doc_id, version"
            )
        ]
    return rows


def check_version_blobs(
    conn: psycopg.Connection, store: RawStore, verify_hashes: bool = True, hashes: HashCache | None = None
) -> Check:
    check = Check("version_blobs", note="" if verify_hashes else "sizes only, hashes not verified")
    for what, sha, size in _stored_versions(conn):
        check.checked += 1
        try:
            path = store.path_for(sha)
        except ValueError:
            check.problems.append(f"{what}: {sha!r} is not a sha256")
            continue
        st = _stat_file(path)
        if st is None:
            check.problems.append(f"{what}: blob {sha} is missing from the raw store ({path})")
        elif size is not None and st.st_size != size:
            check.problems.append(f"{what}: blob {sha} has {st.st_size} bytes, the version says {size}")
        elif verify_hashes and (hashes.sha256(path, st) if hashes else _file_sha256(path)) != sha:
            check.problems.append(f"{what}: blob {sha} does not hash to its name (corrupted)")
    return check


def _two_hex_dirs(root: str):
    """The directories of a raw store level (two-character names), in name order."""
    try:
        entries = sorted((e for e in os.scandir(root) if len(e.name) == 2 and e.is_dir()), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return
    yield from entries


def _blobs(store: RawStore):
    """(name, path) of every blob file of the raw store (``??/??/<sha256>``), in path order."""
    for first in _two_hex_dirs(str(store.root)):
        for second in _two_hex_dirs(first.path):
            for entry in sorted(os.scandir(second.path), key=lambda e: e.name):
                if len(entry.name) == 64 and set(entry.name) <= _HEX and entry.is_file():
                    yield entry.name, entry.path


def check_orphan_blobs(conn: psycopg.Connection, store: RawStore) -> Check:
    check = Check("orphan_blobs")
    known = {sha for _, sha, _ in _stored_versions(conn)}
    for name, path in _blobs(store):
        check.checked += 1
        if name not in known:
            check.problems.append(f"blob {name} belongs to no version ({path})")
    return check


def check_current_versions(conn: psycopg.Connection) -> Check:
    check = Check("current_versions")
    check.checked = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    for doc_id, version_id in conn.execute(
        "SELECT d.doc_id, d.current_version_id FROM documents d LEFT JOIN document_versions v"
        " ON v.version_id = d.current_version_id WHERE d.current_version_id IS NOT NULL"
        " AND (v.version_id IS NULL OR v.doc_id <> d.doc_id) ORDER BY d.doc_id"
    ):
        check.problems.append(f"{doc_id}: current version {version_id} is not one of its versions")
    return check


def check_chunks_current(conn: psycopg.Connection) -> Check:
    check = Check("chunks_current")
    check.checked = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    quarantined = sql.SQL(
        "EXISTS (SELECT 1 FROM quality_quarantine q WHERE q.version_id = c.version_id AND q.resolved_at IS NULL)"
        if _table_exists(conn, "quality_quarantine")
        else "false"
    )
    # the served version: the current one, or the last good one while the current is quarantined
    for doc_id, version_id, n, why in conn.execute(
        sql.SQL(
            "SELECT c.doc_id, c.version_id, count(*), CASE"
            "  WHEN v.doc_id <> c.doc_id THEN 'its version belongs to ' || v.doc_id"
            "  WHEN d.status <> 'active' THEN 'the document is ' || d.status"
            "  WHEN {quarantined} THEN 'the version is quarantined'"
            "  WHEN d.served_version_id IS NULL THEN 'the current version is ' || srv.version_id"
            "  ELSE 'the served (last good) version is ' || srv.version_id END"
            " FROM chunks c JOIN document_versions v ON v.version_id = c.version_id"
            " JOIN documents d ON d.doc_id = c.doc_id LEFT JOIN document_versions srv"
            " ON srv.version_id = coalesce(d.served_version_id, d.current_version_id)"
            " WHERE v.doc_id <> c.doc_id OR d.status <> 'active' OR"
            " ({quarantined} OR (c.version_id <> srv.version_id AND srv.chunked_at IS NOT NULL))"
            " GROUP BY 1, 2, 4 ORDER BY 1, 2"
        ).format(quarantined=quarantined)
    ):
        check.problems.append(f"{n} chunk(s) of {doc_id} version {version_id}: {why}")
    return check


def check_quarantine_open(conn: psycopg.Connection) -> Check:
    """Open quality quarantine rows whose document passes now: its current version's latest stored review
    (``quality_reviews``, since its extraction) has no failing row in a hard expectation. A run resolves them;
    one left open means the review did not run since, or did not record what it found."""
    check = Check("quarantine_open")
    if not _table_exists(conn, "quality_reviews"):
        check.note = "no quality reviews in this database"
        return check
    check.checked = conn.execute("SELECT count(*) FROM quality_quarantine WHERE resolved_at IS NULL").fetchone()[0]
    for doc_id, quarantined, current, reviewed_at in conn.execute(
        "SELECT q.doc_id, q.version_id, d.current_version_id, r.reviewed_at FROM quality_quarantine q"
        " JOIN documents d ON d.doc_id = q.doc_id JOIN document_versions v ON v.version_id = d.current_version_id"
        " JOIN quality_reviews r ON r.version_id = v.version_id AND r.pages > 0"
        " AND r.extracted_at IS NOT DISTINCT FROM v.extracted_at"
        " WHERE q.resolved_at IS NULL AND d.status = 'active' AND NOT EXISTS ("
        "  SELECT 1 FROM quality_review_results e JOIN quality_review_plans p"
        "  ON p.review_version = r.review_version AND p.position = e.position AND p.severity = 'hard'"
        "  WHERE e.version_id = r.version_id AND e.unexpected > 0)"
        " ORDER BY q.doc_id, q.version_id"
    ):
        which = "it" if quarantined == current else f"its current version {current}"
        check.problems.append(
            f"{doc_id}: quarantine of version {quarantined} is open but {which} passes the hard checks"
            f" (reviewed {reviewed_at:%Y-%m-%d %H:%M}); the next run resolves it"
        )
    return check


def _bundle_files(path: Path) -> dict[str, os.stat_result]:
    """Every file under a bundle directory (relative name: stat)."""
    found = {}
    for folder, _, names in os.walk(path):
        for name in names:
            file = Path(folder) / name
            st = _stat_file(file)
            if st is not None:
                found[str(file.relative_to(path))] = st
    return found


def _listing_digest(files: dict[str, os.stat_result]) -> str:
    digest = hashlib.sha256()
    for name, st in sorted(files.items()):
        digest.update(f"{name}\0{_stat_key(st)}\n".encode())
    return BUNDLE_OK + digest.hexdigest()


def check_bundle(bundles_dir: Path, hashes: HashCache | None = None) -> Check:
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
    files = _bundle_files(path)
    started = time.time_ns()
    listing = _listing_digest(files)
    folder = os.stat(path)
    if hashes is not None and listed and hashes.digest(str(path), folder) == listing:
        check.checked = len(listed)  # every file as it was when all of this last passed
        return check
    if not listed:
        check.problems.append(f"bundle {version}: the manifest lists no files and no checksums")
    for name, digest in sorted(listed.items()):
        check.checked += 1
        file = path / name
        st = _stat_file(file)
        if st is None:
            check.problems.append(f"bundle {version}: {name} is missing")
        elif (hashes.sha256(file, st) if hashes else _file_sha256(file)) != digest:
            check.problems.append(f"bundle {version}: {name} does not match its checksum")
    present = {name for name in files if Path(name).name != bundle.MANIFEST}
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
    if hashes is not None and check.ok:
        changed = max((max(st.st_mtime_ns, st.st_ctime_ns) for st in [folder, *files.values()]), default=0)
        hashes.remember(str(path), listing, folder, started, changed_ns=changed)
    return check


def check_crawl_log(conn: psycopg.Connection) -> Check:
    check = Check("crawl_log")
    for run_id, source in conn.execute("SELECT run_id, source FROM crawl_runs ORDER BY finished_at, run_id, source"):
        check.checked += 1
        counts = crawlstate.run_counts(conn, run_id, source)
        if not counts["reconciled"]:
            logged = {
                k: v for k, v in counts.items() if k not in ("discovered", "withdrawn", "reactivated", "reconciled")
            }
            check.problems.append(
                f"run {run_id} {source}: discovered {counts['discovered']} but logged "
                + ", ".join(f"{k} {v}" for k, v in logged.items())
            )
    act_versions = sql.SQL(" UNION SELECT sha256 FROM act_versions" if _table_exists(conn, "act_versions") else "")
    for source, url, sha in conn.execute(
        sql.SQL(
            "SELECT DISTINCT l.source, l.url, l.sha256 FROM crawl_log l WHERE l.outcome = 'stored'"
            " AND l.sha256 IS NOT NULL AND l.sha256 NOT IN (SELECT sha256 FROM document_versions{act_versions})"
            " ORDER BY 1, 2"
        ).format(act_versions=act_versions)
    ):
        check.problems.append(f"{source} {url}: logged as stored ({sha}) but no version has that body")
    return check


def examine(
    conn: psycopg.Connection, store: RawStore, bundles_dir: Path, verify_hashes: bool = True, rehash: bool = False
) -> DoctorReport:
    """Every check, in order (see the module docstring); ``rehash``: every file is read, remembered hashes are
    not trusted."""
    hashes = HashCache(conn, trust=not rehash)
    report = DoctorReport(
        [
            check_version_blobs(conn, store, verify_hashes, hashes),
            check_orphan_blobs(conn, store),
            check_current_versions(conn),
            check_chunks_current(conn),
            check_quarantine_open(conn),
            check_bundle(bundles_dir, hashes),
            check_crawl_log(conn),
        ]
    )
    hashes.save()
    return report
