"""Versioned index bundles, published atomically: readers see the old bundle or the new one, never a partial one.

Layout: ``bundles/<version>/`` with ``manifest.json`` (version, created, model, counts, sha256 per file)
and ``bundles/CURRENT`` naming the live version. A bundle directory is renamed into place only
when complete, then CURRENT is replaced with os.replace (atomic on POSIX).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

MANIFEST = "manifest.json"
CURRENT = "CURRENT"


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


def publish(staging: Path, bundles_dir: Path, manifest: dict, keep: int = 3, skip_unchanged: bool = False) -> Path:
    """Move a fully written staging directory into ``bundles_dir`` and make it CURRENT.

    With ``skip_unchanged``, a staging directory whose files equal the current bundle's is dropped and the
    current bundle returned: serving has nothing to reload."""
    bundles_dir.mkdir(parents=True, exist_ok=True)
    version = manifest.get("version") or new_version()
    files = sorted(p for p in staging.rglob("*") if p.is_file() and p.name != MANIFEST)
    checksums = {str(p.relative_to(staging)): _sha256(p) for p in files}
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
    target = bundles_dir / version
    if target.exists():
        raise BundleError(f"bundle {version} already exists")
    os.replace(staging, target)
    fd, tmp = tempfile.mkstemp(dir=bundles_dir, prefix=".current-")
    with os.fdopen(fd, "w") as handle:
        handle.write(version + "\n")
    os.replace(tmp, bundles_dir / CURRENT)
    prune(bundles_dir, keep)
    return target


def staging_dir(bundles_dir: Path) -> Path:
    bundles_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=bundles_dir, prefix=".staging-"))


def list_versions(bundles_dir: Path) -> list[str]:
    if not bundles_dir.exists():
        return []
    return sorted(p.name for p in bundles_dir.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).exists())


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
