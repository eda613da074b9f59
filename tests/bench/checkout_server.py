"""Serve another checkout's test app (its own build/ and SDK) beside this one, for a same-run A/B
(`WASMBOX_BENCH_BASELINE=DIR`, a checkout with `make build` done). The server runs in a child
process (DIR's own .venv when it has one) whose imports resolve to DIR, so both builds' Python
and JS are each their own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.engines import ENGINE_GAPS

SERVE = """
import sys, time
from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.servers import running
with running(app_with_page_headers(sys.argv[1] == "isolated")) as url:
    print(url, flush=True)
    while True:
        time.sleep(3600)
"""


@contextmanager
def checkout_server(root: Path, engine: str) -> Iterator[str]:
    """The base URL of `root`'s test app, served until the block ends: with COOP/COEP pages where
    `engine` can run isolated, plain where it cannot (as this build's own server for it)."""
    if not (root / "build" / "js").is_dir():
        raise RuntimeError(f"{root}: no build/js (run `make build` there)")
    env = {**os.environ, "PYTHONPATH": str(root)}
    # Its own environment when it has one: this one's editable installs point into this checkout.
    own = root / ".venv" / "bin" / "python"
    python = str(own) if own.exists() else sys.executable
    child = subprocess.Popen(
        [python, "-c", SERVE, isolation(engine)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        if not url.startswith("http://"):
            raise RuntimeError(f"{root}: its test app did not start")
        yield url
    finally:
        child.kill()
        child.wait(timeout=10)


def isolation(engine: str) -> str:
    """How the pages are served to `engine`: "isolated" (COOP/COEP) or "plain" (WebKitGTK)."""
    return "plain" if (engine, "isolated") in ENGINE_GAPS else "isolated"
