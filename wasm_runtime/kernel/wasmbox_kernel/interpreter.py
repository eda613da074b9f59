"""Process-wide adjustments to Pyodide's interpreter, made once per worker.

The worker calls `prepare_interpreter()` as soon as it has imported the kernel, before a warm
spare preloads packages, so those loads get them too; `Kernel()` calls it again (a no-op) for
hosts that only create kernels. Outside Pyodide it changes nothing.
"""

from __future__ import annotations

import sys

from ._patches.artist_set import use_shipped_table
from ._patches.wheel_unpack import install_from_memory
from ._patches.zip_cache import skip_unchanged_zip_rereads
from .after_import import after_import
from .plotting import configure_matplotlib
from .timezones import ensure_utc_zone


def prepare_interpreter() -> None:
    if sys.platform != "emscripten":
        return
    ensure_utc_zone()
    skip_unchanged_zip_rereads()
    install_from_memory()
    # Before a spare preloads matplotlib, which reads its backend once, at import.
    configure_matplotlib()
    # Before matplotlib defines its Artist classes: their set() text from the build's table.
    after_import({"matplotlib.artist": use_shipped_table})
