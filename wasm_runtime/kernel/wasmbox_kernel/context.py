"""Which run is current: one dispatcher object, the only module-level state of the kernel.

A run activates its `RunContext` for its duration (a `ContextVar`, so tasks started by the run see
it and nothing else does). The dispatcher is also the process's single audit hook: Python cannot
remove audit hooks, so it is installed once and forwards events to the current run's collector.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from .audit import AUDITED_EVENTS, AuditCollector
from .policy import Violation
from .result import Display


@dataclass
class RunContext:
    """What a run accumulates while the user's code executes."""

    run_id: str
    filename: str
    collector: AuditCollector
    displays: list[Display] = field(default_factory=list)
    violation: Violation | None = None
    # Given each imported module's name while the run lasts (`announce.py`); None: nobody listens.
    on_import: Callable[[object], None] | None = None

    def record_violation(self, violation: Violation) -> None:
        if self.violation is None:
            self.violation = violation


class Dispatcher:
    def __init__(self) -> None:
        self._current: ContextVar[RunContext | None] = ContextVar("wasmbox_run", default=None)
        self._hooked = False

    def current(self) -> RunContext | None:
        return self._current.get()

    def activate(self, run: RunContext) -> _Active:
        self._install_audit_hook()
        return _Active(self._current, run)

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        """The audit hook: runs on every audit event in the process, so it stays cheap. An open
        goes straight to the collector's `on_open`: a loop that opens thousands of files pays
        this call for each."""
        if event == "open":
            run = self._current.get()
            if run is not None:
                run.collector.on_open(args)
        elif event in AUDITED_EVENTS:
            run = self._current.get()
            if run is not None:
                run.collector.on_event(event, args)
        elif event == "import":
            run = self._current.get()
            if run is not None and run.on_import is not None:
                run.on_import(args[0])
        elif event == "os.chdir":
            AuditCollector.directory_moves += 1

    def _install_audit_hook(self) -> None:
        if not self._hooked:
            sys.addaudithook(self)
            self._hooked = True


class _Active:
    """`run` current for the block (a class: entered on every run, cheaper than a generator)."""

    def __init__(self, current: ContextVar[RunContext | None], run: RunContext) -> None:
        self._current = current
        self._run = run
        self._tokens: list[Token[RunContext | None]] = []

    def __enter__(self) -> RunContext:
        self._tokens.append(self._current.set(self._run))
        return self._run

    def __exit__(self, *exc: object) -> None:
        self._current.reset(self._tokens.pop())


DISPATCHER = Dispatcher()
