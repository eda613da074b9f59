"""The client's exceptions. What the code does never raises: it is in the ExecutionResult."""

from __future__ import annotations


class WasmboxError(Exception):
    """Root of the errors the Python client raises."""


class SandboxError(WasmboxError):
    """The SDK refused a call (closed sandbox, bad file name, size cap, missing feature)."""


class RuntimeMissing(WasmboxError):
    """The runtime has not been built: there is nothing to serve to the browser."""
