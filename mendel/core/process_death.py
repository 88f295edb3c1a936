"""Processes that die with their parent: the Linux parent-death signal (prctl PR_SET_PDEATHSIG), so a run killed
outright (SIGKILL, OOM) takes its crawlers and worker pools with it. Standard library only."""

from __future__ import annotations

import ctypes
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def arm_parent_death_signal(signum: int = signal.SIGTERM) -> bool:
    """Ask the kernel for ``signum`` when the parent dies; False where that can't be had (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return True
