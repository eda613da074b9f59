"""The package snapshot the build makes (builder/package_snapshot.py): listed in the manifest like
every runtime file, cached by its inputs, and with a link record a worker can restore from. The
plot-ready snapshot beside it is made the same way from matplotlib."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pyodide_lock import PyodideLockSpec

from wasm_runtime.builder import BuildOptions, build_runtime
from wasm_runtime.builder.hashing import sha256_file
from wasm_runtime.builder.package_snapshot import (
    BUNDLE_FILE,
    PACKAGES,
    PLOT_SNAPSHOT,
    RECORD_FILE,
    SNAPSHOT_FILE,
    package_snapshot_key,
)

SITE_PACKAGES = "/lib/python3.12/site-packages/"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory, warm_cache: Path) -> Path:
    """A build from the warm cache (whose snapshots folder has the package snapshot after
    `make build`; otherwise this test makes it, which takes a minute)."""
    out = tmp_path_factory.mktemp("runtime")
    build_runtime(BuildOptions(out_dir=out, cache_dir=warm_cache, use_cdn=False))
    return out


@pytest.fixture(scope="module")
def manifest(runtime: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((runtime / "manifest.json").read_text())
    return data


@pytest.fixture(scope="module")
def record(runtime: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((runtime / RECORD_FILE).read_text())
    return data


def test_the_manifest_names_it_and_the_packages_it_holds(manifest: dict[str, Any]) -> None:
    assert manifest["packageSnapshot"] == {
        "file": SNAPSHOT_FILE,
        "record": RECORD_FILE,
        "bundle": BUNDLE_FILE,
        "packages": ["cloudpickle", "numpy", "pandas", "python-dateutil", "pytz", "six"],
    }


def test_its_files_are_listed_with_their_hash_and_compressed(
    runtime: Path, manifest: dict[str, Any]
) -> None:
    for name in (SNAPSHOT_FILE, RECORD_FILE, BUNDLE_FILE):
        entry = manifest["files"][name]
        assert entry["sha256"] == sha256_file(runtime / name)
        assert entry["size"] == (runtime / name).stat().st_size
        assert set(entry["encodings"]) == {"br", "gzip"}
    assert manifest["files"][SNAPSHOT_FILE]["size"] > manifest["files"]["snapshot.bin"]["size"]


def bundle_files(
    runtime: Path, record: dict[str, Any], name: str = BUNDLE_FILE
) -> dict[str, bytes]:
    """The bundle cut into its files, as the record lays them out."""
    bundle = (runtime / name).read_bytes()
    files, offset = {}, 0
    for path, size in record["fs"]["files"]:
        files[path] = bundle[offset : offset + size]
        offset += size
    assert offset == len(bundle) == record["fs"]["bundleLength"]
    return files


def wheel_members(runtime: Path, record: dict[str, Any]) -> dict[str, bytes]:
    """Every file of the shipped wheels of the packages the snapshot loaded, by installed path."""
    lock = json.loads((runtime / "pyodide-lock.json").read_text())["packages"]
    members = {}
    for name in record["loadedPackages"]:
        # loadedPackages names a package as the lock's "name" does (Pillow), its key is lower case.
        with zipfile.ZipFile(runtime / lock[name.lower()]["file_name"]) as wheel:
            for info in wheel.infolist():
                if not info.is_dir():
                    members[SITE_PACKAGES + info.filename] = wheel.read(info)
    return members


def test_the_bundle_holds_the_shipped_wheels_files_unchanged(
    runtime: Path, record: dict[str, Any]
) -> None:
    assert record["format"] == 2
    assert record["packages"] == list(PACKAGES)
    files = bundle_files(runtime, record)
    members = wheel_members(runtime, record)
    assert {path: files[path] for path in members} == members
    # Beside them, only what the installer writes about each package.
    installer_notes = {Path(path).name for path in set(files) - set(members)}
    assert installer_notes == {"INSTALLER", "PYODIDE_SOURCE"}
    assert f"{SITE_PACKAGES}pandas" in record["fs"]["dirs"]


def test_each_side_module_is_in_the_bundle_in_load_order(
    runtime: Path, record: dict[str, Any]
) -> None:
    files = bundle_files(runtime, record)
    libs = record["libs"]
    table = record["table"]
    assert len(libs) > 50  # numpy's and pandas' extension modules
    assert all(lib["name"].endswith(".so") and files[lib["name"]][:4] == b"\0asm" for lib in libs)
    # Placed one after another: each module's table segment starts where the last one's ended.
    assert libs[0]["tableBase"] == table["before"] < table["after"]
    assert [lib["tableBase"] for lib in libs] == sorted(lib["tableBase"] for lib in libs)
    # Their data lives in the heap (malloc'd, in no particular order), which the snapshot holds.
    bases = [lib["memoryBase"] for lib in libs]
    assert len(set(bases)) == len(bases) and all(0 < b < record["heapLength"] for b in bases)
    known = {lib["name"] for lib in libs} | {"__main__"}
    assert set(record["handles"].values()) <= known
    assert record["got"]["count"] > 1000 and isinstance(record["got"]["fnv1a"], int)


def test_the_key_changes_with_any_wheel_it_loads(runtime: Path) -> None:
    lock = PyodideLockSpec.from_json(runtime / "pyodide-lock.json")
    kernel = next(runtime.glob("wasmbox_kernel-*.whl"))
    before = package_snapshot_key(lock, kernel)
    six = lock.packages["six"]  # a dependency of pandas, through python-dateutil
    lock.packages["six"] = six.model_copy(update={"sha256": "0" * 64})
    assert package_snapshot_key(lock, kernel) != before


@pytest.fixture(scope="module")
def plot_record(runtime: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((runtime / PLOT_SNAPSHOT.record_file).read_text())
    return data


def test_the_plot_ready_snapshot_is_listed_beside_it(
    runtime: Path, manifest: dict[str, Any], plot_record: dict[str, Any]
) -> None:
    entry = manifest["plotSnapshot"]
    assert (entry["file"], entry["record"], entry["bundle"]) == (
        PLOT_SNAPSHOT.snapshot_file,
        PLOT_SNAPSHOT.record_file,
        PLOT_SNAPSHOT.bundle_file,
    )
    assert {"matplotlib", "numpy", "Pillow"} <= set(entry["packages"])
    assert "pandas" not in entry["packages"]  # the package snapshot's, kept apart
    for name in (entry["file"], entry["record"], entry["bundle"]):
        assert manifest["files"][name]["sha256"] == sha256_file(runtime / name)
    assert plot_record["packages"] == ["matplotlib"]
    assert sorted(plot_record["loadedPackages"]) == entry["packages"]


def test_the_plot_ready_bundle_holds_the_wheels_and_what_the_kernel_set_up(
    runtime: Path, plot_record: dict[str, Any]
) -> None:
    files = bundle_files(runtime, plot_record, PLOT_SNAPSHOT.bundle_file)
    members = wheel_members(runtime, plot_record)
    assert {path: files[path] for path in members} == members
    libs = plot_record["libs"]
    assert all(files[lib["name"]][:4] == b"\0asm" for lib in libs)
    assert any("matplotlib" in lib["name"] for lib in libs)
    # Beside them: the installer's notes and the UTC zone (the kernel's prepare_interpreter).
    others = {path for path in set(files) - set(members)}
    assert "/usr/share/zoneinfo/UTC" in others
    assert {Path(p).name for p in others if p.startswith(SITE_PACKAGES)} == {
        "INSTALLER",
        "PYODIDE_SOURCE",
    }


def test_each_kind_has_a_key_of_its_own(runtime: Path) -> None:
    lock = PyodideLockSpec.from_json(runtime / "pyodide-lock.json")
    kernel = next(runtime.glob("wasmbox_kernel-*.whl"))
    plot = package_snapshot_key(lock, kernel, PLOT_SNAPSHOT)
    assert plot != package_snapshot_key(lock, kernel)
    kiwi = lock.packages["kiwisolver"]  # a dependency of matplotlib only
    lock.packages["kiwisolver"] = kiwi.model_copy(update={"sha256": "0" * 64})
    assert package_snapshot_key(lock, kernel, PLOT_SNAPSHOT) != plot
