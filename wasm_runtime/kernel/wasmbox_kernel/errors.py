"""From an exception raised by the user's code to the result's outcome and `error`.

Messages are rewritten where the plain one would mislead a model: a missing module says that
nothing can be installed and lists what the runtime has; recursion and memory errors name the
sandbox's limits; `SystemExit` says the sandbox keeps running.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .result import ErrorInfo, Outcome
from .tracebacks import format_exception

MAX_LISTED_PACKAGES = 80
# On wasm32 a size past 2**31 cannot even be represented: CPython raises OverflowError (numpy a
# ValueError) before trying to allocate. For the user that is the memory limit, so say so.
SIZE_LIMIT_MESSAGES = (
    "cannot fit 'int' into an index-sized integer",
    "array is too big",
)
WASM32_MEMORY_NOTE = (
    "out of memory: the sandbox is 32-bit WebAssembly, so one object cannot exceed about 2 GB "
    "and all memory together about 4 GB"
)


def is_size_limit(exc: BaseException) -> bool:
    """An allocation too large for wasm32, whatever exception type reported it."""
    return isinstance(exc, OverflowError | ValueError) and any(
        text in str(exc) for text in SIZE_LIMIT_MESSAGES
    )


def outcome_of(exc: BaseException) -> Outcome:
    if isinstance(exc, MemoryError) or is_size_limit(exc):
        return "OUTCOME_MEMORY_EXCEEDED"
    if isinstance(exc, KeyboardInterrupt):
        return "OUTCOME_CANCELLED"
    return "OUTCOME_FAILED"


def error_info(
    exc: BaseException,
    *,
    available: Mapping[str, str],
    recursion_limit: int,
    load_failures: Sequence[str] = (),
) -> ErrorInfo:
    """`{name, message, traceback}`, after clarifying the message in place (so both agree).
    `load_failures`: why packages for this cell could not be loaded, for a failed import."""
    _clarify(exc, available, recursion_limit, load_failures)
    message = _message(exc)
    return ErrorInfo(name=type(exc).__name__, message=message, traceback=format_exception(exc))


def missing_module_message(name: str, available: Mapping[str, str]) -> str:
    names = sorted(available, key=str.lower)
    listing = "only the Python standard library is available"
    if names:
        more = len(names) - MAX_LISTED_PACKAGES
        listing = (
            "available packages: "
            + ", ".join(names[:MAX_LISTED_PACKAGES])
            + (f" and {more} more" if more > 0 else "")
            + ", plus the Python standard library"
        )
    return (
        f"No module named {name!r}: the package is not available in this sandbox "
        f"(no network, no pip install); {listing}"
    )


def _clarify(
    exc: BaseException,
    available: Mapping[str, str],
    recursion_limit: int,
    load_failures: Sequence[str],
) -> None:
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        if top not in available and exc.name == top:
            _set_message(exc, missing_module_message(top, available))
        elif top in available and load_failures:
            reasons = "; ".join(load_failures)
            message = f"No module named {top!r}: the package could not be loaded ({reasons})"
            _set_message(exc, message)
    elif isinstance(exc, RecursionError) and "sandbox" not in str(exc):
        _set_message(
            exc,
            f"{exc} (the sandbox allows {recursion_limit} nested calls; "
            "rewrite the recursion as a loop or reduce its depth)",
        )
    elif isinstance(exc, MemoryError) and not str(exc):
        _set_message(exc, "out of memory: the sandbox's WebAssembly memory is limited (< 4 GB)")
    elif is_size_limit(exc) and "32-bit" not in str(exc):
        _set_message(exc, f"{WASM32_MEMORY_NOTE} ({exc})")


def _set_message(exc: BaseException, message: str) -> None:
    exc.args = (message,)
    if isinstance(exc, ImportError):
        exc.msg = message


def _message(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        code = exc.code
        return (
            f"exit code {code!r}: exit() and sys.exit() end this run only; "
            "the sandbox keeps running (use an exception or print to report a problem)"
        )
    if isinstance(exc, KeyboardInterrupt):
        return "the run was interrupted"
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__} with an unprintable message>"
