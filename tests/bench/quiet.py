"""Waiting for the bench's own processes to go quiet before a timed turn, so that no row's calls
share the cores with background work another row's page left running (a sandbox page's spare
refilling, rehearsing or preloading after its claim; a raw worker still exiting). The other
helpers' load on the machine is not ours to wait for: only this process's descendants (the
browser, its driver and the bench's servers) are counted, by their CPU time in /proc."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

# A browser with nothing to do uses about 1 % of a core; a worker booting under heavy load still
# gets several times this (its CPU time is counted, not its share of the wall clock).
QUIET_SHARE = 0.05
WINDOW_S = 0.5
# In a row, 2.5 s: longer than a page waits, quiet, before its spare's idle preload (sdk/pool.ts),
# so a turn never begins in that gap.
QUIET_WINDOWS = 5
LONGEST_WAIT_S = 30.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Waited:
    seconds: float
    quiet: bool


def descendants_ticks(root: int) -> dict[int, int]:
    """CPU time (user and system, in clock ticks) of each living descendant of `root`."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        # The command name is in parentheses and may hold spaces: the fields follow its last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found: dict[int, int] = {}
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found[pid] = ticks[pid]
        stack += children.get(pid, [])
    return found


def used_s(before: dict[int, int], after: dict[int, int]) -> float:
    """CPU seconds the processes living at `after` used since `before` (a new one: all of its)."""
    return sum(t - before.get(pid, 0) for pid, t in after.items()) / CLOCK_TICKS


def wait_until_quiet(root: int | None = None) -> Waited:
    """Return once this process's descendants used under QUIET_SHARE of a core for QUIET_WINDOWS
    windows in a row, or after LONGEST_WAIT_S (then `quiet` is False)."""
    root = os.getpid() if root is None else root
    started = time.monotonic()
    quiet_windows = 0
    before = descendants_ticks(root)
    while time.monotonic() - started < LONGEST_WAIT_S:
        time.sleep(WINDOW_S)
        after = descendants_ticks(root)
        quiet_windows = quiet_windows + 1 if used_s(before, after) < QUIET_SHARE * WINDOW_S else 0
        before = after
        if quiet_windows >= QUIET_WINDOWS:
            return Waited(time.monotonic() - started, True)
    return Waited(time.monotonic() - started, False)


def summary(waits: list[Waited]) -> str:
    """How many turns began quiet, and the longest wait, for a row."""
    quiet = sum(w.quiet for w in waits)
    longest = max((w.seconds for w in waits), default=0.0)
    return f"{quiet} of {len(waits)} (longest wait {longest:.1f} s)"
