"""`display()` and matplotlib figures: what ends up in a run's `displays`.

Nothing here imports matplotlib: figures are collected only when the cell imported pyplot.
"""

from __future__ import annotations

import base64
import io
import sys

from .context import DISPATCHER
from .mime import displays_for
from .result import Display


def display(*objs: object) -> None:
    """Show each object in the result's `displays`: one entry per MIME type, richest first."""
    run = DISPATCHER.current()
    if run is None:
        return  # called outside a run (e.g. by a late callback): there is no result to add to
    for obj in objs:
        run.displays.extend(displays_for(obj))


def take_open_figures() -> list[Display]:
    """PNG displays of the figures pyplot has open, which are then closed."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    displays: list[Display] = []
    for number in pyplot.get_fignums():
        buffer = io.BytesIO()
        pyplot.figure(number).savefig(buffer, format="png", bbox_inches="tight")
        displays.append(
            Display(mime="image/png", data=base64.b64encode(buffer.getvalue()).decode())
        )
    pyplot.close("all")
    return displays


def publish_open_figures() -> None:
    """Add the open figures to the current run's displays (what `plt.show()` does here)."""
    run = DISPATCHER.current()
    displays = take_open_figures()
    if run is not None:
        run.displays.extend(displays)
