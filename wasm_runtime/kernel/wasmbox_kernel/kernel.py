"""`Kernel`: runs cells in one persistent namespace and reports each run as a KernelResult."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import linecache
import operator
import os
import random
import sys
import types
from collections.abc import Callable, Coroutine, Sequence
from typing import TypedDict, Unpack

from .announce import ImportAnnouncer, ImportCallback
from .audit import AuditCollector, library_roots
from .cells import CompiledCell, CompiledCells, compile_cell, evaluate, parse_cell
from .charts import install_chart_hooks
from .context import DISPATCHER, RunContext
from .displays import display, take_open_figures
from .environment import Environment, describe
from .errors import error_info, outcome_of
from .fsscan import Snapshot, changed_files, scan, unpack
from .hints import empty_run_hint, error_hint
from .host import HostBridge, HostStdin, RunHost, granted, host_module, tools_in_reach
from .import_guard import ImportGuard
from .installs import confine_installed_micropip
from .interpreter import prepare_interpreter
from .mime import mime_bundle
from .module_attributes import Attribute, assigned_paths, module_attributes
from .options import KernelOptions
from .plotting import configure_matplotlib
from .policy import Policy, PolicyViolation, Violation
from .result import (
    Audit,
    Display,
    ErrorInfo,
    FileInfo,
    KernelResult,
    MimeBundle,
    Outcome,
    PolicyInfo,
    result_json,
)
from .settings_state import Baseline
from .state import Restored, SavedState, Surroundings, load_state, save_state
from .streams import CappedWriter, StreamCallback, redirect_stdin
from .tracebacks import format_exception
from .workspace import Workspace

CellCallback = Callable[[bool], None]
"""`on_cell(running)`: the cell's code starts (True) or has ended (False)."""

FileChanges = Callable[[], int]
"""`changes()`: how many changes the file system has had so far (the worker counts them)."""

FileScan = Callable[[str], str]
"""`scan(root)`: the worker's walk of the files under `root`, as `fsscan.unpack` reads it."""

_PATH = operator.itemgetter("path")


class RunHooks(TypedDict, total=False):
    """What a run may be given besides its code (see `Kernel.start`)."""

    on_stream: StreamCallback | None
    on_import: ImportCallback | None
    on_cell: CellCallback | None
    load_failures: Sequence[str]
    host: HostBridge | None


def _no_cell_callback(running: bool) -> None:
    return None


class Kernel:
    """One per worker. `run` executes a cell; globals persist from one run to the next."""

    def __init__(self, options: KernelOptions | None = None) -> None:
        self._options = options or KernelOptions()
        self._policy = Policy.from_spec(
            self._options.policy, allow_install=self._options.allow_install
        )
        if self._options.allow_install:
            confine_installed_micropip()
        self._main = types.ModuleType("__main__")
        self._main.__dict__["display"] = display
        self._runs = 0
        self._imports = ImportAnnouncer()
        # A cell run again is not parsed, checked and compiled again (the policy is fixed).
        self._compiled = CompiledCells()
        # The working directory as the last run left it: the next run's "before", unless the host
        # wrote there since (`forget_files`). Saves a scan per run, long with many files.
        # A task a run left running that writes later shows in the next run's files.
        self._files: Snapshot | None = None
        # With a count of the file system's changes, a run that changed nothing since that scan
        # ends without one (`watch_files`).
        self._changes: FileChanges | None = None
        self._scanner: FileScan | None = None
        self._scanned_at = 0
        os.makedirs(self._options.cwd, exist_ok=True)
        self._workspace = Workspace(self._options.cwd)
        # A worker restored from a memory snapshot inherits `random`'s frozen state: every sandbox
        # would draw the same numbers. Reseed from the platform's entropy; numpy's global state
        # too when the package snapshot had it imported.
        random.seed()
        _reseed_numpy()
        prepare_interpreter()
        mpl_config = configure_matplotlib()
        install_chart_hooks()
        self._roots = library_roots(self._options.cwd, (mpl_config,))
        # What a save keeps beside the variables: settings that differ from these, and the
        # module attributes the cells assigned (`state.py`).
        self._baseline = Baseline.now()
        self._assigned: set[Attribute] = set()
        # The modules the worker had before the session's first run (a snapshot's, a spare's
        # preload): a save lists them only when its values need them, so that its resume can
        # start from a snapshot that lacks them (`state.py`).
        self._preloaded: frozenset[str] | None = None
        # The cells' own context, kept from one run to the next as a REPL's is: a ContextVar one
        # cell sets (`decimal.setcontext`) is what the next one gets, and what a save captures.
        self._context = contextvars.copy_context()

    @property
    def namespace(self) -> dict[str, object]:
        """The cells' globals (`__name__ == "__main__"`)."""
        return self._main.__dict__

    def environment(self) -> Environment:
        return describe(self._options, self._policy)

    def describe_files(self) -> str:
        """A bounded preview of the working directory's data files (`workspace.py`); each file
        is read again only when its size or mtime changed."""
        return self._workspace.describe()

    def forget_files(self) -> None:
        """Files changed outside a run (the host wrote one): the next run scans afresh."""
        self._files = None

    def watch_files(self, changes: FileChanges, scan: FileScan | None = None) -> None:
        """From now on a run scans the working directory at its end only when `changes()` moved
        since the last scan: the worker counts every change to its in-memory file system
        (sandbox/file-changes.ts), however it was made. Without it every run ends with a scan.
        `scan`, when given, walks the files in the worker's place (sandbox/file-scan.ts)."""
        self._changes = changes
        self._scanner = scan
        self._files = None

    @staticmethod
    def result_json(result: KernelResult) -> str:
        """A run's result as JSON text, for the worker (`result.result_json`)."""
        return result_json(result)

    def start_json(
        self, code: str, *, run_id: str, **hooks: Unpack[RunHooks]
    ) -> str | asyncio.Task[str]:
        """`start`, with the result as JSON text (`result.result_json`), or a task giving that
        text: what the worker calls, so that a plain cell's result crosses to JavaScript as one
        string, without a proxy for the dict and a second call to convert it."""
        started = self.start(code, run_id=run_id, **hooks)
        if isinstance(started, asyncio.Future):
            return asyncio.get_event_loop().create_task(_json_when_done(started))
        return result_json(started)

    def save_state(self) -> SavedState:
        """The cells' variables, module attributes and settings, pickled; the ones that cannot
        be are named (see `state.py`)."""
        around = Surroundings(
            baseline=self._baseline,
            assigned=self._assigned,
            own_code=self._options.cwd,
            injected=("display",),
            preloaded=self._preloaded or frozenset(),
        )
        # `import wasmbox` (the host's module, `host.py`) is saved by its name and its classes by
        # reference: outside a run it is not importable, so it is put back for the save and load.
        with _as_main_module(self._main), host_module():
            return self._context.run(save_state, self.namespace, around)

    def load_state(self, data: bytes) -> Restored:
        """Restore variables saved by `save_state` (in another worker) into this kernel."""
        # A JS Uint8Array arrives as a proxy: `to_bytes` copies it at once, `bytes()` byte by byte.
        to_bytes = getattr(data, "to_bytes", None)
        raw = to_bytes() if callable(to_bytes) else bytes(data)
        # In the working directory, as the cells import: the session's own modules are there.
        with _as_main_module(self._main), host_module(), contextlib.chdir(self._options.cwd):
            return self._context.run(load_state, self.namespace, raw, self._assigned)

    def close(self) -> None:
        """Forget this kernel's cells: their source lines (kept for tracebacks) and its globals.
        A worker's rehearsal kernel is closed before the worker serves a sandbox."""
        for number in range(1, self._runs + 1):
            linecache.cache.pop(f"<{self._options.cell_prefix}-{number}>", None)
        self.namespace.clear()
        self._compiled = CompiledCells()

    async def run(self, code: str, *, run_id: str, **hooks: Unpack[RunHooks]) -> KernelResult:
        """Run one cell. Never raises for anything the code does (only for outside cancellation)."""
        started = self.start(code, run_id=run_id, **hooks)
        return await started if isinstance(started, asyncio.Future) else started

    def start(
        self,
        code: str,
        *,
        run_id: str,
        on_stream: StreamCallback | None = None,
        on_import: ImportCallback | None = None,
        on_cell: CellCallback | None = None,
        load_failures: Sequence[str] = (),
        host: HostBridge | None = None,
    ) -> KernelResult | asyncio.Future[KernelResult]:
        """Run one cell: its result at once, or a task giving it for a cell with top-level `await`.

        A cell that cannot wait runs to its end in this call, so it costs no turn of the event loop
        (a task, then its future's callback: a share of a short run's round trip worth saving).
        `on_cell(True)` is called just before the cell's code runs and `on_cell(False)` just
        after: the worker arms its interrupt only in between, so an interrupt cannot land in
        other Python (a package loading in the background) before or after the cell.
        `load_failures`: why the worker could not load this cell's packages, said by the import
        that then fails. `host`: the worker's bridge to the host's tools and input() (host.py).
        `on_import(name)`: the run's code imported `name`, one of the modules the host readies for,
        the first time in this kernel (`announce.py`)."""
        self._runs += 1
        if self._preloaded is None:
            self._preloaded = frozenset(name.partition(".")[0] for name in list(sys.modules))
        filename = f"<{self._options.cell_prefix}-{self._runs}>"
        options = self._options
        out = self._writer("stdout", options.stdout_limit, on_stream)
        err = self._writer("stderr", options.stderr_limit, on_stream)
        audit = _audit(code)
        if self._policy is not None and (refusal := self._policy.check_size(code)):
            return _refused(refusal, filename, out, err, audit)
        compiled = self._compiled.get(code, filename)
        if compiled is not None:
            cell, assigned = compiled
        else:
            try:
                tree = parse_cell(code, filename)
                if self._policy is not None and (refusal := self._policy.check_tree(tree)):
                    return _refused(refusal, filename, out, err, audit)
                cell = compile_cell(tree, code, filename)
                assigned = assigned_paths(tree)
            except SyntaxError as exc:
                error = self._error(exc.with_traceback(None))  # the frames are the kernel's
                return _result("OUTCOME_FAILED", out, err, audit, error=error)
            self._compiled.keep(code, cell, assigned)
        execution = self._execute(
            cell,
            run_id,
            out,
            err,
            audit,
            on_cell or _no_cell_callback,
            load_failures,
            assigned,
            RunHost.of(host),
            self._imports.for_run(on_import),
        )
        if cell.awaits:
            return asyncio.get_event_loop().create_task(execution, context=self._context)
        return _to_the_end(execution, self._context)

    async def _execute(
        self,
        cell: CompiledCell,
        run_id: str,
        out: CappedWriter,
        err: CappedWriter,
        audit: Audit,
        on_cell: CellCallback,
        load_failures: Sequence[str] = (),
        assigned: Sequence[tuple[tuple[str, ...], str]] = (),
        host: RunHost | None = None,
        on_import: Callable[[object], None] | None = None,
    ) -> KernelResult:
        collector = AuditCollector(self._options.cwd, self._roots)
        run = RunContext(run_id, cell.filename, collector, on_import=on_import)
        modules_before = set(sys.modules)
        files_before = self._files if self._files is not None else self._scan()
        self._files = None  # until this run has ended and been scanned
        value: MimeBundle | None = None
        failure: BaseException | None = None
        host = host or RunHost()
        # What the run changes in the interpreter, for its duration: one `with` of class-based
        # managers (an ExitStack of generator-based ones was a share of a short run's time).
        with (
            _in_directory(self._options.cwd),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            redirect_stdin(HostStdin(out.current_line, out.write)),
            granted(host),
            host_module(),
            tools_in_reach(host),
            _as_main_module(self._main),
            DISPATCHER.activate(run),
            self._import_guard(run),
            _recursion_limit(self._options.recursion_limit),
        ):
            try:
                on_cell(True)
                value = await self._evaluate(cell)
            except BaseException as exc:
                if _cancelled_from_outside(exc):
                    raise
                failure = exc
            finally:
                on_cell(False)
            # The module attributes the cell set, resolved now its imports are bound.
            self._assigned.update(module_attributes(assigned, self.namespace))
            try:
                run.displays.extend(take_open_figures())
            except Exception as exc:
                failure = failure or exc
        out.flush()
        err.flush()
        files_after = files_before if self._unchanged_since_scan() else self._scan()
        files = changed_files(files_before, files_after) if files_after is not files_before else []
        self._files = files_after
        audit["filesRead"] = sorted(collector.files_read)
        audit["filesWritten"] = collector.written(list(map(_PATH, files)))
        audit["networkAttempts"] = collector.network
        audit["importedModules"] = _new_top_level_modules(modules_before)
        try:
            if run.violation is not None:
                return _refused(run.violation, cell.filename, out, err, audit, failure, files)
            error = self._error(failure, load_failures) if failure is not None else None
            outcome: Outcome = outcome_of(failure) if failure is not None else "OUTCOME_OK"
            result = _result(
                outcome,
                out,
                err,
                audit,
                value=value,
                error=error,
                displays=run.displays,
                files=files,
            )
            if error is not None and failure is not None:
                hint = error_hint(
                    failure,
                    namespace=self.namespace,
                    cwd=self._options.cwd,
                    available=self._options.available_packages,
                    tools=(host or RunHost()).tools,
                )
                if hint:
                    error["hint"] = hint
            elif _shows_nothing(result):
                result["hint"] = empty_run_hint()
            return result
        finally:
            # The traceback holds this frame, which holds the exception: a cycle only the cycle
            # collector would free, keeping what the failed cell's frames allocated until then.
            failure = None

    def _scan(self) -> Snapshot:
        if self._changes is not None:
            self._scanned_at = self._changes()  # before the scan: a change during it rescans
        if self._scanner is not None:
            return unpack(self._scanner(self._options.cwd))
        return scan(self._options.cwd)

    def _unchanged_since_scan(self) -> bool:
        return self._changes is not None and self._changes() == self._scanned_at

    async def _evaluate(self, cell: CompiledCell) -> MimeBundle | None:
        await evaluate(cell.body, self.namespace)
        if cell.last is None:
            return None
        value = await evaluate(cell.last, self.namespace)
        if value is None:
            return None
        self.namespace["_"] = value
        return mime_bundle(value)

    def _import_guard(self, run: RunContext) -> contextlib.AbstractContextManager[object]:
        if self._policy is None:
            return contextlib.nullcontext()
        return ImportGuard(self._policy, run.record_violation, self._options.cell_prefix)

    def _writer(self, name: str, limit: int, on_stream: StreamCallback | None) -> CappedWriter:
        return CappedWriter(
            name,
            limit,
            on_stream=on_stream,
            batch_bytes=self._options.stream_batch_bytes,
            interval_s=self._options.stream_interval_s,
        )

    def _error(self, exc: BaseException, load_failures: Sequence[str] = ()) -> ErrorInfo:
        return error_info(
            exc,
            available=self._options.available_packages,
            recursion_limit=self._options.recursion_limit,
            load_failures=load_failures,
        )


def _shows_nothing(result: KernelResult) -> bool:
    """An OK run with no output, value, image or file: the model saw nothing of what it did."""
    return (
        result["outcome"] == "OUTCOME_OK"
        and not result["stdout"]
        and not result["stderr"]
        and result["value"] is None
        and not result["displays"]
        and not result["files"]
    )


def _audit(code: str) -> Audit:
    return Audit(
        codeSha256=hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest(),
        filesRead=[],
        filesWritten=[],
        networkAttempts=[],
        importedModules=[],
        peakMemoryBytes=None,
    )


def _result(
    outcome: Outcome,
    out: CappedWriter,
    err: CappedWriter,
    audit: Audit,
    *,
    value: MimeBundle | None = None,
    displays: list[Display] | None = None,
    files: list[FileInfo] | None = None,
    error: ErrorInfo | None = None,
    policy: PolicyInfo | None = None,
) -> KernelResult:
    return KernelResult(
        outcome=outcome,
        stdout=out.getvalue(),
        stderr=err.getvalue(),
        truncated=out.truncated or err.truncated,
        value=value,
        displays=displays or [],
        files=files or [],
        error=error,
        audit=audit,
        policy=policy,
    )


def _refused(
    violation: Violation,
    filename: str,
    out: CappedWriter,
    err: CappedWriter,
    audit: Audit,
    failure: BaseException | None = None,
    files: list[FileInfo] | None = None,
) -> KernelResult:
    """A POLICY_VIOLATION result; `failure` is the PolicyViolation raised in the run, if any,
    and `files` those the run wrote before it was refused."""
    if isinstance(failure, PolicyViolation) and failure.violation is violation:
        traceback = format_exception(failure)
    else:
        traceback = _violation_traceback(violation, filename)
    error = ErrorInfo(name="PolicyViolation", message=violation.message, traceback=traceback)
    return _result(
        "OUTCOME_POLICY_VIOLATION",
        out,
        err,
        audit,
        error=error,
        policy=violation.info(),
        files=files,
    )


def _violation_traceback(violation: Violation, filename: str) -> str:
    if violation.line is None:
        return f"PolicyViolation: {violation.message}\n"
    source = linecache.getline(filename, violation.line).strip()
    return (
        f'  File "{filename}", line {violation.line}\n    {source}\n'
        f"PolicyViolation: {violation.message}\n"
    )


async def _json_when_done(started: asyncio.Future[KernelResult]) -> str:
    return result_json(await started)


def _to_the_end(
    execution: Coroutine[object, object, KernelResult], context: contextvars.Context
) -> KernelResult:
    """Drive a run that never waits to its end, in `context` as a task would run it."""
    try:
        context.run(execution.send, None)
    except StopIteration as done:
        result: KernelResult = done.value
        return result
    execution.close()
    raise RuntimeError("a cell without top-level await waited")


def _cancelled_from_outside(exc: BaseException) -> bool:
    """A cancellation of the task running the kernel must propagate, not become a result."""
    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _new_top_level_modules(before: set[str]) -> list[str]:
    """Top-level names of the modules imported since `before`. Only the new names are split:
    splitting all ~500 loaded names twice was half the kernel's time for a `1+1` run. A package
    is in sys.modules whenever one of its submodules is, so `before` answers for its top level."""
    added = sys.modules.keys() - before
    return sorted({name.partition(".")[0] for name in added} - before)


class _as_main_module:
    """Make the cells' module `sys.modules["__main__"]` (pickle and dataclasses look there)."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._previous: list[types.ModuleType | None] = []

    def __enter__(self) -> None:
        self._previous.append(sys.modules.get("__main__"))
        sys.modules["__main__"] = self._module

    def __exit__(self, *exc: object) -> None:
        previous = self._previous.pop()
        if previous is not None:
            sys.modules["__main__"] = previous
        else:
            sys.modules.pop("__main__", None)


class _in_directory:
    """`contextlib.chdir` without the two changes of directory when the process is already in
    `path` (the worker keeps it there between runs): a run ends where it began, wherever the cell
    went."""

    def __init__(self, path: str) -> None:
        self._path = os.path.abspath(path)
        self._previous: list[str] = []

    def __enter__(self) -> None:
        previous = os.getcwd()
        self._previous.append(previous)
        if previous != self._path:
            os.chdir(self._path)

    def __exit__(self, *exc: object) -> None:
        previous = self._previous.pop()
        if os.getcwd() != previous:
            os.chdir(previous)


class _recursion_limit:
    """Allow `levels` nested calls below the current depth, for the run only."""

    def __init__(self, levels: int) -> None:
        self._levels = levels
        self._previous = 0

    def __enter__(self) -> None:
        self._previous = sys.getrecursionlimit()
        depth = 0
        frame: types.FrameType | None = sys._getframe()
        while frame is not None:
            depth += 1
            frame = frame.f_back
        sys.setrecursionlimit(depth + self._levels)

    def __exit__(self, *exc: object) -> None:
        sys.setrecursionlimit(self._previous)


def _reseed_numpy() -> None:
    """numpy.random's legacy global state, only if numpy is already imported (never imports it)."""
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
