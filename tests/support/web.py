"""Talking to the serving app: the in-process test client, the real uvicorn server on a free port, and the
shape every error response has."""

from __future__ import annotations

import contextlib
import re
import threading
import warnings
from pathlib import Path

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its TestClient; httpx (the test extra) still works.
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from serving.web.server import make_server
from tests.support.bundle import EMBEDDER
from tests.support.wait import wait_for

__all__ = ["TestClient", "assert_problem", "running_server"]


def assert_problem(response, status: int) -> dict:
    """An RFC 9457 problem of this status: its media type, the members every problem has, a string detail."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert re.fullmatch(r"/problems/[a-z-]+", body["type"]) and body["status"] == status and body["title"]
    assert isinstance(body.get("detail"), str) and body["detail"]
    return body


@contextlib.contextmanager
def running_server(bundles_dir: Path, **options):
    """The real uvicorn server (what `serve` runs) on a free port, in a thread: (base URL, server)."""
    srv = make_server(bundles_dir, port=0, embedder=EMBEDDER, log_level="warning", **options)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    wait_for(lambda: srv.started, timeout=30)
    try:
        yield f"http://127.0.0.1:{srv.servers[0].sockets[0].getsockname()[1]}", srv
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
