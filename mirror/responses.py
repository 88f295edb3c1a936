"""Response values shared by the mirror's sites (e-Sbírka, courts, municipal)."""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/octet-stream"
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None  # quoted strong validator, e.g. '"<sha256 hex>"'
    last_modified: float | None = None  # POSIX timestamp of the source file

    def __post_init__(self) -> None:
        if self.etag is None and self.status == 200:
            self.etag = quoted_etag(hashlib.sha256(self.body).hexdigest())


def quoted_etag(sha256_hex: str) -> str:
    return f'"{sha256_hex}"'


class FileDigests:
    """sha256 per file, cached by (size, mtime) so a changed file is re-hashed."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[int, int, str]] = {}
        self._lock = threading.Lock()

    def sha256(self, path: Path) -> str:
        stat = path.stat()
        with self._lock:
            hit = self._cache.get(path)
        if hit and hit[0] == stat.st_size and hit[1] == stat.st_mtime_ns:
            return hit[2]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with self._lock:
            self._cache[path] = (stat.st_size, stat.st_mtime_ns, digest)
        return digest


def file_response(
    path: Path, content_type: str, digests: FileDigests, headers: dict[str, str] | None = None
) -> Response:
    """The file's bytes unchanged; ETag = sha256 of the bytes, Last-Modified = file mtime."""
    return Response(
        status=200,
        body=path.read_bytes(),
        content_type=content_type,
        headers=dict(headers or {}),
        etag=quoted_etag(digests.sha256(path)),
        last_modified=path.stat().st_mtime,
    )


def json_response(
    payload: object, status: int = 200, last_modified: float | None = None, content_type: str = "application/json"
) -> Response:
    body = json.dumps(payload, ensure_ascii=False, indent=None, separators=(",", ":")).encode("utf-8")
    return Response(status=status, body=body, content_type=content_type, last_modified=last_modified)


def html_response(html: str, status: int = 200, last_modified: float | None = None) -> Response:
    return Response(
        status=status, body=html.encode("utf-8"), content_type="text/html; charset=UTF-8", last_modified=last_modified
    )


def text_response(text: str, status: int = 200, content_type: str = "text/plain; charset=utf-8") -> Response:
    return Response(status=status, body=text.encode("utf-8"), content_type=content_type)


def chyby_response(status: int, kod: str, popis: str) -> Response:
    """An error in e-Sbírka's `Chyby` schema: {"chyby": [{kod, popis, datumCasChyby, correlationId}]}."""
    now = datetime.now(timezone.utc).astimezone().isoformat(timespec="milliseconds")
    payload = {"chyby": [{"kod": kod, "popis": popis, "datumCasChyby": now, "correlationId": str(uuid.uuid4())}]}
    return json_response(payload, status=status)
