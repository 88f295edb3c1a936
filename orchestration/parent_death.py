"""Run a command that dies with the process that started it: ``python -m orchestration.parent_death <pid> --
<command…>`` arms the parent-death signal (Linux prctl PR_SET_PDEATHSIG: SIGTERM) and then execs the command in
its place, so the command keeps this pid and, when the parent <pid> dies (even by SIGKILL, which it can't catch or
forward), the kernel sends it SIGTERM. It runs before every crawler starts: it imports nothing heavy."""

from __future__ import annotations

import os
import sys

from mendel.core.process_death import arm_parent_death_signal


def bound_command(command: str | list[str] | tuple[str, ...], parent_pid: int | None = None) -> list[str]:
    """``command`` run through this module, bound to ``parent_pid`` (default: this process)."""
    parts = [command] if isinstance(command, str) else list(command)
    return [sys.executable, "-m", __name__, str(parent_pid or os.getpid()), "--", *parts]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m orchestration.parent_death <parent pid> -- <command…>", file=sys.stderr)
        return 2
    parent, command = int(args[0]), args[2:]
    arm_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed: nobody is waiting for this command
        return 1
    os.execvp(command[0], command)
    return 127  # not reached: execvp raises on failure


if __name__ == "__main__":
    sys.exit(main())
