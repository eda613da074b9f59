"""Where a session's first plot goes, in CPU-seconds: `python -m tests.bench.first_plot_cpu
[--runs N] [--ab]`. Raw Pyodide in Node boots the build's runtime files, installs matplotlib and
its dependencies with the kernel's wheel unpacker and takes the Artist classes' set() text from
the build's table (as the sandbox's worker does; `--ab` alternates runs with and without the
table and prints both), then imports numpy,
matplotlib and pyplot and draws two figures, a step at a time (tests/bench/first_plot_cpu.mjs).
CPU time of the Node process, all its threads, per step: unlike wall-clock it hardly moves with
the machine's load. The Agg backend stands in for the sandbox's own (wasmbox_kernel/mpl_backend.py,
which draws with Agg too). `bench-sandbox --only first-plot` times the same steps in each
browser's sandbox, as wall-clock. Prints figures only."""

from __future__ import annotations

import argparse
import os
import statistics

from tests.bench.raw import SCRIPT as RAW_SCRIPT
from tests.support.node_probe import node_json
from wasm_runtime.paths import KERNEL_SRC, RUNTIME_DIR

SCRIPT = RAW_SCRIPT.with_name("first_plot_cpu.mjs")


def sample(table: str = "with") -> dict[str, float]:
    """CPU milliseconds per step, from one new Node process; `table` "without" leaves the
    Artist classes' set() text to matplotlib."""
    steps: dict[str, float] = node_json(
        str(SCRIPT), f"{RUNTIME_DIR}/", str(KERNEL_SRC), table, what="the first plot's steps"
    )
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ab", action="store_true", help="alternate runs without the table")
    options = parser.parse_args()
    runs = options.runs
    tables = ("with", "without") if options.ab else ("with",)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    samples: dict[str, list[dict[str, float]]] = {table: [] for table in tables}
    for _ in range(runs):
        for table in tables:
            samples[table].append(sample(table))
    print(f"first plot's steps, CPU ms (median of {runs}; load average at the start {load})")
    for table in tables:
        if options.ab:
            print(f"{table} the build's table of set() text:")
        report(samples[table])
    if options.ab:
        print(f"load average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def report(samples: list[dict[str, float]]) -> None:
    total = 0.0
    for name in samples[0]:
        values = [s[name] for s in samples]
        median = statistics.median(values)
        if name not in ("boot", "second figure") and not name.startswith(" "):
            total += median
        print(f"  {name:<50} {median:7.0f}  ({min(values):.0f}-{max(values):.0f})")
    print(f"  {'the first plot, after boot':<50} {total:7.0f}")


if __name__ == "__main__":
    main()
