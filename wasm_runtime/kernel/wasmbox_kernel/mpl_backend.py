"""The matplotlib backend of the sandbox: Agg rendering, and `plt.show()` publishes the figures.

Selected with `MPLBACKEND=module://wasmbox_kernel.mpl_backend`, so it is only imported when the
user's code imports matplotlib. With plain Agg, `plt.show()` would warn that it cannot show.
"""

from __future__ import annotations

import importlib

from .displays import publish_open_figures

_agg = importlib.import_module("matplotlib.backends.backend_agg")

FigureCanvas = _agg.FigureCanvas
FigureManager = _agg.FigureManager


def show(*, block: bool | None = None) -> None:
    """Turn the open figures into `image/png` displays of the current run, and close them."""
    publish_open_figures()
