"""Add compiled bytecode to a wheel, beside its sources. Runs inside Pyodide's own CPython at build
time (compile_wheels.mjs), so the bytecode matches the interpreter that will load it.

Pyodide's wheels ship `.py` files only, so every first import in a sandbox compiled them:
`import pandas` spent most of its 2.4 s compiling some 300 modules. The `.pyc` files added here are
hash-based and *unchecked*: the wheel unpacks with fresh file times, which would invalidate the
usual timestamp-based ones, and nothing in a sandbox edits site-packages. The sources stay, so
tracebacks still show the library's lines.
"""

from __future__ import annotations

import importlib.util
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc  # type: ignore[attr-defined]


def bytecode_entry(name: str, source: bytes) -> bytes | None:
    """The .pyc bytes for the module `name` (a path inside the wheel), or None if it does not
    compile (test data, templates, another Python's syntax): that module compiles at import."""
    try:
        code = compile(source, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    data: bytes = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
    return data


def add_bytecode(source_wheel: str, target_wheel: str) -> int:
    """Write `target_wheel`: `source_wheel` plus a .pyc for each module that compiles, listed in
    RECORD. Deterministic (entries in order, times taken from the sources). Returns the count."""
    compiled: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(source_wheel) as wheel:
        entries = [(info, wheel.read(info)) for info in wheel.infolist()]
    for info, data in entries:
        if info.filename.endswith(".py") and (pyc := bytecode_entry(info.filename, data)):
            pyc_name = importlib.util.cache_from_source(info.filename)
            pyc_info = zipfile.ZipInfo(pyc_name, info.date_time)
            pyc_info.compress_type = zipfile.ZIP_DEFLATED
            compiled.append((pyc_info, pyc))
    with zipfile.ZipFile(target_wheel, "w") as out:
        for info, data in entries:
            if info.filename.endswith(".dist-info/RECORD"):
                listed = "".join(f"{pyc_info.filename},,\n" for pyc_info, _ in compiled)
                data = data.rstrip(b"\n") + b"\n" + listed.encode()
            out.writestr(info, data)
        for pyc_info, pyc in compiled:
            out.writestr(pyc_info, pyc)
    return len(compiled)
