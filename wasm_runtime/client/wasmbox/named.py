"""Named sessions on disk: what lets `Sandbox.create(session=NAME)` and `wasmbox mcp --session NAME`
find their sandbox again after the process ends.

The SDK keeps a persisted sandbox in the host page's IndexedDB, which belongs to a browser profile
and an origin. So a named session has its own profile directory and remembers its loopback port
(the origin is `http://127.0.0.1:PORT`), beside the id of its sandbox:

    <data dir>/sessions/<NAME>/{profile-chromium/, session.json, lock}

The data dir is `WASMBOX_DATA_DIR`, else `$XDG_DATA_HOME/wasmbox`, else `~/.local/share/wasmbox`.
One process at a time holds a session (an OS file lock): a second one gets `SessionInUse`, since
two browsers cannot share a profile and two writers would overwrite each other's saves.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wasmbox.errors import WasmboxError
from wasmbox.locks import FileLock, holder

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class SessionInUse(WasmboxError):
    """Another process has this named session open."""


def data_dir() -> Path:
    if explicit := os.environ.get("WASMBOX_DATA_DIR"):
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "wasmbox"


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(
            f"a session name is 1-64 letters, digits, '.', '_' or '-' (not starting with "
            f"'.', '_' or '-'), got {name!r}"
        )
    return name


@dataclass
class NamedSession:
    """One claimed session directory; `release()` lets another process have it."""

    name: str
    directory: Path
    port: int | None = None
    sandbox_id: str | None = None
    _lock: FileLock | None = field(default=None, repr=False)

    def profile(self, browser: str) -> Path:
        """The browser profile; one per engine, since their profiles cannot be shared."""
        return self.directory / f"profile-{browser}"

    @property
    def state_file(self) -> Path:
        return self.directory / "session.json"

    @classmethod
    def claim(cls, name: str, root: Path | None = None) -> NamedSession:
        """Lock the session `name` for this process (made on first use); SessionInUse if taken."""
        directory = (root or data_dir()) / "sessions" / check_name(name)
        directory.mkdir(parents=True, exist_ok=True)
        lock = FileLock.take(directory / "lock")
        if lock is None:
            raise SessionInUse(
                f"the session {name!r} is open in another wasmbox process "
                f"(pid {holder(directory / 'lock')}): "
                "stop that one first, or use another session name"
            )
        session = cls(name, directory, _lock=lock)
        session._load()
        return session

    def _load(self) -> None:
        try:
            state: Any = json.loads(self.state_file.read_text())
        except FileNotFoundError:
            return
        except ValueError:
            state = None
        if not isinstance(state, dict):
            raise WasmboxError(f"{self.state_file} is damaged: remove it to start the session over")
        port, sandbox_id = state.get("port"), state.get("sandbox")
        self.port = port if isinstance(port, int) and 0 < port < 65536 else None
        self.sandbox_id = sandbox_id if isinstance(sandbox_id, str) else None

    def remember(self, *, port: int, sandbox_id: str | None) -> None:
        """Write the port and sandbox id (whole or not at all: a temporary file, then a rename)."""
        self.port, self.sandbox_id = port, sandbox_id
        temporary = self.state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps({"port": port, "sandbox": sandbox_id}))
        temporary.replace(self.state_file)

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
