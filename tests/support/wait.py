"""Waiting on a condition instead of sleeping a fixed time."""

from __future__ import annotations

import time


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.02):
    """The first truthy value of ``predicate()``, polled every ``interval`` s; fails after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")
