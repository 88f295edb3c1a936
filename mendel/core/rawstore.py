"""Content-addressed raw store: every fetched body is kept once under its sha256.

Paths come only from the digest (``<root>/ab/cd/abcd…``), never from anything a site sent. Bodies and their
``.json`` metadata are written to a temporary file and renamed into place, so a killed crawl leaves at most a
``.tmp-*`` file, never a partial blob.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class StoredBlob:
    sha256: str
    path: Path
    size: int
    is_new: bool


class RawStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def path_for(self, sha256: str) -> Path:
        if not isinstance(sha256, str) or len(sha256) != 64 or not set(sha256) <= _HEX:
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def put(self, body: bytes, meta: dict | None = None) -> StoredBlob:
        digest = hashlib.sha256(body).hexdigest()
        target = self.path_for(digest)
        is_new = not target.exists()
        if is_new:
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(target, body)
        meta_path = target.with_suffix(".json")
        if meta is not None and (is_new or not meta_path.exists()):
            # ASCII JSON: any string a site sends (lone surrogates included) round-trips and can't fail to encode.
            _write_atomic(meta_path, json.dumps(meta, ensure_ascii=True, sort_keys=True, default=str).encode())
        return StoredBlob(digest, target, len(body), is_new=is_new)

    def get(self, sha256: str) -> bytes:
        return self.path_for(sha256).read_bytes()

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).exists()


def _write_atomic(target: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
