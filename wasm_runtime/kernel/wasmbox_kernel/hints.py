"""One line saying how to repair the failures models repeat, from the real exception and session.

`error_hint(exc, namespace, cwd, available)` gives `error.hint`, or None when there is nothing
better to say than the message:

- KeyError on a DataFrame, Series or dict: the keys that exist (capped), the closest first;
- NameError: the session's names closest to the missing one (or the import it needs);
- FileNotFoundError: the files that exist; when there are none, that data given in the message
  must be written into the code;
- ModuleNotFoundError: whether the runtime has it, and the nearest package it has;
- a host tool called by its bare name, or a coroutine used without `await` (a tool's call in
  async code): the call as it must be written;
- a host tool that refused its arguments: which other granted tool's description names each of
  its parameters, so the value is taken from that tool's result instead of invented.

`empty_run_hint()` is the result-level `hint` of a run that printed nothing and returned nothing.
The objects are found without running anything of the user's: a pandas frame's `self` in the
traceback, or a plain name subscripted on the failing line, looked up in that frame.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import linecache
import os
import re
from collections.abc import Iterable, Mapping
from types import FrameType, TracebackType

from .host import ToolError, ToolSpec

MAX_KEYS = 12
MAX_FILES = 12
HINT_CAP = 400
# The usual aliases models use without importing them.
ALIASES = {
    "np": "import numpy as np",
    "pd": "import pandas as pd",
    "plt": "import matplotlib.pyplot as plt",
    "sns": "import seaborn as sns",
    "sp": "import scipy as sp",
    "math": "import math",
    "re": "import re",
    "json": "import json",
    "random": "import random",
    "datetime": "import datetime",
    "io": "import io",
    "os": "import os",
    "sympy": "import sympy",
    "statistics": "import statistics",
}
# Import names whose package is named differently.
IMPORT_PACKAGES = {
    "sklearn": "scikit-learn",
    "PIL": "pillow",
    "yaml": "pyyaml",
    "cv2": "opencv-python",
}

EMPTY_RUN_HINT = (
    "The run printed nothing and returned nothing: print() the values you need to see, "
    "or end the code with an expression."
)


def empty_run_hint() -> str:
    return EMPTY_RUN_HINT


def closest(word: str, candidates: Iterable[str]) -> list[str]:
    """`candidates`, the closest to `word` first (case-insensitive), each once."""
    unique = list(dict.fromkeys(candidates))
    lower = word.lower()

    def score(candidate: str) -> float:
        c = candidate.lower()
        bonus = 0.5 if lower and (lower in c or c in lower) else 0.0
        return difflib.SequenceMatcher(None, lower, c).ratio() + bonus

    return sorted(unique, key=score, reverse=True)


def listing(items: list[str], cap: int) -> str:
    shown = ", ".join(repr(i) for i in items[:cap])
    return shown + (f" and {len(items) - cap} more" if len(items) > cap else "")


def error_hint(
    exc: BaseException,
    *,
    namespace: Mapping[str, object],
    cwd: str,
    available: Mapping[str, str],
    tools: Mapping[str, ToolSpec] | None = None,
) -> str | None:
    """`tools`: the host tools the run was granted, by name (host.py)."""
    try:
        hint = _tool_hint(exc, tools or {}) or _hint(exc, namespace, cwd, available)
    except Exception:  # a hint is a help: never let it break the result
        return None
    if hint and len(hint) > HINT_CAP:
        hint = hint[: HINT_CAP - 1] + "…"
    return hint


def _hint(
    exc: BaseException, namespace: Mapping[str, object], cwd: str, available: Mapping[str, str]
) -> str | None:
    if isinstance(exc, ModuleNotFoundError):
        return _module_hint(exc, available)
    if isinstance(exc, FileNotFoundError):
        return _file_hint(exc, cwd)
    if isinstance(exc, NameError) and not isinstance(exc, UnboundLocalError):
        return _name_hint(exc, namespace)
    if isinstance(exc, KeyError):
        return _key_hint(exc)
    return None


def _tool_hint(exc: BaseException, tools: Mapping[str, ToolSpec]) -> str | None:
    if isinstance(exc, ToolError) and exc.tool in tools:
        return _argument_source_hint(tools[exc.tool], tools)
    name = getattr(exc, "name", None)
    if isinstance(exc, NameError) and isinstance(name, str) and name in tools:
        return (
            f"{name} is a host tool, reached through `tools`: write `await tools.{name}(...)` "
            "with keyword arguments (`tools` is already imported)."
        )
    if isinstance(exc, (TypeError, AttributeError)) and "'coroutine' object" in str(exc):
        call = "tools.name" if tools else "f"
        return (
            "That value is a coroutine: a call that must be awaited was not. Write "
            f"`value = await {call}(...)`, then use `value`."
        )
    return None


def _argument_source_hint(refused: ToolSpec, tools: Mapping[str, ToolSpec]) -> str | None:
    """Where each of `refused`'s parameters can come from: a model that guesses an id or a code
    the host does not know needs to call the tool that gives it first."""
    sources = []
    for parameter in re.findall(r"(\w+):", refused.signature.partition("(")[2]):
        needed = set(parameter.lower().split("_")) - {""}
        givers = [
            spec.name
            for spec in tools.values()
            if spec.name != refused.name
            and needed <= set(re.findall(r"[a-z0-9]+", spec.description.lower()))
        ]
        if givers:
            sources.append(f"`{parameter}` from " + " or ".join(f"tools.{g}(...)" for g in givers))
    if not sources:
        return None
    return (
        "Never invent a tool's argument: take it from the question or from another tool's "
        f"result. {'; '.join(sources)}: call it first in the same program and pass the value "
        "from its result."
    )


def _module_hint(exc: ModuleNotFoundError, available: Mapping[str, str]) -> str | None:
    if not exc.name:
        return None
    top = exc.name.partition(".")[0]
    package = IMPORT_PACKAGES.get(top, top)
    names = list(available)
    if package in available or top in available:
        return (
            f"{top!r} is in this runtime but could not be imported here: check the module path "
            f"({exc.name!r})."
        )
    near = closest(top, names)[:3] if names else []
    options = f"; the nearest packages it has: {listing(near, 3)}" if near else ""
    return (
        f"{top!r} is not in this runtime and cannot be installed (no network){options}; "
        "or write it with the standard library."
    )


def _file_hint(exc: FileNotFoundError, cwd: str) -> str:
    files = _files(cwd)
    if not files:
        return (
            "The working directory has no files. If the data was given in the message, write it "
            "into the code (a list, a dict, or a string read with io.StringIO) instead of a file."
        )
    wanted = os.path.basename(str(exc.filename or ""))
    ordered = closest(wanted, files) if wanted else files
    shown = listing(ordered, MAX_FILES)
    return f"Files that exist (paths relative to the working directory): {shown}."


def _files(cwd: str) -> list[str]:
    found: list[str] = []
    for root, dirs, names in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            if not name.startswith("."):
                found.append(os.path.relpath(os.path.join(root, name), cwd))
        if len(found) > 200:
            break
    return found


def _name_hint(exc: NameError, namespace: Mapping[str, object]) -> str | None:
    name = getattr(exc, "name", None)
    if not isinstance(name, str):
        return None
    if name in ALIASES:
        return (
            f"Import it first: {ALIASES[name]} "
            "(each run keeps the variables and imports of earlier runs)."
        )
    defined = [n for n in namespace if not n.startswith("_") and n not in ("display", "In", "Out")]
    near = [
        n for n in closest(name, defined) if difflib.SequenceMatcher(None, name, n).ratio() > 0.5
    ]
    near = near[:5]
    if near:
        return (
            f"Names defined in this session closest to {name!r}: {listing(near, 5)}; "
            "otherwise define it in this run."
        )
    known = ", ".join(repr(n) for n in defined[:8]) or "none yet"
    return (
        f"{name!r} is not defined in this session (names defined so far: {known}); define or "
        "import it in this run."
    )


# ------------------------------------------------------------------ KeyError


def _key_hint(exc: KeyError) -> str | None:
    key = exc.args[0] if exc.args else None
    found = _keyed_object(exc, key)
    if found is None:
        return None
    kind, keys = found
    if not keys:
        return f"The {kind} has no keys."
    ordered = closest(str(key), keys) if isinstance(key, str) else keys
    return f"{kind[0].upper()}{kind[1:]} that exist (closest first): {listing(ordered, MAX_KEYS)}."


def _keyed_object(exc: KeyError, key: object) -> tuple[str, list[str]] | None:
    frames = list(_frames(exc.__traceback__))
    # pandas raises from inside its own methods: the frame's `self` is the frame or series.
    for frame in reversed(frames):
        described = _describe(frame.f_locals.get("self"))
        if described is not None:
            return described
    # A plain subscript on the user's failing line: `d["x"]` with `d` a name in that frame.
    for frame in reversed(frames):
        if frame.f_code.co_filename.startswith("<"):
            for obj in _subscripted(frame, key):
                described = _describe(obj)
                if described is not None:
                    return described
    return None


def _frames(tb: TracebackType | None) -> Iterable[FrameType]:
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


def _describe(obj: object) -> tuple[str, list[str]] | None:
    kind = type(obj).__name__
    module = type(obj).__module__ or ""
    if module.startswith("pandas") and kind == "DataFrame":
        return "columns of the DataFrame", [str(c) for c in list(obj.columns)[:2000]]  # type: ignore[attr-defined]
    if module.startswith("pandas") and kind == "Series":
        return "index labels of the Series", [str(c) for c in list(obj.index[:2000])]  # type: ignore[attr-defined]
    if isinstance(obj, Mapping):
        return "keys of the dict", [str(k) for k in list(obj)[:2000]]
    return None


def _subscripted(frame: FrameType, key: object) -> list[object]:
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return []
    found: list[object] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            continue
        if isinstance(node.slice, ast.Constant) and node.slice.value != key:
            continue
        name = node.value.id
        scope = frame.f_locals if name in frame.f_locals else frame.f_globals
        if name in scope:
            found.append(scope[name])
        elif hasattr(builtins, name):
            continue
    return found
