"""A cold server — a fresh process, nothing loaded but what start-up loads — answers its first requests, eight at
once over every kind of route (searches that route a question to areas of law, decompose it, group it, analyse
it, the facets, a document, a provision), with no 5xx."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid

import httpx
import pytest

from mendel.core import db
from mendel.core.config import PROJECT_ROOT
from tests.support.bundle import HOUSING_QUERY, build_bundle
from tests.support.serving_corpus import serving_docs
from tests.support.wait import wait_for

COLD_SERVER = """
import signal, sys, threading
from pathlib import Path
from serving.web.server import make_server
from tests.support.bundle import EMBEDDER

server = make_server(Path(sys.argv[1]), port=0, embedder=EMBEDDER, log_level="warning")
# uvicorn handles SIGTERM only on the main thread: here the server runs on another, so stop it the same way
signal.signal(signal.SIGTERM, lambda signum, frame: setattr(server, "should_exit", True))
thread = threading.Thread(target=server.run, daemon=True)
thread.start()
while not server.started:
    thread.join(0.05)
Path(sys.argv[2]).write_text(str(server.servers[0].sockets[0].getsockname()[1]))
thread.join()
"""

FIRST_REQUESTS = (
    ("/search", {"q": "Jaké podmínky musí splnit žadatel o podporu bydlení?"}),
    ("/search", {"q": "výpověď z pracovního poměru a náhrada mzdy", "group": "true"}),
    ("/search", {"q": "stavební povolení a zároveň daň z nemovitosti"}),
    ("/search", {"q": HOUSING_QUERY, "k": 3, "at": "2025-01-01"}),
    ("/analyze", {"q": "Co říká § 2079 občanského zákoníku o kupní smlouvě?"}),
    ("/analyze", {"q": "insolvenční návrh dlužníka a oddlužení"}),
    ("/facets", {}),
    ("/provisions", {"ref": "§ 2079 zákona č. 89/2012 Sb."}),
)


@pytest.fixture
def cold_server(tmp_path, pg_server_url):
    build_bundle(tmp_path / "bundles", serving_docs())
    database_url = db.create_database(pg_server_url, f"cold_{uuid.uuid4().hex[:8]}")
    db.migrate(database_url)
    port_file = tmp_path / "port"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "MENDEL_DATABASE_URL": database_url}
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-c", COLD_SERVER, str(tmp_path / "bundles"), str(port_file)],
        env=env,
        cwd=PROJECT_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(lambda: port_file.exists() or process.poll() is not None, timeout=120)
        assert port_file.exists(), (tmp_path / "server.log").read_text(errors="replace")
        yield f"http://127.0.0.1:{port_file.read_text()}", tmp_path / "server.log"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
            log.close()


def test_a_cold_server_answers_eight_concurrent_first_requests_without_a_5xx(cold_server):
    url, log = cold_server
    start = threading.Barrier(len(FIRST_REQUESTS))
    statuses: dict[int, object] = {}

    def first(n: int, path: str, params: dict) -> None:
        with httpx.Client(base_url=url, timeout=120) as client:
            start.wait()
            try:
                statuses[n] = client.get(path, params=params).status_code
            except httpx.HTTPError as exc:
                statuses[n] = exc

    threads = [threading.Thread(target=first, args=(n, *request)) for n, request in enumerate(FIRST_REQUESTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answered = {FIRST_REQUESTS[n][0] + str(FIRST_REQUESTS[n][1]): status for n, status in sorted(statuses.items())}
    assert all(isinstance(status, int) and status < 500 for status in answered.values()), (
        answered,
        log.read_text(errors="replace")[-3000:],
    )
    assert sum(status == 200 for status in answered.values()) >= 6, answered  # answered, not merely refused
