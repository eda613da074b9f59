"""`wasmbox build` end to end from a warm cache: refusal of tampered files, idempotence, output."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.runtime.conftest import replace_file
from wasm_runtime.builder import BuildOptions, build_runtime
from wasm_runtime.builder.hashing import sha256_file
from wasm_runtime.builder.pins import PYODIDE_VERSION
from wasm_runtime.cli import main
from wasm_runtime.paths import REPO_ROOT

# importlib.util.MAGIC_NUMBER of CPython 3.12, the Python inside Pyodide 0.27.7.
PYTHON_3_12_MAGIC = (3531).to_bytes(2, "little") + b"\r\n"


def build(cache: Path, out: Path):
    return build_runtime(BuildOptions(out_dir=out, cache_dir=cache, use_cdn=False))


def snapshot(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}


def test_tampered_cached_wheel_is_refused_with_both_hashes(
    cache_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = cache_copy / f"pyodide-{PYODIDE_VERSION}" / "six-1.16.0-py2.py3-none-any.whl"
    expected = sha256_file(wheel)
    replace_file(wheel, wheel.read_bytes() + b"tampered")

    code = main(
        ["build", "--cache-dir", str(cache_copy), "--out", str(tmp_path / "out"), "--no-cdn"]
    )

    message = " ".join(capsys.readouterr().err.split())
    assert code == 1
    assert "six-1.16.0-py2.py3-none-any.whl" in message
    assert f"expected {expected}" in message
    assert f"actual {sha256_file(wheel)}" in message
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_tampered_extra_is_refused(cache_copy: Path, tmp_path: Path) -> None:
    wheel = cache_copy / "extras" / "tabulate-0.10.0-py3-none-any.whl"
    replace_file(wheel, b"not a wheel")
    with pytest.raises(Exception, match=r"tabulate-0\.10\.0-py3-none-any\.whl"):
        build(cache_copy, tmp_path / "out")


def test_second_build_downloads_and_rewrites_nothing(cache_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = build(cache_copy, out)
    before = snapshot(out)
    manifest_before = (out / "manifest.json").read_text()

    second = build(cache_copy, out)

    assert first.downloaded == [] and second.downloaded == []
    assert {name: when for name, when in snapshot(out).items() if name != "manifest.json"} == {
        name: when for name, when in before.items() if name != "manifest.json"
    }
    assert (out / "manifest.json").read_text() == manifest_before


def test_manifest_lists_every_file_with_size_and_hash(cache_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(cache_copy, out)
    manifest = json.loads((out / "manifest.json").read_text())

    assert manifest["pyodide"] == PYODIDE_VERSION
    assert manifest["python"] == "3.12.7"
    primary = {p.name for p in out.iterdir() if p.suffix not in (".br", ".gz")} - {"manifest.json"}
    assert set(manifest["files"]) == primary
    for name, entry in manifest["files"].items():
        assert entry["size"] == (out / name).stat().st_size
        assert entry["sha256"] == sha256_file(out / name)


def test_lock_ships_only_what_is_in_the_folder(cache_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(cache_copy, out)
    lock = json.loads((out / "pyodide-lock.json").read_text())

    for name, entry in lock["packages"].items():
        assert (out / entry["file_name"]).is_file(), name
        assert sha256_file(out / entry["file_name"]) == entry["sha256"], name
    assert {"numpy", "pandas", "scikit-learn", "sympy", "seaborn", "wasmbox-kernel"} <= set(
        lock["packages"]
    )
    assert "shapely" not in lock["packages"]
    assert lock["packages"]["seaborn"]["depends"] == ["numpy", "pandas", "matplotlib"]


def test_stale_files_are_removed(cache_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "left-over-1.0-py3-none-any.whl").write_bytes(b"old")
    build(cache_copy, out)
    assert not (out / "left-over-1.0-py3-none-any.whl").exists()


def test_build_output_is_ignored_by_git() -> None:
    status = subprocess.run(
        ["git", "status", "--porcelain", "--", "build", "node_modules", ".venv"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""


def test_wheels_carry_bytecode_for_pyodides_python(cache_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(cache_copy, out)
    with zipfile.ZipFile(next(out.glob("numpy-*.whl"))) as wheel:
        assert "numpy/__init__.py" in wheel.namelist()  # sources kept, for tracebacks
        pyc = wheel.read("numpy/__pycache__/__init__.cpython-312.pyc")
    assert pyc[:4] == PYTHON_3_12_MAGIC
    assert int.from_bytes(pyc[4:8], "little") == 0b01  # unchecked hash-based


def test_a_compressed_sibling_this_build_did_not_make_is_removed(
    cache_copy: Path, tmp_path: Path
) -> None:
    """Wheels are not pre-compressed; a .br left by another build would be served instead."""
    out = tmp_path / "out"
    build(cache_copy, out)
    leftover = out / "six-1.16.0-py2.py3-none-any.whl.br"
    leftover.write_bytes(b"an earlier build's idea of this wheel")
    build(cache_copy, out)
    assert not leftover.exists()
    assert (out / "pyodide.asm.wasm.br").is_file()
