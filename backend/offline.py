"""The service worker's precache list, written into build/js/sw/sw.js (web/src/sw/sw.ts).

`wasmbox export` writes it once into DIR/sw.js; `wasmbox serve` makes it from the files it serves.
Each entry's revision is its content's hash, so a new build changes exactly the entries whose
files changed, and the worker of that build installs them all before it may take over.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

MANIFEST_PLACEHOLDER = "self.__WB_MANIFEST"
WHEEL_CACHE_PLACEHOLDER = "__WASMBOX_WHEEL_CACHE__"
# The runtime files every sandbox boots with (the rest, package wheels, are cached when used).
BOOT_RUNTIME_FILES = (
    "manifest.json",
    "pyodide-lock.json",
    "python_stdlib.zip",
    "pyodide.asm.wasm",
    "pyodide.asm.js",
    "pyodide.js",
    "snapshot.bin",
)
EXAMPLE_SUFFIXES = (".html", ".js", ".css", ".json", ".csv")  # .csv: the first screen's sample data


class OfflineError(Exception):
    """The service worker could not be made (its template is missing or malformed)."""


def runtime_urls(runtime_dir: Path, all_files: bool) -> dict[str, Path]:
    """runtime/… URLs to precache: the boot files and the kernel wheel, or every file."""
    if all_files:
        names = [p.name for p in runtime_dir.iterdir() if p.is_file() and is_runtime_file(p)]
    else:
        manifest = json.loads((runtime_dir / "manifest.json").read_text(encoding="utf-8"))
        kernel = manifest.get("packages", {}).get("wasmbox-kernel", {}).get("file")
        names = [*BOOT_RUNTIME_FILES, *([kernel] if kernel else [])]
    return {f"runtime/{name}": runtime_dir / name for name in sorted(names)}


def is_runtime_file(path: Path) -> bool:
    return not path.name.startswith(".") and path.suffix not in (".br", ".gz")


def files_under(folder: Path, url_prefix: str, suffixes: Iterable[str]) -> dict[str, Path]:
    wanted = tuple(suffixes)
    return {
        f"{url_prefix}{p.name}": p
        for p in sorted(folder.glob("*"))
        if p.is_file() and p.name.endswith(wanted)
    }


@lru_cache(maxsize=512)
def revision(path: Path, mtime_ns: int, size: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:20]


def precache_entries(files: Mapping[str, Path]) -> list[dict[str, str]]:
    entries = []
    for url, path in sorted(files.items()):
        stat = path.stat()
        entries.append({"url": url, "revision": revision(path, stat.st_mtime_ns, stat.st_size)})
    return entries


def served_files(js_dir: Path, web_dir: Path, runtime_dir: Path) -> dict[str, Path]:
    """URL (relative to `wasmbox serve`'s root) → file, for what its service worker precaches:
    the same set as an export's, read from where `wasmbox serve` serves each from."""
    files = {"./": web_dir / "index.html", "embed.js": js_dir / "embed" / "embed.js"}
    files |= files_under(js_dir / "app", "app/", (".js",))
    files["app/styles.css"] = web_dir / "styles.css"
    files |= files_under(js_dir / "sdk", "sdk/", (".js",))
    files |= files_under(js_dir / "sandbox", "sandbox/", (".js",))
    files |= files_under(web_dir / "examples", "examples/", EXAMPLE_SUFFIXES)
    files |= files_under(js_dir / "pyscript", "pyscript/", (".js", ".css"))
    return files | runtime_urls(runtime_dir, all_files=False)


def service_worker(template: str, files: Mapping[str, Path]) -> str:
    """`template` (the built sw.js) with its precache list and this build's wheel cache name."""
    if MANIFEST_PLACEHOLDER not in template or WHEEL_CACHE_PLACEHOLDER not in template:
        raise OfflineError("the service worker template has no placeholders: run `make build`")
    entries = precache_entries(files)
    build = hashlib.sha256(json.dumps(entries).encode()).hexdigest()[:16]
    return template.replace(MANIFEST_PLACEHOLDER, json.dumps(entries)).replace(
        WHEEL_CACHE_PLACEHOLDER, json.dumps(f"wasmbox-wheels-{build}")
    )
