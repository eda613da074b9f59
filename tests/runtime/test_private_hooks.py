"""The private Pyodide 0.27.7 hooks wasmbox relies on still exist with the shape it uses.

The work-arounds are in `wasmbox_kernel/_patches/` and `wasm_runtime/sandbox/pyodide-private.ts`;
this boots the npm package's Pyodide in Node (no browser, no runtime build) and looks at each.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.node_probe import node_json
from wasm_runtime.paths import REPO_ROOT

PROBE = REPO_ROOT / "tests" / "support" / "private_hooks.mjs"


@pytest.fixture(scope="module")
def hooks() -> dict[str, Any]:
    report: dict[str, Any] = node_json(
        "--import", "tsx", str(PROBE), what="the private hooks probe"
    )
    return report


def test_the_pyodide_these_hooks_target(hooks: dict[str, Any]) -> None:
    assert hooks["version"] == "0.27.7"


def test_the_emscripten_module_parts_the_memory_figures_read(hooks: dict[str, Any]) -> None:
    expected = [
        "HEAP8",
        "HEAPU32",
        "stackSave",
        "stackAlloc",
        "stackRestore",
        "_mallinfo",
        "_malloc_footprint",
    ]
    assert hooks["module"] == expected


def test_the_memory_growth_the_budget_refuses(hooks: dict[str, Any]) -> None:
    """Growth past the budget raises MemoryError in Python, the memory is not taken, and the
    variables stay (sandbox/memory-budget.ts, through growMemory and _emscripten_resize_heap)."""
    assert hooks["memoryGuard"] == {
        "guarded": True,
        "raised": "MemoryError",
        "grewPastBudget": False,
        "kept": 42,
        "outcome": "OUTCOME_MEMORY_EXCEEDED",
        "grewWithin": True,
    }


def test_the_fatal_error_hook_is_called(hooks: dict[str, Any]) -> None:
    assert hooks["api"] is True and hooks["onFatalCalled"] is True


def test_the_snapshot_option(hooks: dict[str, Any]) -> None:
    assert hooks["loadSnapshotOption"] is True


def test_the_zipimport_internals_zip_cache_uses(hooks: dict[str, Any]) -> None:
    python = hooks["python"]
    assert python["zipDirectoryCache"] and python["zipimporterFiles"]
    assert python["invalidateCaches"]


def test_the_package_loader_wheel_unpack_replaces(hooks: dict[str, Any]) -> None:
    python = hooks["python"]
    assert python["unpackBufferParameters"] == [
        "buffer",
        "filename",
        "format",
        "extract_dir",
        "calculate_dynlibs",
        "installer",
        "source",
    ]
    assert python["loaderHelpers"] == [
        "install_datafiles",
        "set_wheel_installer",
        "should_load_dynlib",
        "to_js",
    ]


def test_the_dynamic_linker_parts_the_package_snapshot_relinks_with(hooks: dict[str, Any]) -> None:
    assert hooks["linker"] == [
        "LDSO",
        "GOT",
        "wasmTable",
        "wasmTableMirror",
        "freeTableIndexes",
        "newDSO",
        "loadWebAssemblyModule",
        "mergeLibSymbols",
        "reportUndefinedSymbols",
        "setWasmTableEntry",
        "updateTableMap",
        "_emscripten_builtin_malloc",
        "__PyRuntime",
        "__PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET",
        "__hiwire_set",
    ]
    assert hooks["placedHandle"] is True


def test_the_snapshot_restore_hook_and_the_loaded_packages_slot(hooks: dict[str, Any]) -> None:
    assert hooks["createModuleGlobal"] is True and hooks["restoreSnapshot"] is True
    assert hooks["loadedPackagesSlot"] is True


def test_a_file_placed_in_a_memfs_directory_reads_back(hooks: dict[str, Any]) -> None:
    assert hooks["memfsPlacedFile"] is True


def test_every_change_to_a_file_moves_the_count_and_reads_do_not(hooks: dict[str, Any]) -> None:
    """A run skips the scan of the working directory when the count did not move
    (sandbox/file-changes.ts): a change it missed would be a file missing from `result.files`."""
    moved = hooks["fileChanges"]
    assert moved is not None, "MEMFS's operation tables are not where the count looks"
    reads = {"read a file", "list and stat", "read again"}
    assert {name for name, changed in moved.items() if not changed} == reads
    assert len(moved) == 14


def test_the_workers_walk_of_the_files_is_the_kernels_scan(hooks: dict[str, Any]) -> None:
    """The worker walks the working directory in the kernel's place (sandbox/file-scan.ts): the
    same files (links not followed, 16 levels deep, hidden ones too) with the same sizes, in
    Python's order of names."""
    scans = hooks["fileScan"]
    assert scans["worker"] == scans["kernel"]
    paths = [path for path, _ in scans["worker"]]
    assert "a.d/x" in paths and ".hidden/.dot" in paths and "\U0001f600" in paths
    assert not any(path.endswith("too-deep.txt") or "link" in path for path in paths)


def test_the_path_lookup_shortcut_finds_what_emscripten_finds(hooks: dict[str, Any]) -> None:
    """The worker walks plain paths node by node (sandbox/fs-paths.ts): on relative and absolute
    paths, ".", ".." and "//", links followed or not, a mount, a missing file, with every kind of
    lookup option, each result (or error) is the one Emscripten's own lookup gives."""
    lookups = hooks["pathLookups"]
    assert lookups["installed"] is True
    assert lookups["same"] is True
    assert lookups["compared"] > 100
    assert lookups["opened"] == "y"
