"""Tracebacks that show the user's cells (`<cell-N>`), not the kernel's or Pyodide's frames."""

from __future__ import annotations

import os
import traceback
from types import TracebackType

_KERNEL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_HIDDEN_PARTS = ("/_pyodide/", "<frozen importlib._bootstrap")
MAX_FRAMES = 200
"""Frames kept per traceback (the innermost): a RecursionError under a raised recursion limit has
tens of thousands, and summarising them all took seconds (minutes past 100,000) in a sandbox."""


def is_hidden(filename: str) -> bool:
    """Frames of the kernel itself, of Pyodide's internals and of the import machinery."""
    return filename.startswith(_KERNEL_DIR) or any(part in filename for part in _HIDDEN_PARTS)


def format_exception(exc: BaseException) -> str:
    """The traceback text of `exc` (and its causes) without hidden frames."""
    full = exc.__traceback__
    omitted = _depth(full) - MAX_FRAMES
    try:
        # Skipped before any summary is made: even walking past a frame costs a code-position scan.
        if omitted > 0:
            exc.__traceback__ = _skip(full, omitted)
        summary = traceback.TracebackException.from_exception(exc, limit=-MAX_FRAMES, compact=True)
        _prune(summary, set())
        text = "".join(summary.format())
        if omitted > 0:
            header = "Traceback (most recent call last):\n"
            note = f"  [{omitted} outer frames omitted]\n"
            text = text.replace(header, header + note, 1)
        return text
    except Exception:  # e.g. out of memory while formatting: say at least what it was
        return f"{type(exc).__name__}: {exc}\n"
    finally:
        exc.__traceback__ = full


def _depth(tb: TracebackType | None) -> int:
    depth = 0
    while tb is not None:
        depth += 1
        tb = tb.tb_next
    return depth


def _skip(tb: TracebackType | None, count: int) -> TracebackType | None:
    for _ in range(count):
        tb = tb.tb_next if tb is not None else None
    return tb


def _prune(summary: traceback.TracebackException, seen: set[int]) -> None:
    if id(summary) in seen:
        return
    seen.add(id(summary))
    frames = [frame for frame in summary.stack if not is_hidden(frame.filename)]
    summary.stack = traceback.StackSummary.from_list(frames)
    for linked in (summary.__cause__, summary.__context__):
        if linked is not None:
            _prune(linked, seen)
    for member in getattr(summary, "exceptions", None) or ():
        _prune(member, seen)
