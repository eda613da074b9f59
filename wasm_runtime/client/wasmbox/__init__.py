"""wasmbox from Python: the browser sandbox (Pyodide in an isolated worker) as an async client.

```python
import wasmbox

async with await wasmbox.Sandbox.create(timeout=30) as sb:
    r = await sb.execute("import pandas as pd; pd.__version__")
    print(r.outcome, r.text)
```
"""

from wasmbox.errors import RuntimeMissing, SandboxError, WasmboxError
from wasmbox.host import Host
from wasmbox.report import result_text
from wasmbox.results import (
    Audit,
    Display,
    Environment,
    ErrorInfo,
    ExecutionResult,
    FileInfo,
    Outcome,
    PolicyInfo,
    Validation,
)
from wasmbox.sandbox import Sandbox

__all__ = [
    "Audit",
    "Display",
    "Environment",
    "ErrorInfo",
    "ExecutionResult",
    "FileInfo",
    "Host",
    "Outcome",
    "PolicyInfo",
    "RuntimeMissing",
    "Sandbox",
    "SandboxError",
    "Validation",
    "WasmboxError",
    "result_text",
]
