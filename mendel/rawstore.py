"""Content-addressed raw store: every fetched body is kept once under its sha256."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


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
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def put(self, body: bytes, meta: dict | None = None) -> StoredBlob:
        digest = hashlib.sha256(body).hexdigest()
        target = self.path_for(digest)
        if target.exists():
            return StoredBlob(digest, target, len(body), is_new=False)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write to a temp file then rename, so a crash never leaves a partial blob under its hash.
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
        os.replace(tmp, target)
        if meta is not None:
            meta_path = target.with_suffix(".json")
            meta_path.write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        return StoredBlob(digest, target, len(body), is_new=True)

    def get(self, sha256: str) -> bytes:
        return self.path_for(sha256).read_bytes()

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).exists()
