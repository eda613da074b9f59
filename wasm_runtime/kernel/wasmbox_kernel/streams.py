"""Per-run stdout/stderr writers: capped, streamed in batches; and how a run's stdin is installed.

The kernel installs them with `contextlib.redirect_stdout/stderr` (and `redirect_stdin` below) for
the duration of a run, so nothing is patched and restored by hand (stdin: host.HostStdin).
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable

StreamCallback = Callable[[str, str], None]
"""`on_stream(name, text)`, name being "stdout" or "stderr"."""


class CappedWriter(io.TextIOBase):
    """A text stream that keeps at most `limit` UTF-8 bytes and streams them in batches.

    Beyond the cap nothing more is kept or streamed; a marker line is added once. A huge single
    write is cut before it is encoded, so memory stays around the cap.
    """

    def __init__(
        self,
        name: str,
        limit: int,
        *,
        on_stream: StreamCallback | None = None,
        batch_bytes: int = 8192,
        interval_s: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._name = name
        self._limit = limit
        self._on_stream = on_stream
        self._batch_bytes = batch_bytes
        self._interval_s = interval_s
        self._clock = clock
        self._used = 0
        self._parts: list[str] = []
        self._pending: list[str] = []
        self._pending_bytes = 0
        self._last_emit = clock()
        self.truncated = False

    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        length = len(text)
        if self.truncated or not length:
            return length
        room = self._limit - self._used
        head = text[:room]  # a character is at least one byte: never more than `room` chars
        if head.isascii():
            size = len(head)
        else:
            data = head.encode("utf-8", "replace")
            size = len(data)
            if size > room:
                head = data[:room].decode("utf-8", "ignore")
                size = len(head.encode("utf-8", "replace"))
        self._keep(head, size)
        if len(head) < length:
            self._truncate()
        return length

    def flush(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        self._last_emit = self._clock()
        callback = self._on_stream
        if callback is None:
            return
        try:
            callback(self._name, text)
        except Exception:
            self._on_stream = None  # a broken listener must not fail the user's code

    def getvalue(self) -> str:
        return "".join(self._parts)

    def current_line(self, limit: int = 4096) -> str:
        """The text written since the last newline (what input() printed as its prompt)."""
        tail: list[str] = []
        for part in reversed(self._parts):
            _, newline, after = part.rpartition("\n")
            tail.append(after)
            if newline or sum(map(len, tail)) >= limit:
                break
        return "".join(reversed(tail))[-limit:]

    def _keep(self, text: str, size: int) -> None:
        if not text:
            return
        self._used += size
        self._parts.append(text)
        if self._on_stream is None:
            return
        self._pending.append(text)
        self._pending_bytes += size
        if (
            self._pending_bytes >= self._batch_bytes
            or self._clock() - self._last_emit >= self._interval_s
        ):
            self.flush()

    def _truncate(self) -> None:
        self.truncated = True
        marker = f"\n[wasmbox: {self._name} truncated after {self._limit} bytes]\n"
        self._parts.append(marker)
        if self._on_stream is not None:
            self._pending.append(marker)
        self.flush()


class redirect_stdin(contextlib._RedirectStream[io.TextIOBase]):
    """Like `contextlib.redirect_stdout`, for `sys.stdin`."""

    _stream = "stdin"
