"""wasmbox_kernel: runs the model's Python cells inside Pyodide and reports each run as data.

The JavaScript worker creates one kernel per worker and calls it like this::

    from wasmbox_kernel import Kernel, KernelOptions

    kernel = Kernel(KernelOptions.from_dict({"cwd": "/home/pyodide", "policy": "default"}))
    result = kernel.start(code, run_id="r-1", on_stream=lambda name, text: ...)  # or a task
    env = kernel.environment()

`Kernel(options: KernelOptions | None = None)`
    One namespace (`__name__ == "__main__"`, with `display`) kept across runs.
`await Kernel.run(code: str, *, run_id: str, on_stream: Callable[[str, str], None] | None = None)`
    -> `KernelResult` (a plain, JSON-safe dict; see `result.py`), with the keys `outcome`,
    `stdout`, `stderr`, `truncated`, `value`, `displays`, `files`, `error`, `audit`, `policy`.
    `on_stream("stdout" | "stderr", text)` receives output in batches while the cell runs.
    `Kernel.start` (same arguments) gives the result at once, or a task giving it when the cell
    uses top-level `await`: the worker calls it, so a plain cell costs no turn of the event loop.
    The host adds `durationMs`, `stateLost` and `audit.peakMemoryBytes`, and turns
    OUTCOME_CANCELLED into OUTCOME_DEADLINE_EXCEEDED when it interrupted for a deadline.
`prepare_interpreter()`: the worker calls it once at boot, before any package loads (see
    `interpreter.py`); `Kernel()` calls it too.
`Kernel.close()`: forgets the kernel's cells (their lines in `linecache`) and globals.
`Kernel.result_json(result)` -> the result as JSON text (the worker parses it in one call).
`Kernel.start_json` (same arguments as `start`) -> that text at once, or a task giving it: what
    the worker calls, so one string crosses to JavaScript instead of a proxy of the dict.
`Kernel.watch_files(changes, scan=None)`: the worker's count of file system changes (a run that
    changed nothing is not scanned) and, optionally, its own walk of the files (`fsscan.unpack`).
`Kernel.describe_files()` -> a bounded text preview of the working directory's data files
    (`describe_workspace(cwd)` gives the same from Python; see `workspace.py`).
`Kernel.environment()` -> `{"python", "packages", "limits", "notes"}` (see `environment.py`).
`KernelOptions(...)` / `KernelOptions.from_dict(d)`: stdout_limit, stderr_limit,
    stream_batch_bytes, stream_interval_s, cwd, policy ("default" | "off" | {allowModules,
    denyModules, maxCodeBytes}), allow_install, available_packages ({name: version}),
    recursion_limit, cell_prefix. Unknown keys raise ValueError.

The module policy is defence in depth only (see `policy.py`): the browser boundary (an
opaque-origin iframe and a worker under a strict CSP) is what keeps the code in.

The package also runs under plain CPython 3.11+ for its unit tests; it imports nothing from
Pyodide and never imports matplotlib unless the user's code did.
"""

from .interpreter import prepare_interpreter
from .kernel import Kernel
from .options import KernelOptions
from .policy import PolicyViolation
from .result import KernelResult
from .workspace import describe_workspace

__all__ = [
    "Kernel",
    "KernelOptions",
    "KernelResult",
    "PolicyViolation",
    "describe_workspace",
    "prepare_interpreter",
]
__version__ = "0.1.0"
