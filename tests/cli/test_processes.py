"""`mendel ui` stops its whole process group: a SIGTERM to the command leaves none of its children running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

STARTER = """
import sys
from cli.processes import call_as_group
sys.exit(call_as_group(["sh", "-c", "sleep 300 & sleep 300 & echo started; wait"]))
"""


def _wait_for(condition, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_sigterm_to_the_command_stops_every_process_it_started():
    command = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, text=True)
    assert command.stdout.readline().strip() == "started"
    children = psutil.Process(command.pid).children(recursive=True)
    assert len(children) >= 3  # the shell and its two sleeps
    os.kill(command.pid, signal.SIGTERM)
    assert command.wait(timeout=30) == 128 + signal.SIGTERM
    assert _wait_for(
        lambda: not any(child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in children)
    )
