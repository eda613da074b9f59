"""A small tree of files laid out like the build output, for the static-serving tests."""

from __future__ import annotations

import gzip
from pathlib import Path

import brotli

JS = b"export const answer = 42;\n" * 20
SECRET = b"outside the served roots"
CHART_BUNDLE = "vega-0123456789ab.js"
VERSIONED_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def make_tree(root: Path) -> dict[str, Path]:
    """runtime/, js/{sandbox,sdk,app}/, web/ and a secret file beside them."""
    runtime, js, web = root / "runtime", root / "js", root / "web"
    write(runtime / "pyodide.asm.wasm", b"\0asm\1\0\0\0")
    write(runtime / "pyodide.mjs", JS)
    write(runtime / "pyodide.mjs.br", brotli.compress(JS))
    write(runtime / "pyodide.mjs.gz", gzip.compress(JS))
    write(runtime / "pyodide-lock.json", b'{"packages": {}}')
    write(runtime / VERSIONED_WHEEL, b"PK wheel")
    write(runtime / ".hidden", SECRET)
    write(runtime / "subdir" / "inner.js", JS)
    write(js / "sandbox" / "frame.html", b"<!doctype html><script src=worker.js></script>")
    write(js / "sandbox" / "worker.js", JS)
    write(js / "sdk" / "wasmbox.js", JS)
    write(js / "app" / "main.js", JS)
    write(js / "charts" / CHART_BUNDLE, JS)
    write(js / "charts" / "charts.json", b'{"vega": {"sha256": "dmVnYQ=="}}')
    write(web / "index.html", b"<!doctype html><title>wasmbox</title>")
    write(web / "style.css", b"body {}")
    write(root / "outside" / "secret.txt", SECRET)
    (runtime / "escape.txt").symlink_to(root / "outside" / "secret.txt")
    return {"runtime_dir": runtime, "js_dir": js, "web_dir": web}
