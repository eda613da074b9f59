"""Pre-compressed `.br` and `.gz` siblings, made once per file content and kept in the cache.

Compressing at build time lets the server send brotli at the highest quality without spending CPU
per request; the cache (keyed by sha256) makes rebuilds free.
"""

from __future__ import annotations

import filecmp
import gzip
import shutil
from pathlib import Path

import brotli

COMPRESSIBLE = {".js", ".mjs", ".json", ".wasm", ".html", ".css", ".map", ".ts", ".txt", ".bin"}
# Brotli 11 is slow on large files; past this size quality 9 is nearly as small, far faster.
BROTLI_MAX_QUALITY_BYTES = 16_000_000
# Past this size (the package snapshot) brotli 5 and gzip 6: the higher levels took several times
# as long for a few percent less (the figures are in CHANGELOG.md).
FAST_BYTES = 48_000_000
ENCODINGS = {".br": "br", ".gz": "gzip"}


def compress_bytes(data: bytes, suffix: str) -> bytes:
    large = len(data) > FAST_BYTES
    if suffix == ".br":
        quality = 11 if len(data) <= BROTLI_MAX_QUALITY_BYTES else 5 if large else 9
        return bytes(brotli.compress(data, quality=quality))
    return gzip.compress(data, compresslevel=6 if large else 9, mtime=0)


def precompress(path: Path, sha256: str, cache_dir: Path) -> dict[str, int]:
    """Write `path.br` and `path.gz` (from the cache when possible); return their sizes."""
    if path.suffix not in COMPRESSIBLE:
        return {}
    sizes = {}
    cache_dir.mkdir(parents=True, exist_ok=True)
    for suffix, encoding in ENCODINGS.items():
        cached = cache_dir / (sha256 + suffix)
        if not cached.is_file():
            partial = cached.with_name(cached.name + ".part")
            partial.write_bytes(compress_bytes(path.read_bytes(), suffix))
            partial.replace(cached)
        target = path.with_name(path.name + suffix)
        # By content: a changed file can compress to the same size (a lock file whose only change
        # is one hash did, and the stale .br went on being served).
        if not target.is_file() or not filecmp.cmp(cached, target, shallow=False):
            shutil.copyfile(cached, target)
        sizes[encoding] = target.stat().st_size
    return sizes
