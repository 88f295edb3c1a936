"""Fault injection for the local mirror: answers that real sites give on bad days, by URL path.

A rule is a JSON object such as ``{"kind": "status", "path": "/articles/*.pdf", "times": 2, "status": 503}``:
``path`` (and ``query``) are globs, ``times`` makes it a burst, ``method`` limits it to one method; the kinds and
their parameters with defaults are ``_DEFAULTS`` below (what each does: docs/mirror.md). Every other request is
served normally.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import socket
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable
from urllib.parse import quote

from .responses import Response, text_response

FAULTS_ENV = "MENDEL_MIRROR_FAULTS"
LOOP_PARAM = "mendel-loop"
_DEFAULTS: dict[str, dict] = {
    "status": {"status": 503, "retry_after": None},
    "slow": {"seconds": 5.0},
    "reset": {},
    "truncate": {"keep": 0.5},
    "transcode": {"encoding": "windows-1250"},
    "cut": {"keep": 0.5},
    "gzip_bomb": {"size": 1 << 30, "as_file": False},
    "error_page": {"status": 200},
    "redirect_loop": {},
    "duplicate": {"of": None},
    "oversize": {"size": 64 << 20, "declare_length": True},
}
KINDS = tuple(_DEFAULTS)
ERROR_PAGE = (
    '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="UTF-8"><title>Chyba serveru</title></head><body>\n'
    "<h1>Omlouváme se, stránku se nepodařilo zobrazit.</h1>\n"
    "<p>Mendel mirror: a simulated error page sent in place of the requested file.</p>\n</body></html>\n"
)
_META_CHARSET = re.compile(rb"""(<meta[^>]*?charset\s*=\s*["']?)([-\w.:]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^(\s*<\?xml[^>]*?encoding\s*=\s*["'])([-\w.:]+)""", re.IGNORECASE)

Route = Callable[[str, str], Response]  # (path, raw path) -> the mirror's normal answer


@dataclass
class FaultRule:
    kind: str
    path: str
    times: int | None = None
    method: str | None = None
    query: str | None = None
    params: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in _DEFAULTS:
            raise ValueError(f"unknown fault kind {self.kind!r}; one of {', '.join(KINDS)}")
        unknown = set(self.params) - set(_DEFAULTS[self.kind])
        if unknown:
            raise ValueError(f"fault {self.kind!r} takes no {', '.join(sorted(unknown))}")
        if not self.path.startswith("/"):
            raise ValueError(f"a fault path is a URL path glob starting with '/': {self.path!r}")
        if self.kind == "duplicate" and not str(self.params.get("of") or "").startswith("/"):
            raise ValueError("a 'duplicate' fault needs 'of': the path whose content it serves")
        self.params = {**_DEFAULTS[self.kind], **self.params}

    @classmethod
    def from_dict(cls, spec: dict) -> "FaultRule":
        spec = dict(spec)
        try:
            kind, path = spec.pop("kind"), spec.pop("path")
        except KeyError as exc:
            raise ValueError(f"a fault rule needs {exc.args[0]!r}: {spec}") from None
        times = spec.pop("times", None)
        method = spec.pop("method", None)
        return cls(
            kind=kind,
            path=path,
            times=None if times is None else int(times),
            method=method.upper() if method else None,
            query=spec.pop("query", None),
            params=spec,
        )

    def matches(self, method: str, path: str, query: str = "") -> bool:
        return (
            (self.method is None or self.method == method)
            and fnmatch.fnmatchcase(path, self.path)
            and (self.query is None or fnmatch.fnmatchcase(_without_loop(query), self.query))
        )


def parse_rules(spec) -> list[FaultRule]:
    """Rules from a list of dicts / FaultRule, JSON text, or the path of a JSON file."""
    if spec is None:
        return []
    if isinstance(spec, (str, Path)):
        text = str(spec).strip()
        if not text.startswith(("[", "{")):
            text = Path(text).read_text(encoding="utf-8")
        spec = json.loads(text)
    if isinstance(spec, dict):
        spec = [spec]
    return [rule if isinstance(rule, FaultRule) else FaultRule.from_dict(rule) for rule in spec]


def configured_rules() -> list[FaultRule]:
    """Rules from ``MENDEL_MIRROR_FAULTS`` (JSON or a file path); none when unset."""
    value = os.environ.get(FAULTS_ENV, "").strip()
    return parse_rules(value) if value else []


class Faults:
    """The rules of one mirror server, matched and counted thread-safely."""

    def __init__(self, rules=None):
        self._lock = threading.Lock()
        self.rules: list[FaultRule] = []
        self.hits: list[int] = []
        self.replace(rules)

    def replace(self, rules=None) -> None:
        parsed = parse_rules(rules)
        for rule in parsed:  # build bombs now, not while a client waits
            if rule.kind == "gzip_bomb":
                gzip_of_zeros(int(rule.params["size"]))
        with self._lock:
            self.rules, self.hits = parsed, [0] * len(parsed)

    def clear(self) -> None:
        self.replace(None)

    def take(self, method: str, path: str, query: str = "") -> FaultRule | None:
        """The rule that answers this request (its count goes up), or None to serve it normally."""
        with self._lock:
            for index, rule in enumerate(self.rules):
                if rule.matches(method, path, query) and (rule.times is None or self.hits[index] < rule.times):
                    self.hits[index] += 1
                    return rule
        return None

    def __bool__(self) -> bool:
        return bool(self.rules)


# ---------------------------------------------------------------- serving a fault


def serve(rule: FaultRule, handler, method: str, path: str, raw_path: str, query: str, route: Route) -> None:
    """Answer one request on ``handler`` (the server's request handler) the way ``rule`` says."""
    p = rule.params
    try:
        if rule.kind == "status":
            response = text_response(f"{p['status']} simulated failure (mendel mirror)\n", status=int(p["status"]))
            if p["retry_after"] is not None:
                response.headers["Retry-After"] = str(p["retry_after"])
            handler._send(method, response)
        elif rule.kind == "slow":
            time.sleep(float(p["seconds"]))
            handler._send(method, route(path, raw_path))
        elif rule.kind == "reset":
            _reset(handler)
        elif rule.kind == "truncate":
            _truncated(handler, method, route(path, raw_path), p["keep"])
        elif rule.kind == "transcode":
            handler._send(method, transcode(route(path, raw_path), str(p["encoding"])))
        elif rule.kind == "cut":
            normal = route(path, raw_path)
            handler._send(method, _derived(normal, normal.body[: _kept(len(normal.body), p["keep"])]))
        elif rule.kind == "gzip_bomb":
            _gzip_bomb(handler, method, route(path, raw_path), int(p["size"]), bool(p["as_file"]))
        elif rule.kind == "error_page":
            handler._send(
                method,
                Response(
                    status=int(p["status"]), body=ERROR_PAGE.encode("utf-8"), content_type="text/html; charset=UTF-8"
                ),
            )
        elif rule.kind == "redirect_loop":
            original = _without_loop(query)
            if original != query:  # on the looped URL: back to the original
                target = f"{raw_path}?{original}" if original else raw_path
            else:
                target = f"{raw_path}?{original}&{LOOP_PARAM}=1" if original else f"{raw_path}?{LOOP_PARAM}=1"
            handler._send(
                method, Response(status=302, body=b"", content_type="text/plain", headers={"Location": target})
            )
        elif rule.kind == "duplicate":
            other = str(p["of"])
            handler._send(method, route(other, _quote_path(other)))
        elif rule.kind == "oversize":
            _oversize(handler, method, route(path, raw_path), int(p["size"]), bool(p["declare_length"]))
    except (BrokenPipeError, ConnectionResetError):  # the client gave up first (a timeout fault): expected
        handler.close_connection = True
    except Exception as exc:  # a rule that can't apply (e.g. a binary body to transcode) must not hang the client
        handler._send(method, text_response(f"500 fault {rule.kind} failed: {type(exc).__name__}: {exc}\n", status=500))


def _without_loop(query: str) -> str:
    return "&".join(part for part in query.split("&") if part and not part.startswith(f"{LOOP_PARAM}="))


def _kept(total: int, keep) -> int:
    keep = float(keep)
    n = int(total * keep) if keep <= 1 else int(keep)
    return max(0, min(total, n))


def _derived(normal: Response, body: bytes, **changes) -> Response:
    """The normal response with another body (a fresh ETag for it)."""
    return Response(
        status=normal.status,
        body=body,
        content_type=changes.get("content_type", normal.content_type),
        headers={**normal.headers, **changes.get("headers", {})},
        etag=None,
        last_modified=normal.last_modified,
    )


def _quote_path(path: str) -> str:
    return quote(path, safe="/")


def transcode(normal: Response, encoding: str) -> Response:
    """The response's text in another encoding, declared in Content-Type and in the document itself."""
    media, _, params = normal.content_type.partition(";")
    declared = re.search(r"charset\s*=\s*([-\w.:]+)", params, re.IGNORECASE)
    text = normal.body.decode(declared.group(1) if declared else "utf-8")
    label = encoding.encode("ascii")
    # The page's own declaration must name the new encoding too; the text is re-encoded with it.
    source = text.encode("utf-8")
    source = _META_CHARSET.sub(lambda m: m.group(1) + label, source, count=1)
    source = _XML_ENCODING.sub(lambda m: m.group(1) + label, source, count=1)
    # Markup writes what the encoding lacks (e.g. U+2212 in windows-1250) as character references, as sites do.
    markup = "html" in media or "xml" in media
    body = source.decode("utf-8").encode(encoding, errors="xmlcharrefreplace" if markup else "strict")
    return _derived(normal, body, content_type=f"{media.strip()}; charset={encoding}")


def _reset(handler) -> None:
    """Close with RST (SO_LINGER 0) before any byte of an answer."""
    handler.log_request(0)
    handler.close_connection = True
    connection: socket.socket = handler.connection
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


def _head(handler, status: int, headers: dict[str, str]) -> None:
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()


def _truncated(handler, method: str, normal: Response, keep) -> None:
    headers = {"Content-Type": normal.content_type, "Content-Length": str(len(normal.body)), **normal.headers}
    _head(handler, normal.status, headers)
    if method != "HEAD":
        handler.wfile.write(normal.body[: _kept(len(normal.body), keep)])
        handler.wfile.flush()
    handler.close_connection = True


@lru_cache(maxsize=4)
def gzip_of_zeros(size: int) -> bytes:
    """``size`` zero bytes, gzipped, built a megabyte at a time (the bomb is never held expanded)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    parts, left = [], size
    while left > 0:
        parts.append(compressor.compress(chunk[: min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(compressor.flush())
    return b"".join(parts)


def _gzip_bomb(handler, method: str, normal: Response, size: int, as_file: bool) -> None:
    bomb = gzip_of_zeros(size)
    if as_file:
        handler._send(method, _derived(normal, bomb))
        return
    handler._send(method, _derived(normal, bomb, headers={"Content-Encoding": "gzip"}))


def _oversize(handler, method: str, normal: Response, size: int, declare_length: bool) -> None:
    padding = max(0, size - len(normal.body))
    if declare_length:
        handler._send(method, _derived(normal, normal.body + bytes(padding)))
        return
    _head(handler, normal.status, {"Content-Type": normal.content_type, "Connection": "close", **normal.headers})
    handler.close_connection = True
    if method == "HEAD":
        return
    handler.wfile.write(normal.body)
    chunk = bytes(1 << 20)
    while padding > 0:
        handler.wfile.write(chunk[: min(padding, len(chunk))])
        padding -= len(chunk)


__all__ = [
    "FAULTS_ENV",
    "KINDS",
    "FaultRule",
    "Faults",
    "configured_rules",
    "gzip_of_zeros",
    "parse_rules",
    "serve",
    "transcode",
]
