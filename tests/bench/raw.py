"""Raw Pyodide beside the sandbox rows (issue 27): npm `pyodide` on the build's own runtime files,
in a Node worker thread (tests/bench/raw_pyodide.mjs), doing W1–W4 with the code strings the
sandbox rows run. Its figures are the floor of this runtime: the rows' ratios to them are what we
add. Figures only, no asserts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from wasm_runtime.paths import REPO_ROOT, RUNTIME_DIR

SCRIPT = Path(__file__).with_name("raw_pyodide.mjs")

W1 = "print(1+1)"
W2 = "1+1"
W3 = "import numpy as np; print(np.arange(1_000_000, dtype=np.int64).sum())"
W4 = (
    "import numpy as np, pandas as pd; rng = np.random.default_rng(0); "
    'df = pd.DataFrame({"customer": rng.integers(0, 50, 100_000).astype(str), '
    '"revenue": rng.random(100_000) * 1000}); '
    'print(df.groupby("customer").revenue.sum().nlargest(5))'
)
WORKLOADS = {"W1": W1, "W2": W2, "W3": W3, "W4": W4}
TIMEOUT_S = 1800


def measure(runs: int) -> dict[str, list[float]]:
    """Milliseconds per row: W1 a new worker to its first result, W2 five warm calls per worker,
    W3 and W4 a booted interpreter's first run (its packages loaded from the runtime's files)."""
    done = subprocess.run(
        ["node", str(SCRIPT), f"{RUNTIME_DIR}/", str(runs), json.dumps(WORKLOADS)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"raw Pyodide failed: {done.stderr.strip()[-300:]}")
    rows: dict[str, list[float]] = json.loads(done.stdout)
    return rows
