"""`KernelOptions`: how the worker configures a kernel (once per worker)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast

from .protocol_data import LIMITS

PolicySpec = Literal["default", "off"] | dict[str, object]
"""`"default"`, `"off"`, or `{"allowModules": [...], "denyModules": [...], "maxCodeBytes": n}`."""

DEFAULT_RECURSION_LIMIT = 1000
"""CPython's own default, in every engine. Measured in sandbox workers of Chromium 156, Firefox
153 ESR and WebKitGTK 2.50 (Pyodide 0.27.7, `make bench-reliability BROWSER=...`): plain Python
recursion uses no C stack on 3.12 and passed 50,000 levels in each. Recursion that goes back
through C on every level overflows the browser's stack much sooner, at a depth that differs per
engine (`c_stack_levels`, from sandbox/stack.ts), whatever this limit is. Such an overflow is
fatal to Pyodide: the worker reports it at once (sandbox/fatal.ts) and the run fails with a
RecursionError, so this limit guards the depth of plain Python recursion, not the worker's life."""


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"KernelOptions.{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class KernelOptions:
    """Settings of one kernel; see the package docstring for what each one does."""

    stdout_limit: int = LIMITS["stdoutLimit"]
    stderr_limit: int = LIMITS["stderrLimit"]
    stream_batch_bytes: int = 8192
    stream_interval_s: float = 0.05
    cwd: str = "/home/pyodide"
    policy: PolicySpec = "default"
    allow_install: bool = False
    available_packages: Mapping[str, str] = field(default_factory=dict)
    recursion_limit: int = DEFAULT_RECURSION_LIMIT
    c_stack_levels: int | None = None
    cell_prefix: str = "cell"

    def __post_init__(self) -> None:
        _check_int("stdout_limit", self.stdout_limit, 0)
        _check_int("stderr_limit", self.stderr_limit, 0)
        _check_int("stream_batch_bytes", self.stream_batch_bytes, 1)
        _check_int("recursion_limit", self.recursion_limit, 50)
        if self.c_stack_levels is not None:
            _check_int("c_stack_levels", self.c_stack_levels, 1)
        interval = self.stream_interval_s
        if isinstance(interval, bool) or not isinstance(interval, int | float) or interval < 0:
            raise ValueError(f"KernelOptions.stream_interval_s must be >= 0, got {interval!r}")
        if not isinstance(self.cwd, str) or not self.cwd:
            raise ValueError(f"KernelOptions.cwd must be a non-empty path, got {self.cwd!r}")
        if not isinstance(self.allow_install, bool):
            raise ValueError(
                f"KernelOptions.allow_install must be a bool, got {self.allow_install!r}"
            )
        if not isinstance(self.cell_prefix, str) or not self.cell_prefix.isidentifier():
            raise ValueError(
                f"KernelOptions.cell_prefix must be an identifier: {self.cell_prefix!r}"
            )
        packages = self.available_packages
        if not isinstance(packages, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in packages.items()
        ):
            raise ValueError("KernelOptions.available_packages must map names to version strings")

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> KernelOptions:
        """Build options from a plain dict (e.g. converted from JavaScript); unknown keys fail."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown KernelOptions key(s): {', '.join(unknown)}; "
                f"known keys: {', '.join(sorted(known))}"
            )
        return cls(**cast(dict[str, Any], dict(data)))
