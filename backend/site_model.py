"""`wasmbox export DIR --model FILE.gguf`: a model shipped with the site, answered in the page.

The GGUF goes to DIR/models/ with DIR/models/local-model.json (its URL, sha256, size), which the
app reads to offer "On this device"; the page checks the file against that sha256 and keeps it in
its store, so the site answers with no endpoint at all, and offline after one visit. The engine's
files (sdk/local-model/) are then precached by the service worker.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

MODELS_DIR = "models"
DESCRIPTION = "local-model.json"
GGUF_MAGIC = b"GGUF"
# One ArrayBuffer holds at most 2 GiB in the engine; larger models must be split (llama-gguf-split).
MAX_FILE_BYTES = 2**31 - 1
HEX = re.compile(r"^[0-9a-fA-F]{64}$")


class ModelShipError(Exception):
    """The model could not be shipped; the message says why (the CLI prints it)."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_model(path: Path, expected_sha256: str | None) -> str:
    """The file's sha256, once it is a GGUF of a size the engine loads (and the one expected)."""
    if expected_sha256 is not None and not HEX.match(expected_sha256):
        raise ModelShipError(f"--model-sha256 must be 64 hex digits, not {expected_sha256!r}")
    if not path.is_file():
        raise ModelShipError(f"{path} is not a file")
    with path.open("rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise ModelShipError(f"{path} is not a GGUF model file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ModelShipError(
            f"{path} is {size / 2**30:.1f} GiB; the in-page engine reads files up to 2 GiB: "
            "split it with `llama-gguf-split --split-max-size 1G` and serve the shards yourself "
            "(localModel({ url: '...-00001-of-0000N.gguf' }) loads them)"
        )
    actual = sha256_of(path)
    if expected_sha256 is not None and actual != expected_sha256.lower():
        raise ModelShipError(
            f"{path}: sha256 is {actual}, expected {expected_sha256.lower()}; not shipped"
        )
    return actual


def ship_model(path: Path, sha256: str, site: Path) -> dict[str, object]:
    """Copy the model into `site` and describe it for the app; return the description."""
    folder = site / MODELS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, folder / path.name)
    description: dict[str, object] = {
        "url": f"{MODELS_DIR}/{path.name}",
        "name": path.stem,
        "sha256": sha256,
        "bytes": path.stat().st_size,
    }
    (folder / DESCRIPTION).write_text(json.dumps(description, indent=1) + "\n", encoding="utf-8")
    return description
