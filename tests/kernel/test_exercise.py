"""The spare's interpreter exercise (wasmbox_kernel/exercise.py): it runs, and leaves nothing."""

from __future__ import annotations

import linecache
import sys

from wasmbox_kernel import exercise


def test_each_workload_computes_its_result() -> None:
    assert [workload() for workload in exercise.WORKLOADS] == [
        sum(i % 7 if i & 1 else -(i % 5) for i in range(20_000)),
        sum(step % 3 for step in range(5_000)),
        2_000 + sum(len(str(i)) for i in range(2_000)),
        61,  # 60 functions and __builtins__
    ]


def test_a_budget_runs_every_workload_and_none_runs_without_one() -> None:
    assert exercise.exercise(0.0) == 0
    assert exercise.exercise(0.2) >= len(exercise.WORKLOADS)


def test_it_leaves_no_module_and_no_source_lines() -> None:
    modules, lines = set(sys.modules), set(linecache.cache)
    exercise.exercise(0.05)
    assert set(sys.modules) == modules
    assert set(linecache.cache) == lines
