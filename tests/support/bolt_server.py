"""A real Bolt server for the Neo4j export tests: ArcadeDB (``arcadedb-embedded``: bundled JRE, Bolt plugin reporting
Neo4j 5.26 compatibility) in a subprocess on free loopback ports. A JVM start costs 10-20 s on the shared CPUs, so
one server serves the whole session (the ``bolt_server`` fixture in tests/conftest.py); each test empties the
database before it writes."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

PASSWORD = "mendel-test-password"  # the root user's
DATABASE = "mendel"
STARTUP_TIMEOUT_S = 120

# Runs in its own interpreter: the JVM (JPype) can't be restarted in a process, and pytest's stays clean.
SERVER_SCRIPT = r"""
import pathlib, sys, time
started = time.monotonic()
root, bolt_port, http_port, password, database = sys.argv[1:6]
import arcadedb_embedded as arcadedb
from arcadedb_embedded.jvm import start_jvm
start_jvm(heap_size="512m")
server = arcadedb.create_server(root, root_password=password, config={
    "host": "127.0.0.1",
    "http_port": int(http_port),
    "server_httpsIncomingPort": int(http_port),
    "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
    "bolt_port": int(bolt_port),
    "bolt_defaultDatabase": database,
})
server.start()
server.create_database(database)
pathlib.Path(root, "READY").write_text(f"{time.monotonic() - started:.2f}")
sys.stdin.read()  # until the test closes our stdin
server.stop()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_bolt_server():
    """``{"url", "password", "startup_s", "root"}`` of a started server (root user ``root``), stopped on exit."""
    root = Path(tempfile.mkdtemp(prefix="mendel-arcadedb-"))
    bolt_port, http_port = _free_port(), _free_port()
    log = (root / "server.log").open("w")
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER_SCRIPT, str(root), str(bolt_port), str(http_port), PASSWORD, DATABASE],
        stdin=subprocess.PIPE,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=root,
    )  # ArcadeDB logs to ./log
    try:
        while not (root / "READY").exists():
            if process.poll() is not None or time.monotonic() - started > STARTUP_TIMEOUT_S:
                log.flush()
                tail = (root / "server.log").read_text(errors="replace")[-3000:]
                pytest.fail(f"ArcadeDB did not start (exit {process.returncode}):\n{tail}")
            time.sleep(0.05)
        yield {
            "url": f"bolt://127.0.0.1:{bolt_port}",
            "password": PASSWORD,
            "startup_s": time.monotonic() - started,
            "root": root,
        }
    finally:
        if process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
        shutil.rmtree(root, ignore_errors=True)
