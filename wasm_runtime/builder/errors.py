"""Build failures. Every message says what failed and what to do about it."""

from __future__ import annotations

from pathlib import Path


class BuildError(Exception):
    """The runtime could not be built; the message is meant for the person running the build."""


class HashMismatchError(BuildError):
    """A file's sha256 differs from the one pinned for it: it is refused, never used."""

    def __init__(self, file_name: str, expected: str, actual: str, origin: str | Path) -> None:
        self.file_name = file_name
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{file_name} from {origin} has the wrong sha256 and was refused.\n"
            f"  expected {expected}\n  actual   {actual}\n"
            "The file is corrupt or has been tampered with. If it is in the cache, delete it "
            "(or run `wasmbox build --refresh`) to fetch it again."
        )
