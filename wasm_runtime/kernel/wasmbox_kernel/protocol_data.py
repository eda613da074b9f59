"""What the kernel shares with the host: `LIMITS`, the extension-to-MIME table, the outcomes,
the modules whose import a run announces.

They live once, in `wasm_runtime/protocol/*.json`. The builder copies them into the kernel's
wheel (`wasmbox_kernel/protocol/`); the CPython tests read them from the source tree.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

_SOURCE_TREE = Path(__file__).resolve().parents[2] / "protocol"


def _table(name: str) -> Any:
    packed = resources.files(__package__).joinpath("protocol", name)
    text = packed.read_text() if packed.is_file() else (_SOURCE_TREE / name).read_text()
    return json.loads(text)


LIMITS: dict[str, int] = _table("limits.json")
MIME_BY_EXTENSION: dict[str, str] = _table("mime.json")
# The outcomes, as the SDK's result schema lists them (made from protocol/schema.ts).
OUTCOMES: tuple[str, ...] = tuple(
    _table("execution-result.schema.json")["properties"]["outcome"]["enum"]
)
# The top-level modules whose first import a run tells the host (`announce.py`).
ANNOUNCED_IMPORTS: frozenset[str] = frozenset(_table("announced-imports.json"))


def guess_mime(path: str) -> str:
    """The MIME type of `path` by its extension (case-insensitive), as the host's table has it
    and as the host's `mimeOf` (protocol/mime.ts) reads it: from the name's last dot, unless
    that dot begins the name. Called once per file a run wrote, so kept to string methods."""
    name = path[path.rfind("/") + 1 :]
    dot = name.rfind(".")
    if dot <= 0:
        return "application/octet-stream"
    return MIME_BY_EXTENSION.get(name[dot:].lower(), "application/octet-stream")
