"""What `Kernel.run` returns: a JSON-safe dict, the `KernelResult` of protocol/schema.ts.

The SDK's `ExecutionResult` extends it: `durationMs`, `stateLost` and the rest are added by the
host, and `audit.peakMemoryBytes` is filled in by the worker (it sees the wasm heap); the kernel
leaves it `None`.
"""

from __future__ import annotations

import json
from typing import NotRequired, TypedDict

Outcome = str
"""One of the protocol's outcomes (`protocol_data.OUTCOMES`), all but OUTCOME_DEADLINE_EXCEEDED,
which only the host gives."""

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


class KernelResult(TypedDict):
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


def result_json(result: KernelResult) -> str:
    """`result` as JSON text: the worker parses it in one call (sandbox/execute.ts), where
    converting the dict crossed between Python and JavaScript once per value. Strings go as they
    are (not escaped to ASCII), lone surrogates included, as the conversion gave them."""
    return _RESULT_ENCODER.encode(result)


# One encoder for every result: json.dumps with options builds a new one per call.
_RESULT_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
