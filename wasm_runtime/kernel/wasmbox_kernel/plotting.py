"""matplotlib's set-up in the sandbox: our backend, a config dir outside the working directory,
and a first figure drawn ahead, while a spare worker waits.

The environment is set before anything imports matplotlib (it reads `MPLBACKEND` once, at
import): `prepare_interpreter()` does it as the worker boots, before a spare preloads matplotlib,
and `Kernel()` again for hosts that only create kernels. Nothing here imports matplotlib unless
asked to warm it.
"""

from __future__ import annotations

import gc
import io
import os
import sys
import tempfile

MPL_BACKEND = "module://wasmbox_kernel.mpl_backend"


def configure_matplotlib() -> str:
    """Point matplotlib (if the user imports it) at our backend and a config dir outside cwd;
    returns the config dir."""
    os.environ["MPLBACKEND"] = MPL_BACKEND
    config_dir = os.environ.setdefault(
        "MPLCONFIGDIR", os.path.join(tempfile.gettempdir(), "wasmbox-matplotlib")
    )
    # A worker booted from the plot-ready snapshot has matplotlib imported already, holding this
    # directory as its cache, but /tmp is new in every worker.
    os.makedirs(config_dir, exist_ok=True)
    return config_dir


def warm_matplotlib() -> None:
    """Draw and encode one small figure the way a cell's figure is (text, lines, a legend, PNG),
    then close it: the font files are read and parsed, the Agg renderer set up, and the code a
    first plot runs compiled, before a session asks for its first plot. Leaves no figure open
    and rcParams as they were. Only when pyplot is already imported (a preload did it)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    figure = pyplot.figure(figsize=(2, 1.5))
    try:
        axes = figure.add_subplot()
        axes.plot([1, 2, 3], [1, 4, 2], label="warm")
        axes.set_title("warm")
        axes.set_xlabel("x")
        axes.legend()
        figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    finally:
        pyplot.close(figure)


def release_font_files() -> None:
    """Drop matplotlib's cached fonts, whose FreeType faces read their font file as they go
    through an open Python file: a memory snapshot made now (the plot-ready one, at build time)
    keeps those objects but no open file, so its first figure could not read a glyph. The next
    figure opens the files again."""
    font_manager = sys.modules.get("matplotlib.font_manager")
    if font_manager is not None:
        font_manager._get_font.cache_clear()
        gc.collect()


# What a spare does after preloading a package, by package name (runtime.ts: preloadPackages).
WARMERS = {"matplotlib": warm_matplotlib}

# Modules a spare imports one at a time before a package's own imports, by package name: each
# import is one step of the preload, and a request that arrives during a step waits for it, so
# the session that claims a spare mid-preload waits for a part of `import pylab`, not all of it.
# Each is one that the package's own imports import anyway.
IMPORT_STEPS = {"matplotlib": ("numpy", "matplotlib", "matplotlib.pyplot")}


def import_steps(name: str) -> list[str]:
    """The modules to import one by one before the package `name`'s own imports."""
    return list(IMPORT_STEPS.get(name, ()))


def warm_package(name: str) -> None:
    """The warm-up for the package `name` that a spare just imported, if it has one."""
    warm = WARMERS.get(name)
    if warm is not None:
        warm()
