"""`ExecutionResult` and its parts as pydantic models of the SDK's result.

The SDK's result is defined once, by the valibot schema in wasm_runtime/protocol/schema.ts; its JSON
Schema (protocol/execution-result.schema.json, made by `make protocol`) is what these models are
checked against (tests/client/test_results.py: the same fields, the same required ones) and where
the outcomes are read from. Fields are snake_case in Python and camelCase on the wire, as the SDK
returns them. Unknown fields are refused, so a field added on one side only fails the shared
fixtures' tests (tests/fixtures/sdk-results/) instead of vanishing silently.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


def result_json_schema() -> dict[str, Any]:
    """The SDK's ExecutionResult as JSON Schema (wasm_runtime/protocol/)."""
    text = resources.files("wasm_runtime").joinpath("protocol", RESULT_SCHEMA).read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


RESULT_SCHEMA = "execution-result.schema.json"
OUTCOMES: tuple[str, ...] = tuple(result_json_schema()["properties"]["outcome"]["enum"])
"""Every outcome a run can end with, in the protocol's order (`OUTCOME_OK` first)."""


def known_outcome(outcome: str) -> str:
    if outcome not in OUTCOMES:
        raise ValueError(f"not an outcome: {outcome!r} (one of {', '.join(OUTCOMES)})")
    return outcome


Outcome = Annotated[str, AfterValidator(known_outcome)]
"""One of OUTCOMES."""


class WireModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    def wire(self) -> dict[str, object]:
        """The camelCase JSON object the SDK would have produced."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class Display(WireModel):
    mime: str
    data: str


class FileInfo(WireModel):
    path: str
    size: int
    mime: str


class ErrorInfo(WireModel):
    name: str
    message: str
    traceback: str
    hint: str | None = None  # one line: how to repair (the kernel's, from the real exception)


class NetworkAttempt(WireModel):
    kind: str
    target: str


class ToolCallRecord(WireModel):
    """One host tool call of the run, as the host recorded it."""

    name: str
    arguments_bytes: int
    ms: float
    ok: bool
    error: str | None


class Audit(WireModel):
    code_sha256: str
    files_read: list[str]
    files_written: list[str]
    network_attempts: list[NetworkAttempt]
    imported_modules: list[str]
    peak_memory_bytes: int | None
    tool_calls: list[ToolCallRecord] = []


class PolicyInfo(WireModel):
    rule: str
    line: int | None
    message: str


class Validation(WireModel):
    ok: bool
    errors: list[str]


class SkippedVariable(WireModel):
    name: str
    reason: str


class StateRestored(WireModel):
    """A persisted sandbox that lost its worker got its last save's variables back."""

    saved_at: float
    restored: list[str]
    not_restored: list[SkippedVariable]
    while_idle: bool | None = None
    """The worker was lost while idle, before this run (which then ran in the restored sandbox)."""
    reason: str | None = None
    """Why the worker was lost, when it was lost while idle."""


class ExecutionResult(WireModel):
    """What `Sandbox.execute` returns for anything the code does (DESIGN.md)."""

    outcome: Outcome
    stdout: str
    stderr: str
    truncated: bool
    value: dict[str, str] | None
    displays: list[Display]
    files: list[FileInfo]
    error: ErrorInfo | None
    audit: Audit
    policy: PolicyInfo | None
    duration_ms: float
    state_lost: bool
    validation: Validation | None = None
    state_restored: StateRestored | None = None
    hint: str | None = None  # a run that printed and returned nothing says so

    @property
    def ok(self) -> bool:
        return self.outcome == "OUTCOME_OK"

    @property
    def text(self) -> str | None:
        """The value's plain-text form, when the last line was an expression."""
        return None if self.value is None else self.value.get("text/plain")

    def images(self) -> list[Display]:
        return [d for d in self.displays if d.mime.startswith("image/")]


class StorageReport(WireModel):
    """The host page's storage (`navigator.storage`), where persisted sessions are kept."""

    usage: int | None
    quota: int | None
    persisted: bool | None


class ToolInfo(WireModel):
    """A host tool the sandbox's Python may call, with its Python signature."""

    name: str
    description: str
    signature: str


class Environment(WireModel):
    """`sb.environment()`: the kernel's description, the worker's latest loader lines, how a
    stopped run ends (SDK `mode.ts`), the page's storage, and the snapshot the worker started
    from ("packages": numpy and pandas came imported). Read against the shared fixtures in
    tests/fixtures/sdk-environments/, which the TS schema is checked on too."""

    python: str
    packages: dict[str, str]
    limits: dict[str, object]
    notes: list[str]
    log: list[str]
    mode: Literal["interrupt", "terminate-only"]
    mode_reason: str | None
    snapshot: Literal["packages", "base", "none"]
    storage: StorageReport | None = None
    tools: list[ToolInfo] = []
