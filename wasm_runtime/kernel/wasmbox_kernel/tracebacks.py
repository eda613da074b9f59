"""Tracebacks that show the user's cells (`<cell-N>`), not the kernel's or Pyodide's frames."""

from __future__ import annotations

import os
import traceback

_KERNEL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_HIDDEN_PARTS = ("/_pyodide/", "<frozen importlib._bootstrap")


def is_hidden(filename: str) -> bool:
    """Frames of the kernel itself, of Pyodide's internals and of the import machinery."""
    return filename.startswith(_KERNEL_DIR) or any(part in filename for part in _HIDDEN_PARTS)


def format_exception(exc: BaseException) -> str:
    """The traceback text of `exc` (and its causes) without hidden frames."""
    try:
        summary = traceback.TracebackException.from_exception(exc, compact=True)
        _prune(summary, set())
        return "".join(summary.format())
    except Exception:  # e.g. out of memory while formatting: say at least what it was
        return f"{type(exc).__name__}: {exc}\n"


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
