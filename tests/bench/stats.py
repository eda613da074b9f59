"""Summaries for benchmark rows: median with min–max, as shared/bench/WORKLOADS.md asks."""

from __future__ import annotations

import statistics


def summary(samples: list[float], unit: str = "ms") -> str:
    if not samples:
        return "n/a"
    return (
        f"{statistics.median(samples):8.1f} {unit}  "
        f"(min {min(samples):.1f}, max {max(samples):.1f}, n={len(samples)})"
    )


def megabytes(count: int) -> str:
    return f"{count / 1e6:8.2f} MB"
