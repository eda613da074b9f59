"""Work a spare worker does while it waits, so a session's first heavy cell runs on warm code.

A new worker's WebAssembly runs on V8's baseline code until a function has run enough to be
optimised in the background. In Chromium on 2 cores the first `import numpy` of a page took about
0.95 s against 0.55 s in later sessions, and the pandas workload 2.75 s against 1.95 s. The
interpreter's hot paths are common to all Python: the evaluation loop, calls, attribute and
dictionary access, string building, compiling and (un)marshalling code, as an import does.
`exercise` runs them in slices the worker can stop between; it leaves nothing behind.
"""

from __future__ import annotations

import json
import marshal
import time
from collections.abc import Callable


class _Point:
    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y

    def moved(self, dx: int) -> _Point:
        return _Point(self.x + dx, self.y)


def _loops() -> int:
    total = 0
    for i in range(20_000):
        total += i % 7 if i & 1 else -(i % 5)
    return total


def _objects() -> int:
    point = _Point(0, 0)
    for step in range(5_000):
        point = point.moved(step % 3)
    return point.x


def _containers() -> int:
    table = {f"key-{i}": (i, i * 2.5, str(i)) for i in range(2_000)}
    text = json.dumps(table)
    return len(json.loads(text)) + sum(len(label) for _, _, label in table.values())


def _code() -> int:
    source = "\n".join(
        f"def f{i}(x, y=2):\n    return [x + {i}, y * x, {{'k': x}}]" for i in range(60)
    )
    # S302: the bytes were marshalled here, from our own source, a line above.
    code = marshal.loads(marshal.dumps(compile(source, "<exercise>", "exec")))  # noqa: S302
    namespace: dict[str, object] = {}
    exec(code, namespace)
    return len(namespace)


WORKLOADS: tuple[Callable[[], int], ...] = (_loops, _objects, _containers, _code)


def exercise(budget_s: float = 0.05) -> int:
    """Run the workloads in turn for about `budget_s` seconds; return how many ran."""
    deadline = time.perf_counter() + budget_s
    runs = 0
    while time.perf_counter() < deadline:
        WORKLOADS[runs % len(WORKLOADS)]()
        runs += 1
    return runs
