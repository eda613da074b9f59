"""What `Kernel.run` returns: a JSON-safe dict mirroring the TypeScript ExecutionResult.

`durationMs` and `stateLost` are added by the host (the worker / SDK), and
`audit.peakMemoryBytes` is filled in by the worker (it sees the wasm heap); the kernel leaves it
`None`.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

Outcome = Literal[
    "OUTCOME_OK",
    "OUTCOME_FAILED",
    "OUTCOME_MEMORY_EXCEEDED",
    "OUTCOME_POLICY_VIOLATION",
    "OUTCOME_CANCELLED",
]

MimeBundle = dict[str, str]
"""MIME type to data; binary data (PNG) is base64 text."""


class Display(TypedDict):
    mime: str
    data: str


class FileInfo(TypedDict):
    path: str
    size: int
    mime: str


class ErrorInfo(TypedDict):
    name: str
    message: str
    traceback: str
    # One line saying how to repair, for the failures models repeat (`hints.py`); absent otherwise.
    hint: NotRequired[str]


class NetworkAttempt(TypedDict):
    kind: str
    target: str


class Audit(TypedDict):
    codeSha256: str
    filesRead: list[str]
    filesWritten: list[str]
    networkAttempts: list[NetworkAttempt]
    importedModules: list[str]
    peakMemoryBytes: int | None


class PolicyInfo(TypedDict):
    rule: str
    line: int | None
    message: str


class ExecutionResult(TypedDict):
    outcome: Outcome
    stdout: str
    stderr: str
    truncated: bool
    value: MimeBundle | None
    displays: list[Display]
    files: list[FileInfo]
    error: ErrorInfo | None
    audit: Audit
    policy: PolicyInfo | None
    # A hint on a result without an error (a run that showed nothing); absent otherwise.
    hint: NotRequired[str]
