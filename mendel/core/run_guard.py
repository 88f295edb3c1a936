"""Nothing of a run outlives it, however the run ends.

:func:`guard_run` puts a token into this process's environment, which every process the run starts inherits: crawl
subprocesses, extraction workers and the Tesseract commands they run, Chromium and its helpers — including those
that leave the run's process group (Playwright starts Chromium in a session of its own) or are orphaned when their
parent is killed. It also starts a watcher in a session of its own. Once the run's process is gone (a normal exit,
an exception, SIGKILL, the OOM killer), the watcher stops every process still carrying the token (SIGTERM, then
SIGKILL after a grace period) and exits. Parent-death signals (:mod:`mendel.core.process_death`) stop the pools at
once; the watcher is the net under them.

The embedded PostgreSQL and its reaper belong to the home, not to the run: they are started
:func:`outside_the_run`. ``python -m mendel.core.run_guard <pid> <token> [grace s]`` is the watcher."""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import sys
import time

RUN_TOKEN_ENV = "MENDEL_RUN_TOKEN"
GRACE_S = 5.0
_ROUNDS = 3  # a process stopping may start another (a browser's helper): look again


def guard_run(grace_s: float = GRACE_S) -> str:
    """Tag this process and everything it will start with a run token, and start the watcher that stops them all
    once this process is gone. Under a run already guarded (a command the run started), the run's token is kept
    and no second watcher starts. Returns the token."""
    token = os.environ.get(RUN_TOKEN_ENV)
    if token:
        return token
    token = secrets.token_hex(8)
    subprocess.Popen(
        [sys.executable, "-m", __name__, str(os.getpid()), token, str(grace_s)],
        env=os.environ.copy(),  # before the token is set: the watcher is not a process of the run
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a kill of the run's process group does not reach it
        close_fds=True,
    )
    os.environ[RUN_TOKEN_ENV] = token
    return token


@contextlib.contextmanager
def outside_the_run():
    """Processes started inside this block do not carry the run's token: they are not stopped with the run."""
    token = os.environ.pop(RUN_TOKEN_ENV, None)
    try:
        yield
    finally:
        if token is not None:
            os.environ[RUN_TOKEN_ENV] = token


def processes_of(token: str) -> list:
    """The live processes (psutil) carrying ``token`` in their environment, this one excepted."""
    import psutil

    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if process.environ().get(RUN_TOKEN_ENV) == token and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def stop_processes(token: str, grace_s: float = GRACE_S) -> int:
    """SIGTERM to every process of the run, SIGKILL to those still there after ``grace_s``; returns how many
    were found."""
    import psutil

    stopped = 0
    for _ in range(_ROUNDS):
        found = processes_of(token)
        if not found:
            break
        stopped += len(found)
        for process in found:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.terminate()
        _, alive = psutil.wait_procs(found, timeout=grace_s)
        for process in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        psutil.wait_procs(alive, timeout=grace_s)
    return stopped


def wait_for_exit(pid: int) -> None:
    """Return once process ``pid`` has ended (a pidfd where the kernel has them: no polling, no pid reuse)."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # no pidfd (not Linux, an old kernel): ask every half second
        import psutil

        try:
            while psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                time.sleep(0.5)
        except psutil.NoSuchProcess:
            pass
        return
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.poll()
    finally:
        os.close(pidfd)


def watch(pid: int, token: str, grace_s: float = GRACE_S) -> int:
    wait_for_exit(pid)
    return stop_processes(token, grace_s)


if __name__ == "__main__":
    watch(int(sys.argv[1]), sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else GRACE_S)
