"""Run a Node script from the repository's root that reports as JSON on its last line of output
(the probes in tests/support, the bench's Node measurements)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from wasm_runtime.paths import REPO_ROOT


def node_json(*args: str, what: str, timeout: float = 600) -> Any:
    """The JSON value `node *args` printed last; `what` names the script in an error."""
    done = subprocess.run(
        ["node", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
