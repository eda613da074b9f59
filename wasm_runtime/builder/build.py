"""The build, step by step. Incremental: files already in place with the right hash are kept."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyodide_lock import PyodideLockSpec
from rich.console import Console

from wasm_runtime.builder import pins
from wasm_runtime.builder.added import LOCK_FILE as ADDED_LOCK
from wasm_runtime.builder.added import AddRequest, resolve
from wasm_runtime.builder.artist_set import with_artist_set_table
from wasm_runtime.builder.bytecode import with_bytecode
from wasm_runtime.builder.compress import ENCODINGS, precompress
from wasm_runtime.builder.errors import BuildError, HashMismatchError
from wasm_runtime.builder.extras import fetch_extras, read_pins
from wasm_runtime.builder.font_cache import with_font_cache
from wasm_runtime.builder.fsutil import write_if_changed
from wasm_runtime.builder.hashing import sha256_file
from wasm_runtime.builder.kernel_wheel import build_kernel_wheel
from wasm_runtime.builder.lockfile import distribution_lock, load_official_lock, official_packages
from wasm_runtime.builder.manifest import MANIFEST, write_manifest
from wasm_runtime.builder.package_snapshot import (
    PACKAGE_SNAPSHOT,
    PLOT_SNAPSHOT,
    build_package_snapshot,
    read_record,
)
from wasm_runtime.builder.snapshot import SNAPSHOT_FILE, build_snapshot
from wasm_runtime.builder.source_wheels import fetch_source_wheels, read_source_pins
from wasm_runtime.builder.sources import (
    DirSource,
    MirrorWheelSource,
    Source,
    UrlSource,
    VerifiedStore,
)
from wasm_runtime.paths import KERNEL_SRC, NODE_MODULES, RUNTIME_DIR, default_cache_dir

LOCK_FILE = "pyodide-lock.json"


@dataclass
class BuildOptions:
    out_dir: Path = RUNTIME_DIR
    cache_dir: Path = field(default_factory=default_cache_dir)
    node_modules: Path = NODE_MODULES
    kernel_src: Path = KERNEL_SRC
    mirrors: list[str] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)
    refresh: bool = False
    use_cdn: bool = True
    extras_text: str | None = None
    added: AddRequest = field(default_factory=AddRequest)


@dataclass
class BuildReport:
    out_dir: Path
    file_count: int
    total_bytes: int
    downloaded: list[str]
    seconds: float


def build_runtime(options: BuildOptions, console: Console | None = None) -> BuildReport:
    console = console or Console(stderr=True)
    started = time.perf_counter()
    out = options.out_dir
    lock = load_official_lock(options.node_modules)

    with console.status("Pure-Python extras from PyPI"):
        extra_pins = read_pins(options.extras_text)
        extra_wheels, downloaded = fetch_extras(options.cache_dir / "extras", extra_pins)
        source_pins = read_source_pins()
        source_wheels, from_source = fetch_source_wheels(options.cache_dir / "extras", source_pins)
        extra_pins += source_pins
        extra_wheels += source_wheels
        downloaded += from_source

    wanted = [*pins.DEFAULT_PACKAGES, *options.packages]
    official = official_packages(lock, wanted, replaced={pin.name for pin in extra_pins})
    versions = {name: spec.version for name, spec in official.items()}
    versions |= {pin.name: pin.version for pin in extra_pins}
    with console.status("Packages added with --with, --requirements and --wheel"):
        chosen = resolve(options.added, versions, options.cache_dir / "extras", out / ADDED_LOCK)
        extra_wheels += chosen.wheels
        downloaded += chosen.downloaded

    # Nothing is written to `out` before this point: a request that is refused leaves the
    # previous build as it was, still usable.
    out.mkdir(parents=True, exist_ok=True)
    installed: dict[str, str] = {}  # file name in out → sha256
    with console.status("Pyodide core from node_modules"):
        for name, sha256 in pins.CORE_FILES.items():
            installed[name] = _install_core(options.node_modules / "pyodide" / name, sha256, out)

    store = VerifiedStore(
        options.cache_dir / f"pyodide-{pins.PYODIDE_VERSION}",
        _sources(options, console),
        options.refresh,
    )
    with console.status(f"{len(official)} official Pyodide packages"):
        sources = {name: store.get(spec.file_name, spec.sha256) for name, spec in official.items()}
    downloaded += store.downloaded

    with console.status("Compiling the wheels' bytecode (Node)"):
        wheels = [path for path in [*sources.values(), *extra_wheels] if path.suffix == ".whl"]
        pyodide_dir = options.node_modules / "pyodide"
        compiled = with_bytecode(wheels, pyodide_dir, options.cache_dir / "bytecode")
        extra_wheels = [compiled.get(wheel, wheel) for wheel in extra_wheels]

    if matplotlib := sources.get("matplotlib"):
        with console.status("matplotlib's font cache (Node)"):
            shipped = compiled.get(matplotlib, matplotlib)
            fonts = options.cache_dir / "font-cache"
            compiled[matplotlib] = with_font_cache(shipped, matplotlib.parent, pyodide_dir, fonts)
        with console.status("matplotlib's set() docstrings (Node)"):
            tables = options.cache_dir / "artist-set"
            compiled[matplotlib] = with_artist_set_table(
                compiled[matplotlib], matplotlib.parent, pyodide_dir, tables
            )

    with console.status("Installing the wheels"):
        for wheel in extra_wheels:
            installed[wheel.name] = _install(wheel, out)
        for name, source in sources.items():
            digest = _install(compiled.get(source, source), out)
            installed[source.name] = digest
            # The lock names what is shipped: the compiled wheel, with its own hash.
            official[name] = official[name].model_copy(update={"sha256": digest})

    with console.status("Kernel wheel"):
        kernel = build_kernel_wheel(options.kernel_src, options.cache_dir / "kernel")
        installed[kernel.name] = _install(kernel, out)

    with console.status("Start-up snapshot (Node)"):
        snapshot = build_snapshot(pyodide_dir, kernel, options.cache_dir / "snapshots")
        installed[SNAPSHOT_FILE] = _install(snapshot, out)

    added = [out / wheel.name for wheel in [*extra_wheels, kernel]]
    dist_lock = distribution_lock(lock, official, added, base=out)
    lock_json = json.dumps(dist_lock.model_dump(), sort_keys=True).encode()
    write_if_changed(out / LOCK_FILE, lock_json)
    installed[LOCK_FILE] = sha256_file(out / LOCK_FILE)
    if chosen.lock_text is not None:
        write_if_changed(out / ADDED_LOCK, chosen.lock_text.encode())
        installed[ADDED_LOCK] = sha256_file(out / ADDED_LOCK)

    # From the shipped wheels and lock, so the files they record are the ones a worker gets.
    snapshots: dict[str, dict[str, Any] | None] = {}
    for label, kind in (("Package", PACKAGE_SNAPSHOT), ("Plot-ready", PLOT_SNAPSHOT)):
        with console.status(f"{label} snapshot (Node)"):
            made = build_package_snapshot(
                pyodide_dir, out, dist_lock, kernel, options.cache_dir / "snapshots", kind
            )
            snapshots[kind.snapshot_file] = None
            if made:
                for path in made.outputs():
                    installed[path.name] = _install(path, out)
                snapshots[kind.snapshot_file] = {
                    "file": made.snapshot.name,
                    "record": made.record.name,
                    "bundle": made.bundle.name,
                    "packages": sorted(read_record(made.record)["loadedPackages"]),
                }
    package_snapshot = snapshots[PACKAGE_SNAPSHOT.snapshot_file]
    plot_snapshot = snapshots[PLOT_SNAPSHOT.snapshot_file]

    with console.status("Pre-compressing"):
        files = _describe(out, installed, options.cache_dir / "compressed")
    _remove_stale(out, files)
    origins = {pin.name: "extra" for pin in extra_pins}
    origins |= {name: "added" for name in chosen.names}
    origins[_lock_name(dist_lock, kernel.name)] = "kernel"
    write_manifest(out, files, dist_lock, origins, package_snapshot, plot_snapshot)

    total = sum(entry["size"] for entry in files.values())
    report = BuildReport(out, len(files), total, downloaded, time.perf_counter() - started)
    console.print(
        f"[green]Runtime ready[/green] in {out}: {report.file_count} files, "
        f"{total / 1e6:.1f} MB, {len(downloaded)} downloaded, {report.seconds:.1f} s"
    )
    return report


def _sources(options: BuildOptions, console: Console) -> list[Source]:
    sources: list[Source] = []
    for mirror in options.mirrors:
        is_url = mirror.startswith(("http://", "https://"))
        sources.append(UrlSource(mirror, console) if is_url else DirSource(Path(mirror)))
    sources.append(MirrorWheelSource(options.cache_dir / "mirror-wheel", console))
    if options.use_cdn:
        sources.append(UrlSource(pins.CDN_URL, console))
    return sources


def _install_core(src: Path, expected: str, out: Path) -> str:
    if not src.is_file():
        raise BuildError(f"{src} is missing: run `npm ci` (the Pyodide core comes from npm).")
    actual = sha256_file(src)
    if actual != expected:
        raise HashMismatchError(src.name, expected, actual, src)
    return _install(src, out)


def _install(src: Path, out: Path) -> str:
    """Copy `src` into `out` unless an identical file is already there; return its sha256."""
    digest = sha256_file(src)
    dest = out / src.name
    if not (
        dest.is_file() and dest.stat().st_size == src.stat().st_size and sha256_file(dest) == digest
    ):
        shutil.copyfile(src, dest)
    return digest


def _describe(out: Path, installed: dict[str, str], cache: Path) -> dict[str, dict[str, Any]]:
    files: dict[str, dict[str, Any]] = {}
    for name, digest in sorted(installed.items()):
        path = out / name
        entry: dict[str, Any] = {"size": path.stat().st_size, "sha256": digest}
        if encodings := precompress(path, digest, cache):
            entry["encodings"] = encodings
        files[name] = entry
    return files


def _remove_stale(out: Path, files: dict[str, dict[str, Any]]) -> None:
    # A compressed sibling stays only if this build made it: the server prefers a .br when there
    # is one, so a leftover of an earlier build would be served in place of the file itself.
    made = {
        name + suffix
        for name, entry in files.items()
        for suffix, encoding in ENCODINGS.items()
        if encoding in entry.get("encodings", {})
    }
    keep = {MANIFEST} | set(files) | made
    for path in out.iterdir():
        if path.is_file() and path.name not in keep:
            path.unlink()


def _lock_name(lock: PyodideLockSpec, file_name: str) -> str:
    return next(name for name, spec in lock.packages.items() if spec.file_name == file_name)
