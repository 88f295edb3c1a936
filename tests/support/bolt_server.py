"""One ArcadeDB Bolt server per pytest process for the modules that need Neo4j as a side matter
(test_hostile_input, test_secrets): started on first use the way tests/mendel/index/test_neo4j_export.py starts its own, and
stopped when the process exits. A JVM start costs 10-20 s on the shared CPUs; this pays it once."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.mendel.index.test_neo4j_export import DATABASE, PASSWORD, SERVER_SCRIPT, STARTUP_TIMEOUT_S, _free_port

_server: dict | None = None


def shared_bolt_server() -> dict:
    """``{"url", "password", "startup_s"}`` of the process's server (root user ``root``)."""
    global _server
    if _server is None:
        root = Path(tempfile.mkdtemp(prefix="mendel-arcadedb-shared-"))
        bolt_port, http_port = _free_port(), _free_port()
        log = (root / "server.log").open("w")
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-c", SERVER_SCRIPT, str(root), str(bolt_port), str(http_port), PASSWORD, DATABASE],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=root,
        )

        def stop() -> None:
            if process.poll() is None:
                process.stdin.close()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            log.close()
            shutil.rmtree(root, ignore_errors=True)

        atexit.register(stop)
        while not (root / "READY").exists():
            if process.poll() is not None or time.monotonic() - started > STARTUP_TIMEOUT_S:
                log.flush()
                tail = (root / "server.log").read_text(errors="replace")[-3000:]
                stop()
                pytest.fail(f"ArcadeDB did not start (exit {process.returncode}):\n{tail}")
            time.sleep(0.05)
        _server = {
            "url": f"bolt://127.0.0.1:{bolt_port}",
            "password": PASSWORD,
            "startup_s": time.monotonic() - started,
        }
    return _server
