"""Which run is current: one dispatcher object, the only module-level state of the kernel.

A run activates its `RunContext` for its duration (a `ContextVar`, so tasks started by the run see
it and nothing else does). The dispatcher is also the process's single audit hook: Python cannot
remove audit hooks, so it is installed once and forwards events to the current run's collector.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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

    def record_violation(self, violation: Violation) -> None:
        if self.violation is None:
            self.violation = violation


class Dispatcher:
    def __init__(self) -> None:
        self._current: ContextVar[RunContext | None] = ContextVar("wasmbox_run", default=None)
        self._hooked = False

    def current(self) -> RunContext | None:
        return self._current.get()

    @contextmanager
    def activate(self, run: RunContext) -> Iterator[RunContext]:
        self._install_audit_hook()
        token = self._current.set(run)
        try:
            yield run
        finally:
            self._current.reset(token)

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        """The audit hook: runs on every audit event in the process, so it stays cheap."""
        if event not in AUDITED_EVENTS:
            return
        run = self._current.get()
        if run is not None:
            run.collector.on_event(event, args)

    def _install_audit_hook(self) -> None:
        if not self._hooked:
            sys.addaudithook(self)
            self._hooked = True


DISPATCHER = Dispatcher()
