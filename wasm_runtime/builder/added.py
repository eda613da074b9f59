"""Packages the user adds: `wasmbox build --with REQ --requirements FILE --wheel PATH`.

Requirements are resolved by pip for the runtime's Python and platform (CPython 3.12, Pyodide's
`pyodide_2024_0_wasm32`), binary only: a pure-Python wheel or a Pyodide build is accepted, a
package with only compiled wheels for other platforms or a source archive is refused by name.
What the runtime already ships is offered to pip as stand-in wheels with no dependencies (pinned
to the shipped versions by a constraint), so pip resolves around it and downloads only what is new.

Every file pip picks is pinned by sha256 in a lock (LOCK_FILE in the runtime folder), in the form
of extras.txt, and fetched through the same cache and hash check as the extras. The lock records
the request it answers: an unchanged request reuses it with no resolution (offline once the cache
holds the files); a changed one resolves again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.extras import ExtraPin, fetch_extras, read_pins
from wasm_runtime.builder.hashing import sha256_bytes, sha256_file
from wasm_runtime.builder.pins import PYODIDE_VERSION, PYTHON_VERSION

LOCK_FILE = "added-packages.txt"
PYODIDE_PLATFORMS = ("pyodide_2024_0_wasm32", "emscripten_3_1_58_wasm32")
_PYTHON = tuple(int(part) for part in PYTHON_VERSION.split(".")[:2])
_ABI = f"cp{_PYTHON[0]}{_PYTHON[1]}"
# The tags a wheel may carry to run here: pure Python, or built for this Python and Pyodide.
RUNTIME_TAGS = frozenset(
    [
        *cpython_tags(_PYTHON, abis=[_ABI, "abi3", "none"], platforms=PYODIDE_PLATFORMS),
        *compatible_tags(_PYTHON, _ABI, platforms=PYODIDE_PLATFORMS),
    ]
)
_REQUEST_LINE = "# request: "
_NO_MATCH = re.compile(r"No matching distribution found for (\S+)")


@dataclass(frozen=True)
class AddRequest:
    """What to add: requirement strings (`--with`, `--requirements`) and wheel files (`--wheel`)."""

    requirements: tuple[str, ...] = ()
    wheels: tuple[Path, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.requirements or self.wheels)


@dataclass
class Added:
    """The verified wheels to ship, the lock's text and what had to be downloaded."""

    wheels: list[Path] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    lock_text: str | None = None
    downloaded: list[str] = field(default_factory=list)


def read_requirements_file(path: Path) -> list[str]:
    """The requirement lines of `path` (comments and blank lines skipped; pip options refused)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BuildError(f"Cannot read the requirements file {path}: {exc.strerror}.") from exc
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            raise BuildError(
                f"{path} line {number}: only requirements (`name==version`) are read here, "
                f"not pip options: {line}"
            )
        lines.append(check_requirement(line, f"{path} line {number}"))
    return lines


def check_requirement(text: str, where: str = "--with") -> str:
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise BuildError(f"{where}: {text!r} is not a requirement like `name==1.0`: {exc}") from exc
    if requirement.url:
        raise BuildError(
            f"{where}: {text!r} names a URL; download the wheel and pass it with --wheel PATH."
        )
    return text


def check_wheel(path: Path) -> str:
    """The wheel's project name, once `path` is a wheel that runs in this runtime."""
    try:
        name, _, _, tags = parse_wheel_filename(path.name)
    except InvalidWheelFilename as exc:
        raise BuildError(f"--wheel {path}: not a wheel file name ({exc}).") from exc
    if not path.is_file():
        raise BuildError(f"--wheel {path}: no such file.")
    if not tags & RUNTIME_TAGS:
        wanted = f"Python {_PYTHON[0]}.{_PYTHON[1]} on Pyodide {PYODIDE_VERSION}"
        raise BuildError(
            f"--wheel {path.name} is built for {_tag_text(tags)}, not for {wanted}: bring a "
            f"pure-Python wheel (py3-none-any) or one built for Pyodide "
            f"({_ABI}-{_ABI}-{PYODIDE_PLATFORMS[0]})."
        )
    if not zipfile.is_zipfile(path):
        raise BuildError(f"--wheel {path}: the file is not a zip archive, so not a wheel.")
    return str(canonicalize_name(name))


def resolve(
    request: AddRequest, shipped: dict[str, str], cache_dir: Path, lock_path: Path
) -> Added:
    """The wheels `request` adds to a runtime that ships `shipped` ({name: version})."""
    if not request:
        return Added()
    user_wheels = {check_wheel(path): path for path in request.wheels}
    for name in user_wheels:
        if name in shipped:
            raise BuildError(
                f"--wheel: {name} {shipped[name]} is already in the runtime; "
                "a second copy of it cannot be added."
            )
    key = request_key(request, shipped)
    pins = _locked_pins(lock_path, key)
    if pins is None:
        pins = _resolve_with_pip(request, shipped)
    wheels, downloaded = fetch_extras(cache_dir, pins)
    names = sorted({pin.name for pin in pins} | set(user_wheels))
    return Added(
        wheels=[*wheels, *user_wheels.values()],
        names=names,
        lock_text=lock_for(key, pins, request.wheels),
        downloaded=downloaded,
    )


def request_key(request: AddRequest, shipped: dict[str, str]) -> str:
    """Changes when the request or the runtime it resolves against changes."""
    described = {
        "requirements": list(request.requirements),
        "wheels": sorted(sha256_file(path) for path in request.wheels),
        "shipped": sorted(shipped.items()),
        "python": PYTHON_VERSION,
        "platforms": PYODIDE_PLATFORMS,
    }
    return sha256_bytes(json.dumps(described, sort_keys=True).encode())


def _locked_pins(lock_path: Path, key: str) -> list[ExtraPin] | None:
    """The pins of the lock at `lock_path`, when it answers this very request."""
    if not lock_path.is_file():
        return None
    text = lock_path.read_text(encoding="utf-8")
    if f"{_REQUEST_LINE}{key}" not in text.splitlines():
        return None
    return read_pins(text, file_name=LOCK_FILE)


def lock_for(key: str, pins: list[ExtraPin], wheels: tuple[Path, ...]) -> str:
    lines = [
        "# Packages added by `wasmbox build --with/--requirements/--wheel`, pinned by sha256.",
        "# An unchanged request reuses these pins; a changed one is resolved again.",
        f"{_REQUEST_LINE}{key}",
        *(pin.requirement_line for pin in pins),
        *(f"# --wheel {path.name} sha256:{sha256_file(path)}" for path in wheels),
    ]
    return "\n".join(lines) + "\n"


def _resolve_with_pip(request: AddRequest, shipped: dict[str, str]) -> list[ExtraPin]:
    with tempfile.TemporaryDirectory(prefix="wasmbox-resolve-") as tmp:
        folder = Path(tmp)
        stand_ins = folder / "shipped"
        stand_ins.mkdir()
        for name, version in shipped.items():
            _write_stand_in(stand_ins, name, version)
        constraints = folder / "shipped.txt"
        constraints.write_text("".join(f"{name}=={v}\n" for name, v in sorted(shipped.items())))
        report = folder / "report.json"
        wheels = {path.resolve().as_uri() for path in request.wheels}
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed"]
        command += ["--quiet", "--disable-pip-version-check", "--report", str(report)]
        # pip wants a target for foreign platforms even in a dry run; nothing is written there.
        command += ["--target", str(folder / "target")]
        command += ["--only-binary=:all:", "--python-version", f"{_PYTHON[0]}.{_PYTHON[1]}"]
        command += ["--implementation", "cp", "--abi", _ABI, "--abi", "abi3", "--abi", "none"]
        for platform in PYODIDE_PLATFORMS:
            command += ["--platform", platform]
        command += ["--find-links", str(stand_ins), "-c", str(constraints)]
        command += [*request.requirements, *(str(path.resolve()) for path in request.wheels)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if done.returncode != 0:
            raise _explain_failure(done.stderr)
        installs = json.loads(report.read_text())["install"]
    pins = []
    for item in installs:
        name = str(canonicalize_name(item["metadata"]["name"]))
        info = item["download_info"]
        if name in shipped or info["url"] in wheels:
            continue
        file_name = info["url"].rsplit("/", 1)[-1]
        _, _, _, tags = parse_wheel_filename(file_name)
        if not tags & RUNTIME_TAGS:  # pip's own filter should make this impossible
            raise BuildError(f"pip picked {file_name} for {name}, which does not run in Pyodide.")
        sha256 = info.get("archive_info", {}).get("hashes", {}).get("sha256")
        if not sha256:
            raise BuildError(
                f"The package index gave no sha256 for {file_name}: it cannot be pinned."
            )
        pins.append(ExtraPin(name, item["metadata"]["version"], sha256))
    return sorted(pins, key=lambda pin: pin.name)


def _write_stand_in(folder: Path, name: str, version: str) -> None:
    """A wheel of metadata only: tells pip `name` `version` is there, with no dependencies."""
    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}.dist-info/RECORD": "",
    }
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as wheel:
        for member, text in files.items():
            wheel.writestr(member, text)


def _explain_failure(pip_stderr: str) -> BuildError:
    errors = [line for line in pip_stderr.splitlines() if line.startswith("ERROR")]
    said = "\n  ".join(errors[-4:] or pip_stderr.strip().splitlines()[-4:])
    match = _NO_MATCH.search(pip_stderr)
    if match is None:
        return BuildError(
            f"pip could not resolve the packages to add:\n  {said}\n"
            "Packages the runtime already ships keep the version it ships."
        )
    name = re.split(r"[<>=!~;\[ ]", match.group(1), maxsplit=1)[0]
    if not _on_index(name):
        return BuildError(f"{name}: no package of that name was found on the package index.")
    return BuildError(
        f"{name} cannot be added: it has compiled code and no wheel that runs in Pyodide "
        f"{PYODIDE_VERSION} (Python {_PYTHON[0]}.{_PYTHON[1]}, {PYODIDE_PLATFORMS[0]}). The index "
        "has only wheels built for other platforms or a source archive, and the build does not "
        "compile C. Bring a Pyodide build of it with --wheel PATH, or use a pure-Python "
        "alternative."
    )


def _on_index(name: str) -> bool:
    """Whether the index has `name` at all, for any platform (pip's host view)."""
    command = [sys.executable, "-m", "pip", "index", "versions", name]
    command += ["--disable-pip-version-check", "--pre"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    return done.returncode == 0


def _tag_text(tags: frozenset[Tag]) -> str:
    return ", ".join(sorted(str(tag) for tag in tags))
