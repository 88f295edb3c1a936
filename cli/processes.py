"""A child command that dies whole with the command that started it: its own process group, stopped by SIGTERM,
SIGINT or SIGHUP to us and when we return."""

from __future__ import annotations

import os
import signal
import subprocess

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _default_stop_signals() -> None:
    # A stop signal ignored here (nohup, a background job) would be inherited by the whole group across exec.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def call_as_group(command: list[str], cwd=None, grace_s: float = 20.0) -> int:
    """Run ``command`` in a process group of its own and return its exit status; a stop signal to this process
    is passed to the whole group, and the group is gone when this returns."""
    pgid: int | None = None
    stopped_by: list[int] = []

    def forward(signum, _frame):  # only signals here: the main flow below is inside process.wait()
        stopped_by.append(signum)
        if pgid is not None:
            _signal_group(pgid, signal.SIGTERM)

    # the handlers come first: a stop arriving while the child starts (it may already be writing) is ours to pass on
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, forward)
    try:
        process = subprocess.Popen(command, cwd=cwd, start_new_session=True, preexec_fn=_default_stop_signals)
        pgid = process.pid
        if stopped_by:  # stopped before the group existed
            _signal_group(pgid, signal.SIGTERM)
        status = process.wait()
    finally:
        if pgid is not None:
            _signal_group(pgid, signal.SIGTERM)
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(
                pgid, signal.SIGKILL
            )  # whatever the leader left behind (a webserver, a daemon, a code server)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 + stopped_by[0] if stopped_by else status
