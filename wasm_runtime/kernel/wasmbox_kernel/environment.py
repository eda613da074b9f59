"""What `Kernel.environment()` tells the host (and through it the model) about this sandbox."""

from __future__ import annotations

import platform
from typing import TypedDict

from .options import KernelOptions
from .policy import Policy


class Limits(TypedDict):
    stdoutBytes: int
    stderrBytes: int
    recursionLimit: int
    cStackLevels: int | None
    maxCodeBytes: int | None


class Environment(TypedDict):
    python: str
    packages: dict[str, str]
    limits: Limits
    notes: list[str]


def describe(options: KernelOptions, policy: Policy | None) -> Environment:
    return Environment(
        python=platform.python_version(),
        packages=dict(sorted(options.available_packages.items(), key=lambda kv: kv[0].lower())),
        limits=Limits(
            stdoutBytes=options.stdout_limit,
            stderrBytes=options.stderr_limit,
            recursionLimit=options.recursion_limit,
            cStackLevels=options.c_stack_levels,
            maxCodeBytes=policy.max_code_bytes if policy else None,
        ),
        notes=notes(options),
    )


def notes(options: KernelOptions) -> list[str]:
    """Known differences from CPython on a desktop that change what code should be written."""
    return [
        "numpy's default integer is 32-bit (wasm32): np.arange(1_000_000).sum() silently "
        "overflows to 1783293664; pass dtype=np.int64 for large integer sums and products.",
        "No network: sockets, urllib, http.client, requests and pyfetch fail; "
        "nothing can be downloaded.",
        _installs_note(options),
        "statsmodels, regex and lxml are not here (compiled, and no package registry carries "
        "their Pyodide builds): fit regressions with numpy.linalg.lstsq, scipy.stats or "
        "sklearn.linear_model, use re for regular expressions and bs4 (html.parser) for HTML.",
        "The import policy (js, pyodide.ffi, ctypes and the like refused) is advisory: it stops "
        "their use by mistake, not code set on getting round it. The browser is the security "
        "boundary: an opaque-origin sandboxed frame whose Content Security Policy allows no "
        "network and no storage of the app's.",
        "No threads or processes: threading.Thread.start() fails, multiprocessing and "
        "concurrent.futures pools fail, subprocess is unavailable.",
        "Memory is limited: 32-bit WebAssembly addresses less than 4 GB in all; "
        "a too large allocation raises MemoryError.",
        f"The filesystem is in memory; files written under {options.cwd} persist only within "
        "this sandbox and are listed in the result's files.",
        "input() raises EOFError unless the host answers it (and, without cross-origin "
        "isolation, it cannot wait for an answer at all).",
        "`from wasmbox import tools`: the functions the host grants (see the environment's "
        "tools); `await tools.name(key=value)` returns JSON data, a refusal raises "
        "wasmbox.ToolError.",
        "Time zones: there is no system database, so zoneinfo.ZoneInfo knows only 'UTC'; "
        "pandas (tz='Europe/Paris'), pytz and dateutil.tz carry their own zone data.",
        "time.sleep() blocks the whole sandbox and counts against the time limit; "
        "top-level `await asyncio.sleep(...)` works.",
        f"Recursion is limited to {options.recursion_limit} nested Python calls. Recursion that "
        "goes through C on each level (__repr__ calling repr, sorted(key=...) calling back) "
        f"overflows the browser's stack sooner ({_c_depth(options.c_stack_levels)}), "
        "and json nested a few thousand deep too: the run fails with RecursionError and the "
        "sandbox restarts, losing its variables. Prefer loops for deep recursion.",
        "stdout and stderr are capped at "
        f"{options.stdout_limit} and {options.stderr_limit} bytes per run; "
        "the last expression of the code is returned as its value.",
    ]


def _installs_note(options: KernelOptions) -> str:
    if not options.allow_install:
        return "No package installs: only the packages listed here and the standard library exist."
    return (
        "micropip.install(name) installs only packages listed here (they also load on import); "
        "it never downloads: other names, URLs and index_urls are refused."
    )


def _c_depth(levels: int | None) -> str:
    if levels is None:
        return "how soon depends on the browser"
    return f"past about {levels} levels in this browser"
