"""The lock arithmetic and the pinned extras list, without building anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.extras import read_pins
from wasm_runtime.builder.kernel_wheel import build_kernel_wheel
from wasm_runtime.builder.lockfile import closure, load_official_lock, official_packages
from wasm_runtime.paths import KERNEL_SRC, NODE_MODULES


@pytest.fixture(scope="module")
def lock():
    return load_official_lock(NODE_MODULES)


def test_closure_follows_dependencies(lock) -> None:
    assert {"scikit-learn", "scipy", "numpy", "joblib", "threadpoolctl", "openblas"} <= closure(
        lock, ["scikit-learn"]
    )


def test_unknown_package_is_a_clear_error(lock) -> None:
    with pytest.raises(BuildError, match="no package named 'not-a-package'"):
        closure(lock, ["not-a-package"])


def test_extras_replace_official_entries(lock) -> None:
    shipped = official_packages(lock, ["numpy", "sympy"], replaced={"sympy", "mpmath"})
    assert "numpy" in shipped
    assert "sympy" not in shipped and "mpmath" not in shipped


def test_checked_in_pins_parse() -> None:
    names = {pin.name for pin in read_pins()}
    assert {"sympy", "mpmath", "networkx", "seaborn", "openpyxl", "et-xmlfile", "tabulate"} <= names
    assert {"faker", "holidays", "beautifulsoup4", "soupsieve", "requests", "urllib3"} <= names


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("sympy>=1.13", id="no-exact-version"),
        pytest.param("sympy==1.13.3", id="no-hash"),
        pytest.param("sympy==1.13.3 --hash=md5:abc", id="wrong-algorithm"),
    ],
)
def test_malformed_pin_names_its_line(line: str) -> None:
    with pytest.raises(BuildError, match="line 2"):
        read_pins(f"# comment\n{line}\n")


def test_kernel_wheel_version_follows_its_sources(tmp_path: Path) -> None:
    import shutil

    src = tmp_path / "kernel"
    shutil.copytree(KERNEL_SRC, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    first = build_kernel_wheel(src, tmp_path / "cache")
    assert build_kernel_wheel(src, tmp_path / "cache") == first
    (src / "wasmbox_kernel" / "__init__.py").write_text('"""changed"""\n__version__ = "0.1.0"\n')
    second = build_kernel_wheel(src, tmp_path / "cache")
    assert second.name != first.name
    assert second.name.startswith("wasmbox_kernel-0.1.0+k")
