"""An exported folder (`wasmbox export`) served by `python -m http.server` on loopback: a static
host with no special headers, at its root or under a sub-path."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from backend.site_export import ExportOptions, export_site
from tests.support.servers import PAGES_DIR, free_port
from wasm_runtime.paths import RUNTIME_DIR

TEST_PAGES = ("sdk-sandbox.html", "sdk-sandbox.js")


def export_with_test_pages(
    out_dir: Path, base_path: str | None = None, runtime_dir: Path = RUNTIME_DIR
) -> Path:
    """Export into `out_dir`, plus the SDK test page under test-pages/ (as the test app has it)."""
    export_site(ExportOptions(out_dir=out_dir, base_path=base_path, runtime_dir=runtime_dir))
    (out_dir / "test-pages").mkdir()
    for name in TEST_PAGES:
        shutil.copy2(PAGES_DIR / name, out_dir / "test-pages" / name)
    return out_dir


@contextmanager
def http_server(root: Path) -> Iterator[str]:
    """`python -m http.server` serving `root` on a free loopback port; yields its base URL."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "http.server",
        str(port),
        "--bind",
        "127.0.0.1",
        "-d",
        str(root),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("python -m http.server did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
