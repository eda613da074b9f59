"""`wasmbox build --with/--requirements/--wheel`: what is accepted, what is refused and why, and
that a refused request leaves the previous runtime as it was."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.runtime.conftest import replace_file
from wasm_runtime.builder.added import (
    LOCK_FILE,
    AddRequest,
    check_wheel,
    lock_for,
    read_requirements_file,
    request_key,
    resolve,
)
from wasm_runtime.builder.errors import BuildError, HashMismatchError
from wasm_runtime.builder.extras import ExtraPin
from wasm_runtime.builder.hashing import sha256_file
from wasm_runtime.cli import main


def wheel_file(folder: Path, name: str) -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("x/__init__.py", "")
    return path


@pytest.mark.parametrize(
    "name",
    [
        "tiny-1.0-py3-none-any.whl",
        "tiny-1.0-py2.py3-none-any.whl",
        "tiny-1.0-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "tiny-1.0-cp312-cp312-emscripten_3_1_58_wasm32.whl",
        "tiny-1.0-cp312-abi3-pyodide_2024_0_wasm32.whl",
    ],
)
def test_wheels_that_run_in_pyodide_are_accepted(tmp_path: Path, name: str) -> None:
    assert check_wheel(wheel_file(tmp_path, name)) == "tiny"


@pytest.mark.parametrize(
    "name",
    [
        "tiny-1.0-cp312-cp312-manylinux_2_17_x86_64.whl",
        "tiny-1.0-cp311-cp311-pyodide_2024_0_wasm32.whl",  # Pyodide 0.26's Python
        "tiny-1.0-cp313-cp313-pyodide_2025_0_wasm32.whl",
        "tiny-1.0-py2-none-any.whl",
    ],
)
def test_wheels_for_another_platform_or_python_are_refused_by_name(
    tmp_path: Path, name: str
) -> None:
    with pytest.raises(BuildError, match=name.replace(".", r"\.")) as refused:
        check_wheel(wheel_file(tmp_path, name))
    assert "not for Python 3.12 on Pyodide 0.27.7" in str(refused.value)


def test_a_file_that_is_not_a_wheel_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tiny-1.0-py3-none-any.whl"
    path.write_bytes(b"not a zip")
    with pytest.raises(BuildError, match="not a zip archive"):
        check_wheel(path)
    with pytest.raises(BuildError, match="no such file"):
        check_wheel(tmp_path / "gone-1.0-py3-none-any.whl")


def test_a_requirements_file_gives_its_requirement_lines(tmp_path: Path) -> None:
    file = tmp_path / "requirements.txt"
    file.write_text("# data tools\nfaker==33.1.0  # fake rows\n\ninflection>=0.5\n")
    assert read_requirements_file(file) == ["faker==33.1.0", "inflection>=0.5"]
    file.write_text("--index-url https://example.com/simple\nfaker\n")
    with pytest.raises(BuildError, match="line 1: only requirements"):
        read_requirements_file(file)
    file.write_text("faker @ https://example.com/faker.whl\n")
    with pytest.raises(BuildError, match="names a URL"):
        read_requirements_file(file)


def test_a_wheel_the_runtime_already_ships_is_refused(tmp_path: Path) -> None:
    wheel = wheel_file(tmp_path, "six-1.17.0-py2.py3-none-any.whl")
    request = AddRequest(wheels=(wheel,))
    with pytest.raises(BuildError, match=r"six 1\.16\.0 is already in the runtime"):
        resolve(request, {"six": "1.16.0"}, tmp_path / "cache", tmp_path / LOCK_FILE)


def test_an_unchanged_request_reuses_its_lock_and_a_tampered_file_is_refused(
    tmp_path: Path,
) -> None:
    """The lock answers the same request with no resolution; every file is still hash-checked."""
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = wheel_file(cache, "inflection-0.5.1-py2.py3-none-any.whl")
    pin = ExtraPin("inflection", "0.5.1", sha256_file(wheel))
    request = AddRequest(requirements=("inflection==0.5.1",))
    shipped = {"six": "1.16.0"}
    lock = tmp_path / LOCK_FILE
    # A lock for this very request: were resolve() to ask pip, it would find another file.
    lock.write_text(lock_for(request_key(request, shipped), [pin], ()))

    added = resolve(request, shipped, cache, lock)

    assert added.wheels == [wheel] and added.downloaded == [] and added.names == ["inflection"]
    assert added.lock_text == lock.read_text()
    replace_file(wheel, b"tampered")
    with pytest.raises(HashMismatchError, match=r"inflection-0\.5\.1"):
        resolve(request, shipped, cache, lock)


def test_cli_refuses_a_wheel_for_linux_and_leaves_the_last_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runtime"
    out.mkdir()
    (out / "manifest.json").write_text("the previous build\n")
    wheel = wheel_file(tmp_path, "fastthing-2.0-cp312-cp312-manylinux_2_17_x86_64.whl")

    code = main(["build", "--out", str(out), "--wheel", str(wheel)])

    message = " ".join(capsys.readouterr().err.split())
    assert code == 1
    assert "fastthing-2.0-cp312-cp312-manylinux_2_17_x86_64.whl is built for" in message
    assert [p.name for p in out.iterdir()] == ["manifest.json"]
    assert (out / "manifest.json").read_text() == "the previous build\n"


@pytest.mark.network
def test_cli_refuses_a_compiled_package_without_a_pyodide_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """regex is C with wheels for desktop platforms only: pip finds none for Pyodide."""
    out = tmp_path / "runtime"
    out.mkdir()
    (out / "manifest.json").write_text("the previous build\n")

    code = main(["build", "--out", str(out), "--with", "regex"])

    message = " ".join(capsys.readouterr().err.split())
    assert code == 1
    assert "regex cannot be added: it has compiled code and no wheel that runs in Pyodide" in (
        message
    )
    assert [p.name for p in out.iterdir()] == ["manifest.json"]
    assert (out / "manifest.json").read_text() == "the previous build\n"
